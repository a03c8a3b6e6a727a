import { DuplicateEventError, type EventStore, WrongExpectedRevisionError } from './event-store.ts';

/**
 * Contract suite of the EventStore port. Every adapter runs it: `make` returns a fresh, empty
 * store (the suite closes it).
 */
export function eventStoreContract(name: string, make: () => Promise<EventStore>): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.close();
    });

    it('appends to a new stream and reads it back in order', async () => {
      const result = await store.append([
        {
          streamId: 'order-1',
          expectedRevision: 'no_stream',
          events: [
            { type: 'Placed', data: { total: 3 }, metadata: { projectId: 'p1' } },
            { type: 'Paid', data: { amount: 3 } },
          ],
        },
      ]);
      expect(result.revisions['order-1']).toBe(1);
      const events = await store.readStream('order-1');
      expect(events.map((event) => [event.type, event.revision])).toEqual([
        ['Placed', 0],
        ['Paid', 1],
      ]);
      expect(events[0]?.data).toEqual({ total: 3 });
      expect(events[0]?.metadata.projectId).toBe('p1');
      expect(events[1]?.position).toBe(result.position);
      expect(await store.headPosition()).toBe(result.position);
    });

    it('refuses a wrong expected revision and writes nothing', async () => {
      await store.append([
        { streamId: 'a-1', expectedRevision: 'no_stream', events: [{ type: 'X', data: {} }] },
      ]);
      await expect(
        store.append([
          { streamId: 'a-1', expectedRevision: 'no_stream', events: [{ type: 'Y', data: {} }] },
        ]),
      ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(
        store.append([{ streamId: 'a-1', expectedRevision: 5, events: [{ type: 'Y', data: {} }] }]),
      ).rejects.toMatchObject({ actual: 0 });
      await expect(
        store.append([
          { streamId: 'b-1', expectedRevision: 'stream_exists', events: [{ type: 'Y', data: {} }] },
        ]),
      ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream('a-1')).toHaveLength(1);
      await store.append([
        { streamId: 'a-1', expectedRevision: 0, events: [{ type: 'Z', data: {} }] },
      ]);
      expect(await store.readStream('a-1', 1)).toHaveLength(1);
      expect((await store.readStream('a-1', 0, 1)).map((event) => event.type)).toEqual(['X']);
    });

    it('appends to several streams atomically', async () => {
      await store.append([
        {
          streamId: 'claim-x',
          expectedRevision: 'no_stream',
          events: [{ type: 'Claimed', data: {} }],
        },
      ]);
      await expect(
        store.append([
          {
            streamId: 'contact-1',
            expectedRevision: 'no_stream',
            events: [{ type: 'Created', data: {} }],
          },
          {
            streamId: 'claim-x',
            expectedRevision: 'no_stream',
            events: [{ type: 'Claimed', data: {} }],
          },
        ]),
      ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream('contact-1')).toEqual([]);
      const result = await store.append([
        {
          streamId: 'contact-1',
          expectedRevision: 'no_stream',
          events: [{ type: 'Created', data: {} }],
        },
        {
          streamId: 'claim-y',
          expectedRevision: 'no_stream',
          events: [{ type: 'Claimed', data: {} }],
        },
      ]);
      expect(result.revisions).toEqual({ 'contact-1': 0, 'claim-y': 0 });
    });

    it('refuses a repeated event id', async () => {
      const event = { id: '0b7a1a4e-2f5c-4b0e-9a57-1f0e0c6b9d11', type: 'Fired', data: {} };
      await store.append([{ streamId: 'timer-1', expectedRevision: 'any', events: [event] }]);
      await expect(
        store.append([{ streamId: 'timer-1', expectedRevision: 'any', events: [event] }]),
      ).rejects.toBeInstanceOf(DuplicateEventError);
      expect(await store.readStream('timer-1')).toHaveLength(1);
    });

    it('reads all events in position order, filtered by category', async () => {
      await store.append([
        { streamId: 'contact-1', expectedRevision: 'any', events: [{ type: 'A', data: {} }] },
      ]);
      await store.append([
        { streamId: 'email-1', expectedRevision: 'any', events: [{ type: 'B', data: {} }] },
      ]);
      await store.append([
        { streamId: 'contact-2', expectedRevision: 'any', events: [{ type: 'C', data: {} }] },
      ]);
      const all = await store.readAll({ after: 0 });
      expect(all.map((event) => event.type)).toEqual(['A', 'B', 'C']);
      const contacts = await store.readAll({ after: 0, categories: ['contact'] });
      expect(contacts.map((event) => event.type)).toEqual(['A', 'C']);
      const later = await store.readAll({ after: all[0]!.position, limit: 1 });
      expect(later.map((event) => event.type)).toEqual(['B']);
    });

    it('settles concurrent appends independently: one conflict fails only itself', async () => {
      await store.append([
        { streamId: 'c-1', expectedRevision: 'no_stream', events: [{ type: 'A', data: {} }] },
      ]);
      const results = await Promise.allSettled([
        store.append([
          { streamId: 'c-2', expectedRevision: 'no_stream', events: [{ type: 'B', data: {} }] },
        ]),
        store.append([
          { streamId: 'c-3', expectedRevision: 'no_stream', events: [{ type: 'C', data: {} }] },
          { streamId: 'c-1', expectedRevision: 'no_stream', events: [{ type: 'D', data: {} }] },
        ]),
        store.append([{ streamId: 'c-1', expectedRevision: 0, events: [{ type: 'E', data: {} }] }]),
        store.append([{ streamId: 'c-1', expectedRevision: 0, events: [{ type: 'F', data: {} }] }]),
      ]);
      expect(results.map((result) => result.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'rejected',
      ]);
      expect(await store.readStream('c-3')).toEqual([]);
      expect((await store.readStream('c-1')).map((event) => event.type)).toEqual(['A', 'E']);
      const positions = results.flatMap((result) =>
        result.status === 'fulfilled' ? [result.value.position] : [],
      );
      expect(positions[1]).toBeGreaterThan(positions[0]!);
    });

    it('notifies listeners after an append', async () => {
      const seen: number[] = [];
      const off = store.onAppend((notice) => seen.push(notice.last));
      const { position } = await store.append([
        { streamId: 'n-1', expectedRevision: 'any', events: [{ type: 'A', data: {} }] },
      ]);
      off();
      await store.append([
        { streamId: 'n-1', expectedRevision: 'any', events: [{ type: 'B', data: {} }] },
      ]);
      expect(seen).toEqual([position]);
    });

    it('reads sealed subject data back until the subject is erased, then never again', async () => {
      const metadata = { projectId: 'p1', subjectId: 'person-1' };
      await store.append([
        {
          streamId: 'person-1',
          expectedRevision: 'no_stream',
          events: [{ type: 'Named', data: { email: 'ada@example.com' }, metadata }],
        },
        {
          streamId: 'visit-1',
          expectedRevision: 'no_stream',
          events: [{ type: 'Visited', data: { page: '/pricing' }, metadata }],
        },
        {
          streamId: 'other-1',
          expectedRevision: 'no_stream',
          events: [
            {
              type: 'Named',
              data: { email: 'bob@example.com' },
              metadata: { subjectId: 'person-2' },
            },
          ],
        },
      ]);
      const [named] = await store.readStream('person-1');
      expect(named?.data).toEqual({ email: 'ada@example.com' });
      expect(named?.erased).toBeUndefined();

      await store.eraseSubject('person-1');
      await store.eraseSubject('person-1');
      const after = await store.readAll({ after: 0 });
      const byStream = new Map(after.map((event) => [event.streamId, event]));
      expect(byStream.get('person-1')).toMatchObject({ type: 'Named', data: {}, erased: true });
      expect(byStream.get('person-1')?.metadata.projectId).toBe('p1');
      expect(byStream.get('visit-1')).toMatchObject({ data: {}, erased: true });
      expect(byStream.get('other-1')?.data).toEqual({ email: 'bob@example.com' });

      // A late event about an erased subject keeps no data either.
      await store.append([
        {
          streamId: 'person-1',
          expectedRevision: 0,
          events: [{ type: 'Renamed', data: { email: 'ada2@example.com' }, metadata }],
        },
      ]);
      expect((await store.readStream('person-1', 1))[0]).toMatchObject({ data: {}, erased: true });
    });

    it('deletes a stream from the log and continues its revisions', async () => {
      await store.append([
        { streamId: 'gone-1', expectedRevision: 'no_stream', events: [{ type: 'A', data: {} }] },
        { streamId: 'kept-1', expectedRevision: 'no_stream', events: [{ type: 'B', data: {} }] },
      ]);
      await store.deleteStream('gone-1');
      await store.deleteStream('gone-1');
      expect(await store.readStream('gone-1')).toEqual([]);
      expect((await store.readAll({ after: 0 })).map((event) => event.streamId)).toEqual([
        'kept-1',
      ]);
      const result = await store.append([
        { streamId: 'gone-1', expectedRevision: 'any', events: [{ type: 'C', data: {} }] },
      ]);
      expect(result.revisions['gone-1']).toBeGreaterThanOrEqual(0);
      expect((await store.readStream('gone-1')).map((event) => event.type)).toEqual(['C']);
      // A count of events counts the events there are, not the revisions deleted before them.
      await store.append([
        { streamId: 'gone-1', expectedRevision: 'any', events: [{ type: 'D', data: {} }] },
      ]);
      expect((await store.readStream('gone-1', 0, 2)).map((event) => event.type)).toEqual([
        'C',
        'D',
      ]);
      expect((await store.readStream('kept-1', 0, 1)).map((event) => event.type)).toEqual(['B']);
      expect(await store.readStream('kept-1', 1, 1)).toEqual([]);
    });
  });
}
