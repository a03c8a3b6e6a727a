import { ApiError } from '@stamp/http-kit';

/**
 * The ApiError that `run` throws, for decider tests.
 * @throws the error itself when it is not an ApiError, or an Error when nothing is thrown.
 */
export function thrownApiError(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

/**
 * The ApiError that `running` rejects with, for tests of asynchronous functions.
 * @throws the rejection itself when it is not an ApiError, or an Error when it resolves.
 */
export async function rejectedApiError(running: Promise<unknown>): Promise<ApiError> {
  try {
    await running;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}
