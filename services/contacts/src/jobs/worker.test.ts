import { ApiError, validationError } from '@stamp/http-kit';

import { reasonOf, runRows } from './worker.ts';

/** A promise settled from outside, for rows whose finishing order the test decides. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('running the rows of a chunk', () => {
  it('keeps at most `limit` rows in flight and counts outcomes, errors and positions', async () => {
    let inFlight = 0;
    let most = 0;
    const run = await runRows({
      start: 0,
      size: 20,
      limit: 4,
      keyOf: () => undefined,
      shouldStop: () => false,
      work: async (index) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return index % 5 === 0
          ? { outcome: 'failed', error: { line: index, reason: 'bad' }, position: 0 }
          : { outcome: 'created', position: 100 + index };
      },
    });
    expect(most).toBe(4);
    expect(run).toEqual({
      reached: 20,
      counts: { failed: 4, created: 16 },
      errors: [0, 5, 10, 15].map((line) => ({ line, reason: 'bad' })),
      position: 119,
      failure: undefined,
    });
  });

  it('runs rows with the same key one after another, in order', async () => {
    const order: number[] = [];
    const first = gate();
    const pending = runRows({
      start: 0,
      size: 3,
      limit: 8,
      keyOf: (index) => (index === 1 ? 'other' : 'same'),
      shouldStop: () => false,
      work: async (index) => {
        if (index === 0) await first.promise;
        order.push(index);
        return { outcome: 'created', position: 0 };
      },
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([1]);
    first.open();
    const run = await pending;
    expect(order).toEqual([1, 0, 2]);
    expect(run.reached).toBe(3);
  });

  it('stops taking rows when told and counts only the unbroken run from the start', async () => {
    let stop = false;
    const run = await runRows({
      start: 2,
      size: 10,
      limit: 1,
      keyOf: () => undefined,
      shouldStop: () => stop,
      work: async (index) => {
        if (index === 4) stop = true;
        return { outcome: 'updated', position: index };
      },
    });
    expect(run).toMatchObject({ reached: 5, counts: { updated: 3 }, position: 4 });
    expect(run.failure).toBeUndefined();
  });

  it('retries an unexpected error, then reports the failing row and stops there', async () => {
    const tries = new Map<number, number>();
    const run = await runRows({
      start: 0,
      size: 6,
      limit: 1,
      attempts: 2,
      keyOf: () => undefined,
      shouldStop: () => false,
      work: async (index) => {
        tries.set(index, (tries.get(index) ?? 0) + 1);
        if (index === 3) throw new Error('disk on fire');
        return { outcome: 'created', position: 1 };
      },
    });
    expect(tries.get(3)).toBe(2);
    expect(tries.has(4)).toBe(false);
    expect(run.reached).toBe(3);
    expect(run.failure?.index).toBe(3);
  });

  it('words row errors from the field errors of the contact commands', () => {
    expect(
      reasonOf(validationError([{ field: 'email', message: 'Invalid email address', code: 'x' }])),
    ).toBe('Invalid email address');
    expect(
      reasonOf(validationError([{ field: 'data.notes', message: 'Too long', code: 'too_big' }])),
    ).toBe('Column "notes": Too long');
    expect(reasonOf(new ApiError(409, 'CONFLICT', 'Changed concurrently'))).toBe(
      'Changed concurrently',
    );
  });
});
