import { Router } from 'express';
import { z } from 'zod';

import {
  cursorPageSchema,
  defaultOperationId,
  filterConditionSchema,
  isoTimestamp,
  listRoutes,
  openApiDocument,
  openApiPath,
  pathParameterNames,
  type RouteDoc,
} from './openapi.ts';
import { cursorQuery } from './pagination.ts';

const INFO = { title: 'Test', version: '1.0.0' };

const itemSchema = z.object({ id: z.string(), createdAt: isoTimestamp });

const routes: RouteDoc[] = [
  {
    method: 'get',
    path: '/things',
    summary: 'List things',
    auth: 'secret',
    query: cursorQuery.extend({ search: z.string().max(10).optional() }),
    responses: { 200: { description: 'A page', schema: cursorPageSchema(itemSchema) } },
  },
  {
    method: 'post',
    path: '/things',
    summary: 'Create a thing',
    auth: 'secret',
    body: z.object({
      name: z.string().trim().min(1),
      kind: z.enum(['A', 'B']).default('A'),
      condition: filterConditionSchema.optional(),
    }),
    responses: {
      201: {
        description: 'Created',
        schema: z.object({ size: z.string().transform((text) => text.length) }),
      },
      409: { description: 'Exists' },
    },
  },
  {
    method: 'delete',
    path: '/things/{id}',
    summary: 'Delete a thing',
    auth: 'project',
    responses: { 204: { description: 'Deleted' } },
  },
  {
    method: 'get',
    path: '/healthz',
    summary: 'Alive',
    auth: 'none',
    tags: ['operations'],
    responses: { 200: { description: 'Alive', contentType: 'text/plain' } },
  },
  {
    method: 'post',
    path: '/v1/track',
    summary: 'Track',
    auth: 'public-key',
    body: z.object({ event: z.string() }),
    responses: { 200: { description: 'Tracked' } },
  },
];

type Operation = {
  operationId: string;
  tags: string[];
  security: unknown[];
  parameters?: { name: string; in: string; required: boolean; schema: object }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, Record<string, unknown>>;
};

describe('openApiDocument', () => {
  const document = openApiDocument([{ service: 'things', routes }], INFO);
  const operation = (path: string, method: string): Operation =>
    document.paths[path]?.[method] as unknown as Operation;

  it('is an OpenAPI 3.1 document, paths sorted', () => {
    expect(document.openapi).toBe('3.1.0');
    // Schemas are JSON Schema 2020-12, the default dialect of OpenAPI 3.1.
    expect(document.jsonSchemaDialect).toBeUndefined();
    expect(document.info).toEqual(INFO);
    expect(Object.keys(document.paths)).toEqual([
      '/healthz',
      '/things',
      '/things/{id}',
      '/v1/track',
    ]);
    expect(JSON.stringify(document)).not.toContain('"$schema"');
    expect(openApiDocument([{ service: 'things', routes: [...routes].reverse() }], INFO)).toEqual(
      document,
    );
  });

  it('takes query parameters from the input side of the handler’s schema', () => {
    const list = operation('/things', 'get');
    expect(list.operationId).toBe('getThings');
    expect(list.tags).toEqual(['things']);
    expect(list.parameters).toEqual([
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      },
      { name: 'cursor', in: 'query', required: false, schema: { type: 'string', maxLength: 4096 } },
      { name: 'search', in: 'query', required: false, schema: { type: 'string', maxLength: 10 } },
    ]);
  });

  it('documents path parameters the template names', () => {
    expect(pathParameterNames('/things/{id}/parts/{partId}')).toEqual(['id', 'partId']);
    expect(operation('/things/{id}', 'delete').parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
    ]);
  });

  it('takes bodies on their input side and answers on their output side', () => {
    const create = operation('/things', 'post');
    const body = create.requestBody?.content['application/json']?.schema;
    expect(body).toMatchObject({
      type: 'object',
      properties: { kind: { default: 'A', enum: ['A', 'B'] } },
      required: ['name'],
    });
    expect(body?.additionalProperties).toBeUndefined();
    expect(create.responses['201']).toEqual({
      description: 'Created',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { size: {} },
            required: ['size'],
            additionalProperties: false,
          },
        },
      },
    });
  });

  it('answers every error with the envelope, the shared ones by reference', () => {
    const create = operation('/things', 'post');
    expect(Object.keys(create.responses)).toEqual([
      '201',
      '400',
      '401',
      '403',
      '404',
      '408',
      '409',
      '413',
      '422',
      '429',
      '500',
      '503',
    ]);
    expect(create.responses['401']).toEqual({ $ref: '#/components/responses/BadCredentials' });
    expect(create.responses['409']).toEqual({
      description: 'Exists',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
    expect(document.components.responses.BadCredentials).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
    expect(document.components.schemas.Error).toMatchObject({
      properties: { success: { const: false }, error: { required: expect.any(Array) as unknown } },
      required: ['success', 'error', 'timestamp'],
    });
    // A route without credentials has no 401 and no rate limit; one without input no 422.
    expect(Object.keys(operation('/healthz', 'get').responses)).toEqual(['200', '500']);
    expect(operation('/healthz', 'get').responses['200']).toEqual({
      description: 'Alive',
      content: { 'text/plain': {} },
    });
  });

  it('names the credentials of each kind of route', () => {
    expect(operation('/things', 'get').security).toEqual([
      { apiKey: [] },
      { session: [], projectId: [] },
    ]);
    expect(operation('/things/{id}', 'delete').security).toEqual([{ apiKey: [] }, { session: [] }]);
    expect(operation('/v1/track', 'post').security).toEqual([{ apiKey: [] }]);
    expect(operation('/healthz', 'get').security).toEqual([]);
    expect(operation('/healthz', 'get').tags).toEqual(['operations']);
    expect(document.components.securitySchemes).toMatchObject({
      session: { in: 'cookie', name: 'stamp_session' },
      projectId: { in: 'header', name: 'X-Project-Id' },
    });
  });

  it('moves named and recursive definitions to the components', () => {
    const { schemas } = document.components;
    expect(schemas.Timestamp).toMatchObject({ type: 'string', format: 'date-time' });
    expect(JSON.stringify(operation('/things', 'get').responses['200'])).toContain(
      '"$ref":"#/components/schemas/Timestamp"',
    );
    const condition = schemas.FilterConditionInput;
    expect(JSON.stringify(condition)).toContain(
      '"$ref":"#/components/schemas/FilterConditionInput"',
    );
    expect(JSON.stringify(document)).not.toContain('#/$defs/');
  });

  it('refuses a route documented twice', () => {
    const twice = [routes[0], routes[0]].filter((route) => route !== undefined);
    expect(() => openApiDocument([{ service: 'a', routes: twice }], INFO)).toThrow(
      'GET /things is documented twice',
    );
  });
});

describe('route names', () => {
  it('turns Express paths into templates and templates into operation ids', () => {
    expect(openApiPath('/segments/:id/members/:userId')).toBe('/segments/{id}/members/{userId}');
    expect(defaultOperationId('get', '/users/@me/projects/{id}/billing-limits')).toBe(
      'getUsersMeProjectsByIdBillingLimits',
    );
    expect(defaultOperationId('post', '/v1/send')).toBe('postV1Send');
  });
});

describe('listRoutes', () => {
  it('walks routers, the routers they mount and their mount paths', () => {
    const inner = Router();
    inner.get('/parts/:partId', () => undefined);
    inner.delete('/parts/:partId', () => undefined);
    const router = Router();
    router.use((_req, _res, next) => {
      next();
    });
    router.post('/things', () => undefined);
    router.get(['/a', '/b'], () => undefined);
    router.use(inner);
    router.use('/things/:id', inner);
    expect(listRoutes(router)).toEqual([
      { method: 'post', path: '/things' },
      { method: 'get', path: '/a' },
      { method: 'get', path: '/b' },
      { method: 'get', path: '/parts/{partId}' },
      { method: 'delete', path: '/parts/{partId}' },
      { method: 'get', path: '/things/{id}/parts/{partId}' },
      { method: 'delete', path: '/things/{id}/parts/{partId}' },
    ]);
  });
});
