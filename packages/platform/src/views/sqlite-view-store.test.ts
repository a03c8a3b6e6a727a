import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openDatabase } from '../sqlite/database.ts';
import { SqliteViewStore } from './sqlite-view-store.ts';
import { viewStoreContract } from './view-store.contract.ts';

viewStoreContract('embedded SQLite + mingo', () =>
  Promise.resolve(new SqliteViewStore(openDatabase(':memory:'))),
);

describe('SqliteViewStore on disk', () => {
  it('keeps documents across a reopen', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'stamp-views-')), 'stamp.db');
    const db = openDatabase(path);
    const views = new SqliteViewStore(db);
    await views.collection('c').insertOne({ _id: '1', a: 1 });
    await views.close();
    db.close();
    const reopened = new SqliteViewStore(openDatabase(path));
    expect(await reopened.collection('c').findOne({ _id: '1' })).toEqual({ _id: '1', a: 1 });
  });
});
