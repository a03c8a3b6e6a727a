import { ROUTED_SERVICES } from '@stamp/contracts';
import { listen, type ServiceModule } from '@stamp/http-kit';
import { createLogger, openEmbeddedPlatform } from '@stamp/platform';
import { checkResponses, fetchJson } from '@stamp/testkit/net.ts';
import express, { type Request, Router } from 'express';

import { createGateway } from './app.ts';
import { memoryKeys, TEST_KEYS } from './testing.ts';

// Stand-in modules answer on paths of the services with answers of their own.
checkResponses(undefined);

/** Set on a request by a check-phase callback queued when it arrived: the loop turned since. */
const TURNED = Symbol('turned');
type Marked = Request & { [TURNED]?: boolean };

describe('gateway routing by the route table', () => {
  const logger = createLogger({ level: 'silent' });
  const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
  /** Names of the modules whose routers a request entered, in order. */
  let entered: string[] = [];
  const modules: ServiceModule[] = ROUTED_SERVICES.map((name) => {
    const router = Router();
    router.use((_req, _res, next) => {
      entered.push(name);
      next();
    });
    if (name === 'domains') {
      router.get('/domains/:id', (req, res) => {
        res.json({ owner: name, turned: (req as Marked)[TURNED] === true });
      });
      // Outside the prefixes the route table gives the service (distributed mode forwards by it).
      router.get('/elsewhere', (_req, res) => {
        res.json({ owner: name });
      });
    }
    return {
      name,
      router,
      publicRouter: Router().use((_req, _res, next) => {
        entered.push(`${name} (public)`);
        next();
      }),
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
    };
  });
  const gateway = createGateway({
    logger,
    keys: memoryKeys(),
    publicUrl: 'http://localhost:3000',
    modules,
    views: platform.views,
    isReady: () => true,
    features: {},
  });
  const app = express();
  app.use((req, _res, next) => {
    setImmediate(() => {
      (req as Marked)[TURNED] = true;
    });
    next();
  });
  app.use(gateway);
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await listen(app, { port: 0, host: '127.0.0.1' });
  });
  beforeEach(() => {
    entered = [];
  });
  afterAll(async () => {
    await server.close(1000);
    await platform.close();
  });

  it("enters only the router of the service that owns the path, in the request's first turn", async () => {
    const response = await fetchJson(`${server.url}/domains/d1`, { key: TEST_KEYS.skA });
    expect(response).toMatchObject({ status: 200, body: { owner: 'domains' } });
    expect(entered).toEqual(['domains']);
    // Every router a request passes through without an answer hands it on a turn later.
    expect(response.body).toMatchObject({ turned: false });
  });

  it('answers 404 for a path outside the route table, as the distributed gateway does', async () => {
    const response = await fetchJson(`${server.url}/elsewhere`, { key: TEST_KEYS.skA });
    expect(response.status).toBe(404);
    expect(entered).toEqual([]);
  });

  it('enters a public router only under its public prefixes', async () => {
    const response = await fetchJson(`${server.url}/unsubscribe/token`);
    expect(response.status).toBe(401);
    expect(entered).toEqual(['contacts (public)']);
  });
});
