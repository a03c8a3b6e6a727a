import { type EmbeddedPlatform, openEmbeddedPlatform } from '../embedded.ts';
import { newId } from '../ids.ts';
import { createLogger } from '../logger.ts';
import { TIMERS_COLLECTION, type TimerDocument, TimerScheduler } from './timers.ts';

const logger = createLogger({ level: 'silent' });

/** Polls `condition` every 5 ms; throws after `timeoutMs`. */
async function until(condition: () => Promise<boolean>, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('TimerScheduler on the embedded platform', () => {
  let platform: EmbeddedPlatform;
  const schedulers: TimerScheduler[] = [];
  beforeEach(() => {
    platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
  });
  afterEach(async () => {
    for (const scheduler of schedulers.splice(0)) await scheduler.stop();
    await platform.close();
  });

  const scheduler = (intervalMs = 10): TimerScheduler => {
    const created = new TimerScheduler({
      store: platform.store,
      views: platform.views,
      leases: platform.leases,
      logger,
      intervalMs,
    });
    schedulers.push(created);
    return created;
  };
  const timers = () => platform.views.collection<TimerDocument>(TIMERS_COLLECTION);
  const addTimer = async (dueAt: number, streamId = `reminder-${newId()}`) => {
    const timer: TimerDocument = {
      _id: newId(),
      dueAt,
      streamId,
      event: {
        type: 'ReminderDue',
        data: { note: 'call back' },
        metadata: { projectId: 'p1', correlationId: 'req-1' },
      },
    };
    await timers().insertOne(timer);
    return timer;
  };

  it('fires a due timer once, as its event with the timer id, and removes it', async () => {
    const timer = await addTimer(Date.now() - 1);
    const first = scheduler();
    expect(await first.tick()).toBe(1);
    const events = await platform.store.readStream(timer.streamId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      id: timer._id,
      type: 'ReminderDue',
      data: { note: 'call back' },
      metadata: { projectId: 'p1', correlationId: 'req-1' },
    });
    expect(await timers().findOne({ _id: timer._id })).toBeNull();
    expect(await first.tick()).toBe(0);
    expect(await platform.store.readStream(timer.streamId)).toHaveLength(1);
  });

  it('does not fire a timer before it is due', async () => {
    const now = Date.now();
    const timer = await addTimer(now + 60_000);
    const first = scheduler();
    expect(await first.tick(now)).toBe(0);
    expect(await platform.store.readStream(timer.streamId)).toEqual([]);
    expect(await timers().findOne({ _id: timer._id })).not.toBeNull();
    expect(await first.tick(now + 60_000)).toBe(1);
    expect(await platform.store.readStream(timer.streamId)).toHaveLength(1);
  });

  it('fires timers of one stream in due order', async () => {
    const now = Date.now();
    const later = await addTimer(now - 10, 'reminder-shared');
    const earlier = await addTimer(now - 20, 'reminder-shared');
    expect(await scheduler().tick(now)).toBe(2);
    const events = await platform.store.readStream('reminder-shared');
    expect(events.map((event) => event.id)).toEqual([earlier._id, later._id]);
  });

  it('treats a duplicate fire (the event already exists) as fired and removes the timer', async () => {
    const timer = await addTimer(Date.now() - 1);
    await platform.store.append([
      {
        streamId: timer.streamId,
        expectedRevision: 'no_stream',
        events: [{ ...timer.event, id: timer._id }],
      },
    ]);
    expect(await scheduler().tick()).toBe(1);
    expect(await platform.store.readStream(timer.streamId)).toHaveLength(1);
    expect(await timers().findOne({ _id: timer._id })).toBeNull();
  });

  it('fires a batch in which one timer fired before: the others once each, all removed', async () => {
    const now = Date.now();
    const due = await Promise.all(Array.from({ length: 5 }, (_, index) => addTimer(now - index)));
    const early = due[2]!;
    await platform.store.append([
      {
        streamId: early.streamId,
        expectedRevision: 'no_stream',
        events: [{ ...early.event, id: early._id }],
      },
    ]);
    expect(await scheduler().tick(now)).toBe(5);
    for (const timer of due) {
      expect((await platform.store.readStream(timer.streamId)).map((event) => event.id)).toEqual([
        timer._id,
      ]);
    }
    expect(await timers().countDocuments({})).toBe(0);
  });

  it('never fires a timer twice with two schedulers on the same store', async () => {
    const due = await Promise.all(Array.from({ length: 10 }, () => addTimer(Date.now() - 1)));
    const [one, two] = [scheduler(), scheduler()];
    const counts = await Promise.all([one.tick(), two.tick()]);
    // One of them holds the lease and fires everything; the other does nothing.
    expect([...counts].sort()).toEqual([0, 10]);
    for (const timer of due) {
      expect(await platform.store.readStream(timer.streamId)).toHaveLength(1);
    }
    expect(await timers().countDocuments({})).toBe(0);
  });

  it('fires on its interval while started, and hands over on stop', async () => {
    const [one, two] = [scheduler(), scheduler()];
    // `one` takes the lease (10 s) first, so `two` can only fire once `one` releases it.
    expect(await one.tick()).toBe(0);
    one.start();
    two.start();
    const batch = await Promise.all(Array.from({ length: 5 }, () => addTimer(Date.now() - 1)));
    await until(async () => (await timers().countDocuments({})) === 0);
    // A few more intervals: nothing fires again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const timer of batch) {
      expect(await platform.store.readStream(timer.streamId)).toHaveLength(1);
    }
    expect(await two.tick()).toBe(0);

    await one.stop();
    const late = await addTimer(Date.now() - 1);
    await until(async () => (await platform.store.readStream(late.streamId)).length === 1);
    expect(await timers().findOne({ _id: late._id })).toBeNull();
  });
});
