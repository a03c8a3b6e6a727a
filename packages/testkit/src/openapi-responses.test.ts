import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { openApiDocument, type RouteDoc } from '@stamp/http-kit';
import { z } from 'zod';

import { checkResponses, fetchJson } from './net.ts';
import { OpenApiResponses } from './openapi-responses.ts';

const routes: RouteDoc[] = [
  {
    method: 'get',
    path: '/things/{id}',
    summary: 'A thing',
    auth: 'secret',
    responses: {
      200: { description: 'The thing', schema: z.object({ id: z.string(), size: z.int() }) },
    },
  },
  {
    method: 'get',
    path: '/things/special',
    summary: 'The special thing',
    auth: 'secret',
    responses: { 200: { description: 'It', schema: z.object({ special: z.literal(true) }) } },
  },
  {
    method: 'get',
    path: '/page',
    summary: 'A page',
    auth: 'none',
    responses: { 200: { description: 'HTML', contentType: 'text/html' } },
  },
];

const document = openApiDocument([{ service: 'test', routes }], { title: 'T', version: '1' });

/** Answers of the test server, by path: status, content type and body. */
const answers: Record<string, [number, string, string]> = {
  '/things/1': [200, 'application/json', '{"id":"1","size":3}'],
  '/things/2': [200, 'application/json', '{"id":"2","size":"big"}'],
  '/things/3': [404, 'application/json', '{"success":false}'],
  '/things/4': [418, 'application/json', '{"teapot":true}'],
  '/THINGS/special/': [200, 'application/json', '{"special":true}'],
  '/page': [200, 'text/html', '<p>hi</p>'],
  '/elsewhere': [200, 'application/json', '{"anything":1}'],
};

describe('OpenApiResponses', () => {
  let server: Server;
  let url = '';

  beforeAll(async () => {
    checkResponses((response) => {
      new OpenApiResponses(document).check(response);
    });
    server = createServer((req, res) => {
      const [status, type, body] = answers[req.url ?? ''] ?? [500, 'text/plain', 'no'];
      res.writeHead(status, { 'content-type': type }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    checkResponses(undefined);
    await new Promise((resolve) => server.close(resolve));
  });

  it('accepts answers the document describes', async () => {
    expect((await fetchJson(`${url}/things/1`)).body).toEqual({ id: '1', size: 3 });
    expect((await fetchJson(`${url}/page`)).status).toBe(200);
  });

  it('refuses a JSON body that does not match, naming the field', async () => {
    await expect(fetchJson(`${url}/things/2`)).rejects.toThrow(
      /GET \/things\/\{id\} \(\/things\/2\) answered 200 with a body .*\/size must be integer/,
    );
  });

  it('refuses an answer whose body breaks the error envelope of a shared error', async () => {
    await expect(fetchJson(`${url}/things/3`)).rejects.toThrow(/must have required property/);
  });

  it('refuses a status the operation does not list', async () => {
    await expect(fetchJson(`${url}/things/4`)).rejects.toThrow(
      /answered 418, which the OpenAPI document does not list for it \(it lists 200, 400/,
    );
  });

  it('picks the most specific template, whatever the case and a trailing slash', async () => {
    const checker = new OpenApiResponses(document);
    expect(checker.operationOf('GET', '/things/special')?.template).toBe('/things/special');
    expect(checker.operationOf('GET', '/things/other')?.template).toBe('/things/{id}');
    expect(await fetchJson(`${url}/THINGS/special/`)).toMatchObject({ status: 200 });
  });

  it('leaves paths and methods the document does not have alone', async () => {
    expect((await fetchJson(`${url}/elsewhere`)).status).toBe(200);
    expect((await fetchJson(`${url}/things/4`, { method: 'DELETE' })).status).toBe(418);
  });
});
