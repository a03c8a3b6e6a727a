import { fetchJson } from '@stamp/testkit/net.ts';
import type { Caller, KeyKind, KeysApi } from '@stamp/contracts';
import { caller, cursorQuery, parse, validationError, type ServiceModule } from '@stamp/http-kit';
import { createLogger, openEmbeddedPlatform, type EmbeddedPlatform } from '@stamp/platform';
import { Router } from 'express';

import { createGateway, type GatewayOptions } from './app.ts';
import { listen, type ListeningServer } from '@stamp/http-kit';

/** Keys of the two test projects. */
export const TEST_KEYS = {
  pkA: 'pk_test_project_a',
  skA: 'sk_test_project_a',
  pkB: 'pk_test_project_b',
  skB: 'sk_test_project_b',
} as const;

/** An in-memory {@link KeysApi} for tests: two projects with a pk_/sk_ pair each. */
export function memoryKeys(): KeysApi & { calls: number } {
  const table = new Map<string, { projectId: string; kind: KeyKind }>([
    [TEST_KEYS.pkA, { projectId: 'project-a', kind: 'public' }],
    [TEST_KEYS.skA, { projectId: 'project-a', kind: 'secret' }],
    [TEST_KEYS.pkB, { projectId: 'project-b', kind: 'public' }],
    [TEST_KEYS.skB, { projectId: 'project-b', kind: 'secret' }],
  ]);
  const keys = {
    calls: 0,
    async resolveKey(key: string) {
      keys.calls += 1;
      return table.get(key) ?? null;
    },
    // No sessions in the gateway's own tests: the platform's test signs users in for real.
    resolveSession: () => Promise.resolve(null),
  };
  return keys;
}

/** A test service: echo routes counting their calls; `release()` frees requests that wait. */
export interface EchoModule extends ServiceModule {
  counts: Map<string, number>;
  release(): void;
}

/**
 * Routes: POST /v1/send (`{to: string, wait?: boolean}`, 422 otherwise; 201), POST /v1/track
 * (`{fail: true}` throws), POST /things (200), GET /things (`parse(cursorQuery)`: 422 on a bad
 * `limit`), GET /things/:id, GET /boom (throws an Error).
 */
export function echoModule(): EchoModule {
  const counts = new Map<string, number>();
  const count = (name: string): number => {
    const next = (counts.get(name) ?? 0) + 1;
    counts.set(name, next);
    return next;
  };
  let gate = Promise.withResolvers<undefined>();
  const router = Router();
  router.post('/v1/send', async (req, res) => {
    const body = (req.body ?? {}) as { to?: unknown; wait?: unknown };
    if (typeof body.to !== 'string' || body.to === '') {
      throw validationError([{ field: 'to', message: 'Required', code: 'invalid_type' }]);
    }
    const n = count('send');
    if (body.wait === true) await gate.promise;
    res.status(201).json({ success: true, caller: caller(res), count: n, to: body.to });
  });
  router.post('/v1/track', (req, res) => {
    const n = count('track');
    if ((req.body as { fail?: unknown } | undefined)?.fail === true) {
      throw new Error('track storage exploded at 10.0.0.7');
    }
    res.json({ success: true, caller: caller(res), count: n });
  });
  router.post('/things', (_req, res) => {
    res.json({ count: count('things') });
  });
  router.get('/things', (req, res) => {
    const query = parse(cursorQuery, req.query);
    res.json({ limit: query.limit, count: count('things-list') });
  });
  router.get('/things/:id', (req, res) => {
    res.json({ id: req.params.id, caller: caller(res), count: count('thing') });
  });
  router.get('/boom', () => {
    throw new Error('connection string postgres://admin:hunter2@db');
  });
  return {
    name: 'echo',
    router,
    counts,
    release() {
      gate.resolve(undefined);
      gate = Promise.withResolvers<undefined>();
    },
    start: async () => undefined,
    stop: async () => undefined,
  };
}

/** A response as the tests read it. */
export interface TestResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

/** A gateway served on loopback with a fresh in-memory platform. */
export interface TestGateway {
  url: string;
  platform: EmbeddedPlatform;
  echo: EchoModule;
  keys: KeysApi & { calls: number };
  ready: { value: boolean };
  /** Sends `body` as JSON (a string body is sent raw as application/json). */
  request(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  server: ListeningServer;
  close(): Promise<void>;
}

/** Starts a gateway with the echo module and the in-memory keys for tests. */
export async function startTestGateway(
  overrides: Partial<Pick<GatewayOptions, 'rateLimit' | 'bodyLimitBytes' | 'features'>> = {},
): Promise<TestGateway> {
  const logger = createLogger({ level: 'silent' });
  const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
  const echo = echoModule();
  const keys = memoryKeys();
  const ready = { value: false };
  const app = createGateway({
    logger,
    keys,
    publicUrl: 'http://localhost:3000',
    modules: [echo],
    views: platform.views,
    isReady: () => ready.value,
    features: overrides.features ?? { webhooks: true, billing: false },
    ...(overrides.rateLimit === undefined ? {} : { rateLimit: overrides.rateLimit }),
    ...(overrides.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: overrides.bodyLimitBytes }),
  });
  const server = await listen(app, { port: 0, host: '127.0.0.1' });
  return {
    url: server.url,
    platform,
    echo,
    keys,
    ready,
    server,
    request: (method, path, options = {}) => fetchJson(server.url + path, { method, ...options }),
    async close() {
      echo.release();
      await server.close(1000);
      await platform.close();
    },
  };
}

/** The caller echoed by the echo routes. */
export function echoedCaller(body: unknown): Caller {
  return (body as { caller: Caller }).caller;
}
