import { openDatabase } from '../sqlite/database.ts';
import { applyAtRevision } from './apply-at-revision.ts';
import { SqliteViewStore } from './sqlite-view-store.ts';

describe('applyAtRevision', () => {
  it('applies each revision once and in order, whatever is replayed', async () => {
    const items = new SqliteViewStore(openDatabase(':memory:')).collection('items');
    expect(await applyAtRevision(items, 'a', 0, { $set: { name: 'first' } }, true)).toBe(true);
    expect(await applyAtRevision(items, 'a', 0, { $set: { name: 'replayed' } }, true)).toBe(false);
    expect(await applyAtRevision(items, 'a', 1, { $set: { name: 'second' } }, false)).toBe(true);
    expect(await applyAtRevision(items, 'a', 1, { $set: { name: 'again' } }, false)).toBe(false);
    expect(await applyAtRevision(items, 'a', 0, { $set: { name: 'stale' } }, true)).toBe(false);
    expect(await applyAtRevision(items, 'b', 3, { $set: { name: 'absent' } }, false)).toBe(false);
    expect(await items.find({})).toEqual([{ _id: 'a', name: 'second', revision: 1 }]);
  });
});
