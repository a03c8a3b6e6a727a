import { WrongExpectedRevisionError } from './event-store.ts';
import { withRevisionRetry } from './retry.ts';

describe('withRevisionRetry', () => {
  it('runs the command again after a conflict, telling onConflict', async () => {
    const conflicts: string[] = [];
    const attempts: number[] = [];
    const result = await withRevisionRetry(
      (attempt) => {
        attempts.push(attempt);
        if (attempt < 2) return Promise.reject(new WrongExpectedRevisionError('s-1', 0, 1));
        return Promise.resolve('done');
      },
      { onConflict: (error) => conflicts.push(error.streamId), jitterMs: 1 },
    );
    expect(result).toBe('done');
    expect(attempts).toEqual([0, 1, 2]);
    expect(conflicts).toEqual(['s-1', 's-1']);
  });

  it('gives up after the attempts with the last conflict, and never retries other errors', async () => {
    let calls = 0;
    await expect(
      withRevisionRetry(
        () => {
          calls++;
          return Promise.reject(new WrongExpectedRevisionError('s-1', 0, 1));
        },
        { attempts: 3 },
      ),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(calls).toBe(3);
    calls = 0;
    await expect(
      withRevisionRetry(() => {
        calls++;
        return Promise.reject(new Error('disk full'));
      }),
    ).rejects.toThrow('disk full');
    expect(calls).toBe(1);
  });
});
