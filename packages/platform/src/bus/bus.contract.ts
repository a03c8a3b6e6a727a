import type { EventStore, RecordedEvent } from '../event-store/event-store.ts';
import type { Bus } from './bus.ts';

/** What a bus contract run needs: a bus over a store, restartable with the same checkpoints. */
export interface BusFixture {
  store: EventStore;
  /** A bus sharing the fixture's checkpoints, as after a process restart. */
  bus(): Bus;
  close(): Promise<void>;
}

/**
 * Contract suite of the Bus port: at-least-once delivery, per-key order, commit after handling,
 * resume from the checkpoint, independent consumer groups.
 */
export function busContract(name: string, make: () => Promise<BusFixture>): void {
  describe(`Bus contract: ${name}`, () => {
    let fixture: BusFixture;
    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      await fixture.close();
    });

    const append = (streamId: string, type: string) =>
      fixture.store.append([{ streamId, expectedRevision: 'any', events: [{ type, data: {} }] }]);

    it('delivers every event of its topics in per-key order, across concurrency', async () => {
      for (let index = 0; index < 50; index++) {
        await append(`contact-${index % 5}`, `E${index}`);
        await append(`other-${index}`, 'Ignored');
      }
      const seen = new Map<string, string[]>();
      const consumer = fixture.bus().consume({
        groupId: 'g1',
        topics: ['contact'],
        concurrency: 4,
        handle: async (event: RecordedEvent) => {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
          seen.set(event.streamId, [...(seen.get(event.streamId) ?? []), event.type]);
        },
      });
      const head = await fixture.store.headPosition();
      expect(await consumer.waitFor(head, 10_000)).toBe(true);
      await consumer.stop();
      expect([...seen.values()].flat()).toHaveLength(50);
      for (let key = 0; key < 5; key++) {
        const expected = Array.from({ length: 10 }, (_, round) => `E${round * 5 + key}`);
        expect(seen.get(`contact-${key}`)).toEqual(expected);
      }
    });

    it('resumes from the committed checkpoint and retries a failed event', async () => {
      await append('contact-1', 'A');
      await append('contact-1', 'B');
      const first: string[] = [];
      const one = fixture.bus().consume({
        groupId: 'g2',
        topics: ['contact'],
        handle: async (event) => {
          first.push(event.type);
        },
      });
      expect(await one.waitFor(await fixture.store.headPosition(), 5000)).toBe(true);
      await one.stop();
      await append('contact-1', 'C');
      const second: string[] = [];
      let failures = 0;
      const two = fixture.bus().consume({
        groupId: 'g2',
        topics: ['contact'],
        handle: async (event) => {
          if (failures++ === 0) throw new Error('transient');
          second.push(event.type);
        },
      });
      expect(await two.waitFor(await fixture.store.headPosition(), 5000)).toBe(true);
      await two.stop();
      expect(first).toEqual(['A', 'B']);
      expect(second).toEqual(['C']);
    });

    it('keeps consumer groups independent', async () => {
      await append('contact-1', 'A');
      const seen: string[] = [];
      const groups = ['x', 'y'].map((groupId) =>
        fixture.bus().consume({
          groupId,
          topics: ['contact'],
          handle: async (event) => {
            seen.push(`${groupId}:${event.type}`);
          },
        }),
      );
      const head = await fixture.store.headPosition();
      for (const group of groups) expect(await group.waitFor(head, 5000)).toBe(true);
      await Promise.all(groups.map((group) => group.stop()));
      expect(seen.sort()).toEqual(['x:A', 'y:A']);
    });
  });
}
