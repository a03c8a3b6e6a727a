import {
  type AwaitViews,
  pathIsUnder,
  PUBLIC_SERVICE_ROUTES,
  ROUTED_SERVICES,
  SERVICE_ROUTES,
} from '@stamp/contracts';
import type { Bus, EventStore, Logger, ViewStore } from '@stamp/platform';
import type { RequestHandler, Router } from 'express';

/**
 * A service as the hosting process sees it: its public routes (mounted by the gateway behind
 * authentication, rate limiting and the error envelope), its background work, and readiness.
 */
export interface ServiceModule {
  name: string;
  /** Routes under the API root; handlers read the caller with `caller(res)`. */
  router?: Router;
  /**
   * Routes that take no API key (for example the subscription pages linked from emails),
   * mounted by the gateway before authentication and rate limiting by key. They must check
   * their own credentials (such as a signed token in the path), answer only their own paths,
   * and parse their own non-JSON bodies (for example `express.urlencoded` on a POST route).
   */
  publicRouter?: Router;
  /**
   * Starts projections, workers and schedulers. With `replay` (a view rebuild replays the log
   * into dropped views), projections only fill their views: nothing that reacts to the events
   * with new events or effects runs on the half-built views.
   */
  start(options?: StartOptions): Promise<void>;
  /** Stops background work after the work in progress; commits checkpoints. */
  stop(): Promise<void>;
  /** Log positions its projections have reached, for read-your-writes. */
  projections?(): { waitFor(position: number, timeoutMs: number): Promise<boolean> }[];
  /**
   * Its projections: each consumer group with the view collections it fills. A view rebuild
   * (`stamp views:rebuild`) drops those collections, resets those groups, and replays the log.
   */
  readonly views?: readonly ProjectionViews[];
}

/** Options of {@link ServiceModule.start}. */
export interface StartOptions {
  /** The log is being replayed into dropped views (`stamp views:rebuild`). */
  replay?: boolean;
}

/** A projection's consumer group and the view collections it alone fills. */
export interface ProjectionViews {
  groupId: string;
  collections: readonly string[];
}

/** What every service receives from its host: the platform's ports and read-your-writes. */
export interface ServiceDeps {
  store: EventStore;
  bus: Bus;
  views: ViewStore;
  logger: Logger;
  awaitViews: AwaitViews;
}

/**
 * Read-your-writes over a host's modules (architecture brief): resolves once every projection of
 * every module reflects log position `position`, or after `timeoutMs` (ms, default 2000).
 * `modules` is read at each call, so it may be filled after the services are created.
 */
export function awaitViewsOf(modules: readonly ServiceModule[], timeoutMs = 2000): AwaitViews {
  return async (position) => {
    if (position <= 0) return;
    const consumers = modules.flatMap((module) => module.projections?.() ?? []);
    await Promise.all(consumers.map((consumer) => consumer.waitFor(position, timeoutMs)));
  };
}

/**
 * The routers of `module` as a host mounts them: each entered only by requests under the path
 * prefixes the route table of `@stamp/contracts` gives the module's service (`SERVICE_ROUTES`,
 * `PUBLIC_SERVICE_ROUTES`; a module of another name: every request), so both modes route by
 * the one table. A router a request passes through unanswered hands it on in the event loop's
 * next turn (Express' router does, against deep stacks): a request passing every module's
 * routers would wait a turn per router, many milliseconds under load.
 */
export function routedRouters(module: ServiceModule): {
  router?: RequestHandler;
  publicRouter?: RequestHandler;
} {
  const service = ROUTED_SERVICES.find((routed) => routed === module.name);
  const routed = (
    router: Router | undefined,
    prefixes: readonly string[] | undefined,
  ): RequestHandler | undefined => {
    if (router === undefined || service === undefined) return router;
    const owned = prefixes ?? [];
    return (req, res, next) => {
      if (owned.some((prefix) => pathIsUnder(req.path, prefix))) router(req, res, next);
      else next();
    };
  };
  const router = routed(module.router, service && SERVICE_ROUTES[service]);
  const publicRouter = routed(module.publicRouter, service && PUBLIC_SERVICE_ROUTES[service]);
  return {
    ...(router === undefined ? {} : { router }),
    ...(publicRouter === undefined ? {} : { publicRouter }),
  };
}
