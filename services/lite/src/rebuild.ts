/**
 * View rebuild (architecture brief, "Idempotent projections": every view can be dropped and rebuilt
 * from the log, and a command exists for that): `./pnpmw stamp views:rebuild`.
 */
import { type Logger, openEmbeddedPlatform } from '@stamp/platform';

import { createServices } from './app.ts';
import type { StampConfig } from './config.ts';

/** Longest wait for the projections to replay the log, ms (one day). */
const REPLAY_TIMEOUT_MS = 86_400_000;

/**
 * Changes the view store holds before it writes them, during a rebuild: ten times those of a
 * serving process (1,000 documents or 4 MiB, kept small there so that a write never holds the
 * event loop long). Larger transactions share their index and trigram pages among more
 * documents: a rebuild of 400,000 events took 15.7–16.0 s against 16.3–17.7 s (3 alternating
 * pairs), for 12–24 MiB more at its peak; at 2,000,000 events the runs spread too widely to show
 * it (60.5–74.7 s in 4 runs, against 61.5–118.3 s in 5).
 */
const REBUILD_VIEW_WRITES = { pendingDocuments: 10_000, pendingBytes: 40 * 1024 * 1024 };

/** What a rebuild did. */
export interface RebuildReport {
  /** View collections dropped and filled again. */
  collections: string[];
  /** Consumer groups replayed from the start of the log. */
  groups: string[];
  /** Position of the last event of the log when the replay started. */
  events: number;
  /** Time from the drop to every projection reaching that position, ms. */
  durationMs: number;
}

/**
 * Drops every view collection a projection fills (each service's `views`), resets those
 * projections' consumer groups, then starts the services without the HTTP gateway and waits
 * until every projection has replayed the log up to its head. Views that no projection fills
 * (idempotency records, the local outbox) are kept. Run it while the platform is stopped: a
 * running process would keep serving and writing its views meanwhile.
 * @throws Error when a projection has not caught up within a day.
 */
export async function rebuildViews(config: StampConfig, logger: Logger): Promise<RebuildReport> {
  const platform = openEmbeddedPlatform({
    dataDir: config.STAMP_DATA_DIR,
    logger,
    synchronous: config.STAMP_DURABILITY,
    views: REBUILD_VIEW_WRITES,
  });
  const { modules, relay } = createServices(config, platform, logger);
  try {
    const projections = modules.flatMap((module) => module.views ?? []);
    const started = performance.now();
    for (const projection of projections) {
      for (const collection of projection.collections) await platform.views.drop(collection);
      await platform.checkpoints.reset(projection.groupId);
    }
    const head = await platform.store.headPosition();
    for (const module of modules) await module.start({ replay: true });
    try {
      const consumers = modules.flatMap((module) => module.projections?.() ?? []);
      const reached = await Promise.all(
        consumers.map((consumer) => consumer.waitFor(head, REPLAY_TIMEOUT_MS)),
      );
      if (reached.includes(false)) throw new Error('the projections did not replay the log');
      await platform.views.flush();
      return {
        collections: projections.flatMap((projection) => projection.collections),
        groups: projections.map((projection) => projection.groupId),
        events: head,
        durationMs: Math.round(performance.now() - started),
      };
    } finally {
      for (const module of [...modules].reverse()) await module.stop();
    }
  } finally {
    await relay?.close();
    await platform.close();
  }
}
