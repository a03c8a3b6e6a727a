import { randomUUID } from 'node:crypto';

import type { Logger } from 'pino';

import { DuplicateEventError, type EventStore, type NewEvent } from '../event-store/event-store.ts';
import type { ViewStore } from '../views/view-store.ts';
import { Lease, type LeaseStore } from './leases.ts';

/** Name of the view collection that holds pending timers. */
export const TIMERS_COLLECTION = 'timers';

/**
 * A durable timer (architecture brief, "Timers and leases"): recorded by a domain event, written
 * to the `timers` view by that domain's projection, and fired by appending `event` to `streamId`
 * with the timer id as the event id, so a second firing changes nothing.
 */
export interface TimerDocument {
  /** Timer id; becomes the fired event's id. */
  _id: string;
  /** Due time, epoch ms. */
  dueAt: number;
  streamId: string;
  event: Omit<NewEvent, 'id'>;
  [field: string]: unknown;
}

/** Options of {@link TimerScheduler}. */
export interface TimerSchedulerOptions {
  store: EventStore;
  views: ViewStore;
  leases: LeaseStore;
  logger: Logger;
  /** How often due timers are looked for, ms; default 200. */
  intervalMs?: number;
  /**
   * The view collection of the timers it fires (default {@link TIMERS_COLLECTION}); a service
   * that owns its own timers view runs its own scheduler, under the lease
   * `timer-scheduler:<collection>`.
   */
  collection?: string;
}

/**
 * Fires due timers while holding the `timer-scheduler` lease. A fired timer is removed from the
 * view by the scheduler; a duplicate event id (fired before, or by another scheduler) counts as
 * fired.
 */
export class TimerScheduler {
  private readonly options: TimerSchedulerOptions;
  private readonly collection: string;
  private readonly lease: Lease;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(options: TimerSchedulerOptions) {
    this.options = options;
    this.collection = options.collection ?? TIMERS_COLLECTION;
    const name =
      this.collection === TIMERS_COLLECTION
        ? 'timer-scheduler'
        : `timer-scheduler:${this.collection}`;
    this.lease = new Lease(options.leases, name, randomUUID(), 10_000);
  }

  start(): void {
    const interval = this.options.intervalMs ?? 200;
    this.timer = setInterval(() => {
      this.running ??= this.tick()
        .then(() => undefined)
        .finally(() => {
          this.running = undefined;
        });
    }, interval);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.lease.release();
  }

  /**
   * Fires the timers due at `now` (epoch ms), at most 500 per call, in appends of up to
   * {@link FIRE_BATCH} timers (one commit each); a batch refused because one of its timers fired
   * before is fired again one timer at a time. Returns how many were due.
   */
  async tick(now = Date.now()): Promise<number> {
    if (!(await this.lease.held())) return 0;
    const timers = this.options.views.collection<TimerDocument>(this.collection);
    const due = await timers.find({ dueAt: { $lte: now } }, { sort: { dueAt: 1 }, limit: 500 });
    for (let start = 0; start < due.length; start += FIRE_BATCH) {
      const batch = due.slice(start, start + FIRE_BATCH);
      const fired = await this.fire(batch);
      if (fired.length > 0) await timers.deleteMany({ _id: { $in: fired } });
    }
    return due.length;
  }

  /** Appends the events of `batch`; answers the ids of the timers that fired (now or before). */
  private async fire(batch: readonly TimerDocument[]): Promise<string[]> {
    try {
      await this.options.store.append(batch.map(appendOf));
      return batch.map((timer) => timer._id);
    } catch (error) {
      if (batch.length > 1) {
        const fired: string[] = [];
        for (const timer of batch) fired.push(...(await this.fire([timer])));
        return fired;
      }
      if (error instanceof DuplicateEventError) return batch.map((timer) => timer._id);
      this.options.logger.error({ err: error, timerId: batch[0]?._id }, 'timer could not fire');
      return [];
    }
  }
}

/** The append that fires `timer`: its event, under the timer's id, on its stream. */
const appendOf = (timer: TimerDocument) => ({
  streamId: timer.streamId,
  expectedRevision: 'any' as const,
  events: [{ ...timer.event, id: timer._id }],
});

/** Timers fired by one append (one commit). */
export const FIRE_BATCH = 100;

/** A service's choice about its timers: whether its scheduler runs (default true), its poll, ms. */
export interface TimerSettings {
  enabled?: boolean;
  intervalMs?: number;
}

/**
 * Starts a {@link TimerScheduler} with `options` and the poll of `settings`, unless
 * `settings.enabled` is false (a test that fires the timers itself).
 * @returns the running scheduler, or undefined when none was started.
 */
export function startTimerScheduler(
  options: Omit<TimerSchedulerOptions, 'intervalMs'>,
  settings: TimerSettings = {},
): TimerScheduler | undefined {
  if (settings.enabled === false) return undefined;
  const scheduler = new TimerScheduler({
    ...options,
    ...(settings.intervalMs === undefined ? {} : { intervalMs: settings.intervalMs }),
  });
  scheduler.start();
  return scheduler;
}
