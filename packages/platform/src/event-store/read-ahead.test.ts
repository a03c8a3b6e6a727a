import { join } from 'node:path';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { openDatabase } from '../sqlite/database.ts';
import { ReadAhead } from './read-ahead.ts';
import { SqliteEventStore } from './sqlite-event-store.ts';

describe('ReadAhead', () => {
  it('reads the batches asked for on its thread, once each, and drops the oldest beyond four', async () => {
    const path = join(temporaryDirectory('stamp-ra-'), 'stamp.db');
    const db = openDatabase(path);
    const store = new SqliteEventStore(db, { readAhead: false });
    await store.append(
      Array.from({ length: 10 }, (_, n) => ({
        streamId: `order-${n}`,
        expectedRevision: 'no_stream' as const,
        events: [{ type: 'Placed', data: { n } }],
      })),
    );
    const ahead = new ReadAhead(path);
    try {
      ahead.request({ after: 0, limit: 2 }, 0);
      ahead.request({ after: 0, limit: 2 }, 0);
      expect(ahead.awaiting).toBe(1);
      for (const after of [2, 4, 6, 8]) ahead.request({ after, limit: 2 }, 0);
      expect(await ahead.take({ after: 0, limit: 2 }, 0)).toBeUndefined();
      const batch = await ahead.take({ after: 4, limit: 2 }, 0);
      expect(batch?.map((event) => event.data)).toEqual([{ n: 4 }, { n: 5 }]);
      // Taken once; asked for at another epoch, dropped.
      expect(ahead.take({ after: 4, limit: 2 }, 0)).toBeUndefined();
      expect(ahead.take({ after: 6, limit: 2 }, 1)).toBeUndefined();
      expect(ahead.take({ after: 6, limit: 2 }, 0)).toBeUndefined();
      expect((await ahead.take({ after: 8, limit: 2 }, 0))?.[0]?.data).toEqual({ n: 8 });
    } finally {
      await ahead.close();
      await store.close();
      db.close();
    }
  });

  it('settles a batch with nothing when its thread cannot read the log, and asks nothing once closed', async () => {
    const ahead = new ReadAhead(join(temporaryDirectory('stamp-ra-'), 'missing', 'stamp.db'));
    ahead.request({ after: 0, limit: 10 }, 0);
    expect(await ahead.take({ after: 0, limit: 10 }, 0)).toBeUndefined();
    await ahead.close();
    ahead.request({ after: 0, limit: 10 }, 0);
    expect(ahead.awaiting).toBe(0);
    expect(ahead.take({ after: 0, limit: 10 }, 0)).toBeUndefined();
  });
});
