import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { listRoutes, type RouterRoute } from '@stamp/http-kit';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Router } from 'express';

import type { Stamp } from './app.ts';
import { openApiJson, stampOpenApiDocument } from './openapi.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

const REGENERATE = './pnpmw -s stamp openapi > docs/openapi.json';

/** What `./pnpmw stamp openapi` prints today. */
function cliOutput(): string {
  return execFileSync(
    process.execPath,
    [join(process.cwd(), 'services/lite/src/cli.ts'), 'openapi'],
    { encoding: 'utf8', cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 },
  );
}

const key = (route: RouterRoute): string => `${route.method.toUpperCase()} ${route.path}`;

describe('the OpenAPI document', () => {
  let json: string;

  beforeAll(() => {
    json = cliOutput();
  });

  it(`is committed up to date in docs/openapi.json (regenerate: ${REGENERATE})`, () => {
    expect(json).toBe(openApiJson());
    const committed = readFileSync(join(process.cwd(), 'docs/openapi.json'), 'utf8');
    if (committed !== json) {
      throw new Error(`docs/openapi.json is stale; regenerate it with: ${REGENERATE}`);
    }
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(json) as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes requests with the handlers’ schemas and answers with the error envelope', () => {
    const document = stampOpenApiDocument();
    const send = document.paths['/v1/send']?.post as Record<string, unknown>;
    expect(send.security).toEqual([{ apiKey: [] }]);
    expect(JSON.stringify(send.requestBody)).toContain('"attachments"');
    const contact = document.paths['/contacts/{id}']?.patch as { responses: object };
    expect(contact.responses).toMatchObject({
      200: {
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Contact' } } },
      },
      401: { $ref: '#/components/responses/BadCredentials' },
      409: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    });
    expect(document.components.securitySchemes).toMatchObject({
      apiKey: { type: 'http', scheme: 'bearer' },
      session: { type: 'apiKey', in: 'cookie', name: 'stamp_session' },
      projectId: { type: 'apiKey', in: 'header', name: 'X-Project-Id' },
    });
  });
});

describe('the OpenAPI document and the running platform', () => {
  let stamp: Stamp;

  beforeAll(async () => {
    stamp = await startTestStamp();
  });

  afterAll(async () => {
    await stamp.close();
  });

  it('documents every route the routers answer, and no other', () => {
    const answered = new Set<string>();
    const routers: Router[] = [stamp.gateway.router];
    for (const module of stamp.modules) {
      if (module.router !== undefined) routers.push(module.router);
      if (module.publicRouter !== undefined) routers.push(module.publicRouter);
    }
    for (const router of routers) {
      for (const route of listRoutes(router)) answered.add(key(route));
    }
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(stampOpenApiDocument().paths)) {
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    const missing = [...answered].filter((route) => !documented.has(route)).sort();
    const stale = [...documented].filter((route) => !answered.has(route)).sort();
    expect({ missing, stale }).toEqual({ missing: [], stale: [] });
    expect(answered.size).toBeGreaterThan(140);
  });

  it('is served at /openapi.json without a key', async () => {
    const served = await call(stamp.url, undefined, 'GET', '/openapi.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    expect(served.body).toEqual(JSON.parse(openApiJson()));
  });

  it('is browsable at /docs, with Swagger UI served from the package', async () => {
    const page = await fetch(`${stamp.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('/docs/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);

    const bundle = await fetch(`${stamp.url}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    const css = await fetch(`${stamp.url}/docs/swagger-ui.css`);
    expect(css.status).toBe(200);
    const start = await fetch(`${stamp.url}/docs/swagger-initializer.js`);
    expect(await start.text()).toContain("url: '/openapi.json'");

    // Nothing else of the package (its demo page, its own initializer) is served.
    const demo = await call(stamp.url, TEST_KEYS.secretKey, 'GET', '/docs/index.html');
    expect(demo.status).toBe(404);
  });
});
