import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openDatabase } from '../sqlite/database.ts';
import { eventStoreContract } from './event-store.contract.ts';
import { SqliteEventStore } from './sqlite-event-store.ts';

eventStoreContract('embedded SQLite (memory)', () =>
  Promise.resolve(new SqliteEventStore(openDatabase(':memory:'))),
);

describe('SqliteEventStore on disk', () => {
  it('keeps appended events across a reopen', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'stamp-es-')), 'stamp.db');
    const first = openDatabase(path);
    await new SqliteEventStore(first).append([
      {
        streamId: 'contact-1',
        expectedRevision: 'no_stream',
        events: [{ type: 'Created', data: { a: 1 } }],
      },
    ]);
    first.close();
    const reopened = new SqliteEventStore(openDatabase(path));
    expect((await reopened.readStream('contact-1'))[0]?.data).toEqual({ a: 1 });
  });
});
