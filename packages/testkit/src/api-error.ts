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
