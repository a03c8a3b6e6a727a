import { DuplicateKeyError, type ViewStore } from './view-store.ts';

/** Contract suite of the ViewStore port (MongoDB semantics); `make` returns an empty store. */
export function viewStoreContract(name: string, make: () => Promise<ViewStore>): void {
  describe(`ViewStore contract: ${name}`, () => {
    let views: ViewStore;
    beforeEach(async () => {
      views = await make();
    });
    afterEach(async () => {
      await views.close();
    });

    it('inserts, finds with filter/sort/skip/limit and counts', async () => {
      const people = views.collection('people');
      await people.createIndex({ projectId: 1, email: 1 }, { unique: true });
      for (const [index, email] of ['c@x.io', 'a@x.io', 'b@y.io'].entries()) {
        await people.insertOne({ _id: `p${index}`, projectId: 'p1', email, n: index });
      }
      await people.insertOne({ _id: 'q', projectId: 'p2', email: 'a@x.io', n: 9 });
      const found = await people.find(
        { projectId: 'p1', email: { $regex: 'x\\.io$' } },
        { sort: { email: 1 } },
      );
      expect(found.map((doc) => doc.email)).toEqual(['a@x.io', 'c@x.io']);
      const page = await people.find({ projectId: 'p1' }, { sort: { n: -1 }, skip: 1, limit: 1 });
      expect(page.map((doc) => doc._id)).toEqual(['p1']);
      expect(await people.countDocuments({ projectId: 'p1' })).toBe(3);
      expect(await people.findOne({ projectId: 'p2', email: 'a@x.io' })).toMatchObject({
        _id: 'q',
      });
      await expect(
        people.insertOne({ _id: 'p0', projectId: 'z', email: 'z' }),
      ).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(
        people.insertOne({ _id: 'dup', projectId: 'p1', email: 'a@x.io' }),
      ).rejects.toBeInstanceOf(DuplicateKeyError);
    });

    it('answers $in and $nin with thousands of values, on _id and on a field', async () => {
      const items = views.collection('items');
      const ids = Array.from({ length: 3000 }, (_, index) => `i${index}`);
      await items.bulkWrite(
        ids.map((_id, index) => ({
          replaceOne: { filter: { _id }, replacement: { _id, tag: `t${index % 7}` }, upsert: true },
        })),
      );
      const wanted = ids.filter((_, index) => index % 3 === 0);
      expect(await items.countDocuments({ _id: { $in: wanted } })).toBe(1000);
      expect(await items.countDocuments({ _id: { $nin: wanted } })).toBe(2000);
      const tags = Array.from({ length: 2000 }, (_, index) => `t${index}`);
      expect(await items.countDocuments({ tag: { $in: tags.slice(2, 2000) } })).toBe(
        ids.filter((_, index) => index % 7 >= 2).length,
      );
    });

    it('finds, counts and sorts by keys that hold backslashes', async () => {
      const items = views.collection('keys');
      await items.insertOne({ _id: 'a', 'x\\y': 1, data: { 'p\\q': 'one' } });
      await items.insertOne({ _id: 'b', 'x\\y': 2, data: { 'p\\q': 'two' } });
      expect(await items.countDocuments({ 'x\\y': 1 })).toBe(1);
      expect(await items.countDocuments({ 'data.p\\q': { $exists: true } })).toBe(2);
      const sorted = await items.find({}, { sort: { 'data.p\\q': -1 } });
      expect(sorted.map((item) => item._id)).toEqual(['b', 'a']);
    });

    it('updates with operators, upserts, and guards by revision', async () => {
      const contacts = views.collection('contacts');
      await contacts.updateOne(
        { _id: 'c1', revision: { $lt: 0 } },
        { $set: { email: 'a@x.io', revision: 0 }, $setOnInsert: { createdAt: 't0' } },
        { upsert: true },
      );
      const stale = await contacts.updateOne(
        { _id: 'c1', revision: { $lt: 0 } },
        { $set: { email: 'old' } },
      );
      expect(stale.matchedCount).toBe(0);
      // An upsert whose guard does not match a stored document would insert its `_id` again.
      await expect(
        contacts.updateOne(
          { _id: 'c1', revision: { $lt: 0 } },
          { $set: { email: 'old' } },
          { upsert: true },
        ),
      ).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await contacts.findOne({ _id: 'c1' })).toMatchObject({ email: 'a@x.io' });
      await contacts.updateOne(
        { _id: 'c1', revision: { $lt: 1 } },
        {
          $set: { revision: 1, 'data.plan': 'pro' },
          $inc: { visits: 2 },
          $unset: { createdAt: '' },
        },
      );
      expect(await contacts.findOne({ _id: 'c1' })).toEqual({
        _id: 'c1',
        email: 'a@x.io',
        revision: 1,
        data: { plan: 'pro' },
        visits: 2,
      });
      const many = await contacts.updateMany({ email: 'a@x.io' }, { $set: { flag: true } });
      expect(many.modifiedCount).toBe(1);
    });

    it('deletes, bulk-writes and aggregates', async () => {
      const events = views.collection('events');
      await events.bulkWrite([
        {
          updateOne: {
            filter: { _id: 'e1' },
            update: { $set: { name: 'signup', day: 1 } },
            upsert: true,
          },
        },
        {
          updateOne: {
            filter: { _id: 'e2' },
            update: { $set: { name: 'signup', day: 2 } },
            upsert: true,
          },
        },
        {
          updateOne: {
            filter: { _id: 'e3' },
            update: { $set: { name: 'login', day: 2 } },
            upsert: true,
          },
        },
        {
          replaceOne: {
            filter: { _id: 'e4' },
            replacement: { _id: 'e4', name: 'x' },
            upsert: true,
          },
        },
        { deleteOne: { filter: { _id: 'e4' } } },
      ]);
      const counts = await events.aggregate<{ _id: string; count: number }>([
        { $match: { day: { $gte: 1 } } },
        { $group: { _id: '$name', count: { $sum: 1 } } },
        { $sort: { count: -1 } },
      ]);
      expect(counts).toEqual([
        { _id: 'signup', count: 2 },
        { _id: 'login', count: 1 },
      ]);
      expect((await events.deleteMany({ name: 'signup' })).deletedCount).toBe(2);
      expect(await events.countDocuments({})).toBe(1);
      await views.drop('events');
      expect(await events.countDocuments({})).toBe(0);
    });

    it('returns copies that callers cannot use to change stored documents', async () => {
      const items = views.collection('items');
      await items.insertOne({ _id: 'i', tags: ['a'] });
      const copy = await items.findOne({ _id: 'i' });
      (copy!.tags as string[]).push('b');
      expect(await items.findOne({ _id: 'i' })).toEqual({ _id: 'i', tags: ['a'] });
    });

    it('keeps what was written when the caller changes the objects it passed', async () => {
      const items = views.collection('passed');
      const inserted = { _id: 'i', tags: ['a'], data: { plan: 'free' } };
      await items.insertOne(inserted);
      inserted.tags.push('b');
      inserted.data.plan = 'pro';
      const data = { plan: 'team', seats: [1] };
      await items.updateOne({ _id: 'i' }, { $set: { data } });
      await items.updateOne({ _id: 'u' }, { $set: { data } }, { upsert: true });
      data.plan = 'enterprise';
      data.seats.push(2);
      const replacement = { _id: 'r', tags: ['x'] };
      await items.replaceOne({ _id: 'r' }, replacement, { upsert: true });
      replacement.tags.push('y');
      expect(await items.find({}, { sort: { _id: 1 } })).toEqual([
        { _id: 'i', tags: ['a'], data: { plan: 'team', seats: [1] } },
        { _id: 'r', tags: ['x'] },
        { _id: 'u', data: { plan: 'team', seats: [1] } },
      ]);
    });

    it('lists distinct values of a field among matching documents', async () => {
      const people = views.collection('distinct-people');
      await people.createIndex({ projectId: 1 });
      await people.insertOne({ _id: '1', projectId: 'p1', data: { plan: 'pro', seats: 3 } });
      await people.insertOne({ _id: '2', projectId: 'p1', data: { plan: 'free', seats: 3 } });
      await people.insertOne({ _id: '3', projectId: 'p1', data: { plan: 'pro' } });
      await people.insertOne({ _id: '4', projectId: 'p1', data: { tags: ['a', 'b'] } });
      await people.insertOne({ _id: '5', projectId: 'p2', data: { plan: 'team' } });
      const plans = await people.distinct('data.plan', { projectId: 'p1' });
      expect([...plans].sort()).toEqual(['free', 'pro']);
      expect(await people.distinct('data.seats', { projectId: 'p1' })).toEqual([3]);
      expect([...(await people.distinct('data.tags', {}))].sort()).toEqual(['a', 'b']);
      expect(await people.distinct('data.none', { projectId: 'p1' })).toEqual([]);
    });
  });
}
