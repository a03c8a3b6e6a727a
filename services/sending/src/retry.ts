import { WrongExpectedRevisionError } from '@stamp/platform';

/**
 * Runs `attempt` (read → decide → append with an expected revision) up to `times` times while
 * the append fails with WrongExpectedRevisionError (optimistic concurrency).
 */
export async function withRevisionRetry<T>(attempt: () => Promise<T>, times = 5): Promise<T> {
  for (let round = 1; ; round += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || round >= times) throw error;
    }
  }
}
