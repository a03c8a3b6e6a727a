import { WrongExpectedRevisionError } from './event-store.ts';

/** Options of {@link withRevisionRetry}. */
export interface RevisionRetryOptions {
  /** Attempts in all (default 5). */
  attempts?: number;
  /** Before attempt n+1, waits a random time up to `jitterMs × n` ms (default 0: no wait). */
  jitterMs?: number;
  /** Called with each conflict before the next attempt (for example to drop a cached state). */
  onConflict?: (error: WrongExpectedRevisionError) => void;
}

/**
 * Runs a command (read → decide → append with expected revisions) again while its append fails
 * with WrongExpectedRevisionError: optimistic concurrency, the one retry rule of every service.
 * `command` receives the 0-based attempt number.
 * @throws the last WrongExpectedRevisionError after `attempts`; any other error at once.
 */
export async function withRevisionRetry<T>(
  command: (attempt: number) => Promise<T>,
  options: RevisionRetryOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 0; ; attempt++) {
    try {
      return await command(attempt);
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt + 1 >= attempts) throw error;
      options.onConflict?.(error);
      const jitter = options.jitterMs ?? 0;
      if (jitter > 0) {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * jitter * (attempt + 1)));
      }
    }
  }
}
