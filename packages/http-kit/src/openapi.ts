/**
 * The OpenAPI 3.1 document of the HTTP API, built from the zod schemas the route handlers
 * validate their input with (architecture brief, "Contracts"). Each service describes its routes
 * as {@link RouteDoc}s that import the very schema constants its handlers pass to `parse`, plus
 * response schemas written for the documentation; {@link openApiDocument} turns them into the
 * document with zod 4's own `z.toJSONSchema` (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */
import { COMPARISON_OPERATORS } from '@stamp/contracts';
import type { Router } from 'express';
import { z } from 'zod';

import { SESSION_COOKIE } from './session-cookie.ts';

/** HTTP methods of documented routes (lower case, as OpenAPI's path items name them). */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The HTTP methods a {@link RouteDoc} may have. */
export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Who may call a route (spec part 5; API reference, "Dashboard authentication and members"):
 * - `secret`: the project's secret key, or a member's session cookie with `X-Project-Id`;
 * - `project`: the secret key of the project the path names (`/projects/:id/…`,
 *   `/users/@me/projects/:id/…`), or a member's session cookie (the project is the path's);
 * - `user`: a session cookie only (the signed-in user's own routes);
 * - `key`: the secret key only (`/v1/*` take no session);
 * - `public-key`: the public or the secret key (`POST /v1/track`);
 * - `none`: no credentials (probes, sign-up and login, signed links in emails, provider
 *   notifications, uploaded images).
 */
export type RouteAuth = 'secret' | 'project' | 'user' | 'key' | 'public-key' | 'none';

/** One documented answer of a route. */
export interface RouteResponse {
  /** What the answer means. */
  description: string;
  /**
   * Shape of the JSON body (converted with `io: 'output'`). A 4xx or 5xx answer without one (and
   * without a `contentType`) has the error envelope of spec part 7.
   */
  schema?: z.ZodType;
  /**
   * Media type of the body, `application/json` by default when there is a schema; a non-JSON
   * body (an HTML page, an image, a raw message) names its type and has no schema.
   */
  contentType?: string;
}

/** One route of the HTTP API as the OpenAPI document describes it. */
export interface RouteDoc {
  method: HttpMethod;
  /** OpenAPI path template, for example `/contacts/{id}` (Express's `/contacts/:id`). */
  path: string;
  /** One line. */
  summary: string;
  /** Longer text (CommonMark), optional. */
  description?: string;
  /** Groups of the reference page; the service's name when absent. */
  tags?: string[];
  auth: RouteAuth;
  /**
   * Path parameters: the handler's schema of `req.params` (an object). Parameters of the path
   * template that it does not name are documented as strings.
   */
  params?: z.ZodType;
  /** Query parameters: the handler's schema of `req.query` (an object). */
  query?: z.ZodType;
  /** Request body: the handler's schema of `req.body` (converted with `io: 'input'`). */
  body?: z.ZodType;
  /** Media type of the body, `application/json` by default (multipart for uploads). */
  bodyContentType?: string;
  /** Whether a body must be sent; true by default when there is one. */
  bodyRequired?: boolean;
  /**
   * Answers by HTTP status. The answers every route of its kind may give (401 without
   * credentials, 429 over the rate limit, 422 for invalid input, 500, …) are added by
   * {@link openApiDocument}; list the others here.
   */
  responses: Record<number, RouteResponse>;
  /** Stable name of the operation; derived from the method and path when absent. */
  operationId?: string;
  deprecated?: boolean;
}

/** The `info` object of the document and its servers. */
export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
  /** Base URLs the API answers at (for example `http://localhost:3000`). */
  servers?: { url: string; description?: string }[];
  /** Descriptions of the tags, by tag name, in the order the reference page shows them. */
  tags?: { name: string; description?: string }[];
}

/** A JSON value of the generated document. */
export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object of the generated document. */
export type JsonObject = { [key: string]: JsonValue };

/** The OpenAPI 3.1 document (a plain JSON object). */
export interface OpenApiDocument extends JsonObject {
  openapi: string;
  info: JsonObject;
  paths: { [path: string]: { [method: string]: JsonObject } };
  components: JsonObject & {
    schemas: { [name: string]: JsonObject };
    responses: { [name: string]: JsonObject };
  };
}

/** A field-level error of the envelope (spec part 7; API reference, "Errors"). */
const fieldErrorSchema = z.object({
  field: z.string().describe('Dot path of the field, for example `attachments.0.filename`'),
  message: z.string(),
  code: z.string().describe("The validator's issue code (`invalid_type`, `too_big`, …)"),
  received: z.unknown().optional(),
});

/**
 * The error envelope of every 4xx and 5xx answer (spec part 7; `sendError` in envelope.ts).
 * Answers on `/v1/*` also carry the older top-level `code` (the HTTP status), `message` and
 * `time` (epoch ms) that older SDKs read.
 */
export const errorEnvelopeSchema = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string().describe('Machine-readable code, for example VALIDATION_ERROR'),
    message: z.string(),
    statusCode: z.int().describe('The HTTP status'),
    requestId: z.string().describe('The request id, also in the X-Request-ID header'),
    errors: z.array(fieldErrorSchema).optional(),
    details: z.unknown().optional(),
    suggestion: z.string().optional(),
  }),
  timestamp: z.iso.datetime(),
  code: z.int().optional().describe('Only on /v1/*: the HTTP status'),
  message: z.string().optional().describe('Only on /v1/*: the error message'),
  time: z.int().optional().describe('Only on /v1/*: epoch milliseconds'),
});

/** Name of the error envelope among the document's component schemas. */
export const ERROR_COMPONENT = 'Error';

const SECURITY: Record<RouteAuth, JsonObject[]> = {
  secret: [{ apiKey: [] }, { session: [], projectId: [] }],
  project: [{ apiKey: [] }, { session: [] }],
  user: [{ session: [] }],
  key: [{ apiKey: [] }],
  'public-key': [{ apiKey: [] }],
  none: [],
};

const SECURITY_SCHEMES: JsonObject = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      "A project's secret key (`sk_…`), which may call every route of its project, or its " +
      'public key (`pk_…`), which may only call `POST /v1/track` (spec part 5).',
  },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description:
      'The session cookie set by `POST /auth/login` and `POST /auth/signup`. A state-changing ' +
      "request must come from the public URL's origin (`Origin` header), else 403 FORBIDDEN.",
  },
  projectId: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Project-Id',
    description: 'With a session cookie: the project a request is about (400 without it).',
  },
};

/** `:id` segments of an Express path as OpenAPI's `{id}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The names of the `{parameters}` of an OpenAPI path template, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}

/** `get /contacts/{id}` → `getContactsById` (a stable operation id). */
export function defaultOperationId(method: HttpMethod, path: string): string {
  const words = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      const parameter = /^\{(.+)\}$/.exec(segment)?.[1];
      return parameter === undefined ? segment : `by-${parameter}`;
    })
    .join('-')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
  return method + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

/** The routes an Express router (and the routers it mounts) answers: methods and paths. */
export interface RouterRoute {
  method: HttpMethod;
  /** OpenAPI path template. */
  path: string;
}

interface ExpressLayer {
  route?: { path: unknown; methods: Record<string, boolean | undefined> };
  handle?: { stack?: unknown };
  rawPath?: unknown;
}

/**
 * Every route of `router` (Express 5: `router.stack` layers, a route layer's `route.path` and
 * `route.methods`, a mounted router's `handle.stack` under the layer's `rawPath`), as OpenAPI
 * templates. Routes with several paths (an array) give one entry per path; regular-expression
 * paths are skipped.
 */
export function listRoutes(router: Router, prefix = ''): RouterRoute[] {
  const found: RouterRoute[] = [];
  for (const layer of router.stack as ExpressLayer[]) {
    if (layer.route !== undefined) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const path of paths) {
        if (typeof path !== 'string') continue;
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (on !== true || !(HTTP_METHODS as readonly string[]).includes(method)) continue;
          found.push({ method: method as HttpMethod, path: openApiPath(prefix + path) });
        }
      }
    } else if (Array.isArray(layer.handle?.stack)) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      found.push(...listRoutes(layer.handle as unknown as Router, prefix + mount));
    }
  }
  return found;
}

/** A JSON Schema made by zod, which may carry its own `$defs` (recursive schemas). */
type JsonSchema = JsonObject;

/** Collects the schemas zod puts under `$defs` as component schemas of the document. */
class Components {
  readonly schemas: { [name: string]: JsonObject } = {};
  private readonly lifted = new Map<string, Map<string, string>>();

  /**
   * `schema` (made by `z.toJSONSchema`) without `$schema`, its `$defs` moved to the components
   * and their references rewritten. A definition with an `id` (`.meta({id})`) keeps it as its
   * name (with `Input` appended on the request side, whose objects accept unknown keys); the
   * definitions zod names itself (recursive schemas) are named `<owner><name>`, and shared when
   * the same definitions were seen before.
   */
  place(schema: JsonSchema, owner: string, io: 'input' | 'output'): JsonObject {
    const rest: JsonObject = { ...schema };
    const $defs = rest.$defs;
    delete rest.$schema;
    delete rest.$defs;
    if ($defs === undefined || $defs === null || typeof $defs !== 'object') return rest;
    const definitions = $defs as JsonObject;
    const key = `${io}:${JSON.stringify(definitions)}`;
    let names = this.lifted.get(key);
    if (names === undefined) {
      names = new Map();
      for (const name of Object.keys(definitions)) {
        const plain = name.replace(/[^A-Za-z0-9]/g, '');
        const capital = `${plain.charAt(0).toUpperCase()}${plain.slice(1)}`;
        const named = name.startsWith('__schema')
          ? `${owner}${capital}`
          : `${capital}${io === 'input' ? 'Input' : ''}`;
        names.set(name, named);
      }
      this.lifted.set(key, names);
      for (const [name, definition] of Object.entries(definitions)) {
        this.schemas[names.get(name) ?? name] = rewriteRefs(definition, names) as JsonObject;
      }
    }
    return rewriteRefs(rest, names) as JsonObject;
  }
}

/** `value` with every `$ref: '#/$defs/<name>'` pointing at `#/components/schemas/<new name>`. */
function rewriteRefs(value: JsonValue, names: Map<string, string>): JsonValue {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, names));
  if (value === null || typeof value !== 'object') return value;
  const result: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/')) {
      const target = names.get(item.slice('#/$defs/'.length)) ?? item;
      result[key] = `#/components/schemas/${target}`;
    } else {
      result[key] = rewriteRefs(item, names);
    }
  }
  return result;
}

/** JSON Schema 2020-12 of `schema` for its input (requests) or output (responses) side. */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as JsonSchema;
}

/**
 * The error answers routes of one kind share, by their name among the document's component
 * responses: the status and what it means.
 */
const STANDARD_ERRORS = {
  MalformedBody: [400, 'Malformed body (not JSON, nested too deep), or a malformed request'],
  MalformedRequest: [400, 'Malformed request (for example a path that is not valid UTF-8)'],
  MalformedOrNoProject: [400, 'Malformed request, or a session request without X-Project-Id'],
  BodyTimeout: [408, 'The body did not arrive in time (REQUEST_TIMEOUT)'],
  BodyTooLarge: [413, 'The body is too large (PAYLOAD_TOO_LARGE)'],
  BadCredentials: [401, 'Missing or invalid credentials'],
  NotSignedIn: [401, 'Not signed in, or called with an API key'],
  BadApiKey: [401, 'Missing or invalid API key, or a public key on a secret-key route'],
  CrossSite: [403, 'Cross-site session request (FORBIDDEN)'],
  CrossSiteOrRole: [403, 'Cross-site session request, or not allowed for this role or key'],
  NotFoundOrNotMember: [404, 'Resource not found, or a project the user is not a member of'],
  ProjectNotFound: [404, 'Project not found, or not one of the caller'],
  RateLimited: [429, 'Rate limit exceeded (RATE_LIMIT_EXCEEDED, with Retry-After)'],
  ValidationFailed: [422, 'Validation failed (VALIDATION_ERROR with the errors array)'],
  Unexpected: [500, 'Unexpected error (INTERNAL_SERVER_ERROR)'],
  ServiceUnavailable: [
    503,
    'The service owning the route did not answer (SERVICE_UNAVAILABLE, distributed mode)',
  ],
} as const satisfies Record<string, readonly [number, string]>;

/** The name of a shared error answer. */
type StandardError = keyof typeof STANDARD_ERRORS;

/** The shared answers every route of its kind may give, by status. */
function standardErrors(route: RouteDoc): Record<number, StandardError> {
  const errors: Record<number, StandardError> = {};
  const hasBody = route.body !== undefined;
  const hasInput =
    hasBody ||
    route.query !== undefined ||
    route.params !== undefined ||
    pathParameterNames(route.path).length > 0;
  if (hasBody) {
    errors[400] = 'MalformedBody';
    errors[408] = 'BodyTimeout';
    errors[413] = 'BodyTooLarge';
  } else if (hasInput) {
    errors[400] = 'MalformedRequest';
  }
  switch (route.auth) {
    case 'secret':
      errors[400] = 'MalformedOrNoProject';
      errors[401] = 'BadCredentials';
      errors[403] = 'CrossSite';
      errors[404] = 'NotFoundOrNotMember';
      break;
    case 'project':
      errors[401] = 'BadCredentials';
      errors[403] = 'CrossSiteOrRole';
      errors[404] = 'ProjectNotFound';
      break;
    case 'user':
      errors[401] = 'NotSignedIn';
      errors[403] = 'CrossSite';
      break;
    case 'key':
    case 'public-key':
      errors[401] = 'BadApiKey';
      break;
    case 'none':
      break;
  }
  if (route.auth !== 'none') {
    errors[429] = 'RateLimited';
    errors[503] = 'ServiceUnavailable';
  }
  if (hasInput) errors[422] = 'ValidationFailed';
  errors[500] = 'Unexpected';
  return errors;
}

/** An error answer: `description`, the error envelope as its JSON body. */
function errorResponse(description: string): JsonObject {
  return {
    description,
    content: {
      'application/json': { schema: { $ref: `#/components/schemas/${ERROR_COMPONENT}` } },
    },
  };
}

/** The OpenAPI parameters (path and query) of a route. */
function parametersOf(route: RouteDoc, components: Components, operationId: string): JsonValue[] {
  const parameters: JsonValue[] = [];
  const named = new Set<string>();
  const add = (schema: z.ZodType, where: 'path' | 'query'): void => {
    const json = components.place(jsonSchemaOf(schema, 'input'), `${operationId}${where}`, 'input');
    const properties = (json.properties ?? {}) as JsonObject;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      const { description, ...propertySchema } = property as JsonObject;
      named.add(`${where}:${name}`);
      parameters.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: propertySchema,
      });
    }
  };
  if (route.params !== undefined) add(route.params, 'path');
  for (const name of pathParameterNames(route.path)) {
    if (!named.has(`path:${name}`)) {
      parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  if (route.query !== undefined) add(route.query, 'query');
  return parameters;
}

/** The OpenAPI operation of one route. */
function operationOf(route: RouteDoc, service: string, components: Components): JsonObject {
  const operationId = route.operationId ?? defaultOperationId(route.method, route.path);
  const responses: JsonObject = {};
  for (const [status, name] of Object.entries(standardErrors(route))) {
    responses[status] = { $ref: `#/components/responses/${name}` };
  }
  for (const [status, response] of Object.entries(route.responses).sort(
    ([a], [b]) => Number(a) - Number(b),
  )) {
    if (Number(status) >= 400 && response.contentType !== undefined) {
      // An error answered as a page (the subscription pages) rather than the envelope.
      responses[status] = {
        description: response.description,
        content: { [response.contentType]: {} },
      };
    } else if (Number(status) >= 400 && response.schema === undefined) {
      responses[status] = errorResponse(response.description);
    } else if (response.schema !== undefined) {
      const schema = components.place(
        jsonSchemaOf(response.schema, 'output'),
        `${operationId}${status}`,
        'output',
      );
      responses[status] = {
        description: response.description,
        content: { [response.contentType ?? 'application/json']: { schema } },
      };
    } else if (response.contentType !== undefined) {
      responses[status] = {
        description: response.description,
        content: { [response.contentType]: {} },
      };
    } else {
      responses[status] = { description: response.description };
    }
  }
  const parameters = parametersOf(route, components, operationId);
  const operation: JsonObject = {
    operationId,
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    tags: route.tags ?? [service],
    security: SECURITY[route.auth],
    ...(parameters.length === 0 ? {} : { parameters }),
  };
  if (route.body !== undefined) {
    const schema = components.place(
      jsonSchemaOf(route.body, 'input'),
      `${operationId}Body`,
      'input',
    );
    operation.requestBody = {
      required: route.bodyRequired ?? true,
      content: { [route.bodyContentType ?? 'application/json']: { schema } },
    };
  }
  operation.responses = responses;
  if (route.deprecated === true) operation.deprecated = true;
  return operation;
}

/** A service's documented routes: its name (the default tag) and its {@link RouteDoc}s. */
export interface ServiceRoutes {
  service: string;
  routes: readonly RouteDoc[];
}

/**
 * The OpenAPI 3.1 document of `services`' routes: request parameters and bodies from the
 * handlers' zod schemas (`io: 'input'`), 2xx bodies from the response schemas (`io: 'output'`),
 * the bearer API key, the session cookie and `X-Project-Id` as security schemes, and the error
 * envelope (spec part 7) as the component `Error` that every 4xx and 5xx answer uses. Paths and
 * operations are sorted, so the document is stable.
 * @throws Error when two routes document the same method and path, or an operation id twice.
 */
export function openApiDocument(
  services: readonly ServiceRoutes[],
  info: OpenApiInfo,
): OpenApiDocument {
  const components = new Components();
  const paths: OpenApiDocument['paths'] = {};
  const operationIds = new Set<string>();
  const routes = services.flatMap(({ service, routes: list }) =>
    list.map((route) => ({ service, route })),
  );
  routes.sort(
    (a, b) =>
      a.route.path.localeCompare(b.route.path) ||
      HTTP_METHODS.indexOf(a.route.method) - HTTP_METHODS.indexOf(b.route.method),
  );
  for (const { service, route } of routes) {
    const item = (paths[route.path] ??= {});
    if (item[route.method] !== undefined) {
      throw new Error(`${route.method.toUpperCase()} ${route.path} is documented twice`);
    }
    const operation = operationOf(route, service, components);
    const id = route.operationId ?? defaultOperationId(route.method, route.path);
    if (operationIds.has(id)) throw new Error(`operation id ${id} is used twice`);
    operationIds.add(id);
    item[route.method] = operation;
  }
  const schemas: OpenApiDocument['components']['schemas'] = {
    [ERROR_COMPONENT]: components.place(
      jsonSchemaOf(errorEnvelopeSchema, 'output'),
      'Error',
      'output',
    ),
  };
  for (const name of Object.keys(components.schemas).sort()) {
    const schema = components.schemas[name];
    if (schema !== undefined) schemas[name] = schema;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      ...(info.description === undefined ? {} : { description: info.description }),
    },
    ...(info.servers === undefined ? {} : { servers: info.servers }),
    ...(info.tags === undefined ? {} : { tags: info.tags }),
    paths,
    components: {
      schemas,
      responses: Object.fromEntries(
        Object.entries(STANDARD_ERRORS).map(([name, [, description]]) => [
          name,
          errorResponse(description),
        ]),
      ),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** An ISO 8601 time with a zone (`Date#toISOString()`), as answers carry them. */
export const isoTimestamp = z.iso
  .datetime({ offset: true })
  .meta({ id: 'Timestamp', description: 'ISO 8601 date and time' });

/**
 * The answer of a cursor list (spec part 4 conventions; `CursorPage` of pagination.ts): `data` of `item`,
 * the `cursor` of the last item (empty for an empty page), `hasMore`, and `total` (0 after the
 * first page).
 */
export function cursorPageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    cursor: z.string(),
    hasMore: z.boolean(),
    total: z.int().min(0),
  });
}

/** A resource named in a usage answer: `{id, name}`. */
export const namedReference = z.object({ id: z.string(), name: z.string() });

/** The answer of a DELETE that names what it deleted: `{success: true, id}`. */
export const deletedSchema = z.object({ success: z.literal(true), id: z.string() });

/** A test of a contact in the filter language (API reference, "Filter language"). */
const filterSchema = z.object({
  field: z
    .string()
    .describe(
      '`email`, `subscribed`, `createdAt`, `updatedAt`, `data.<key>`, `event.<name>`, ' +
        '`email.<sent|delivery|open|click|bounce|complaint>` or `segment.<id>`',
    ),
  operator: z.enum([
    ...COMPARISON_OPERATORS,
    'within',
    'olderThan',
    'triggered',
    'triggeredWithin',
    'triggeredOlderThan',
    'notTriggered',
    'notTriggeredWithin',
    'memberOfSegment',
    'notMemberOfSegment',
  ]),
  value: z.union([z.string(), z.number(), z.boolean()]).optional(),
  unit: z.enum(['minutes', 'hours', 'days']).optional(),
});

/** A condition of the filter language: groups joined by `logic`, each a list of filters. */
interface FilterConditionShape {
  logic: 'AND' | 'OR';
  groups: { filters: z.infer<typeof filterSchema>[]; conditions?: FilterConditionShape }[];
}

/**
 * The filter language of segment conditions and campaign audience filters (API reference,
 * "Filter language"), for the documentation: `{logic, groups: [{filters, conditions?}]}`, the
 * filters of a group ANDed, `logic` joining the groups, `conditions` nesting (5 levels at most).
 * The routes validate conditions with their own parser, which also checks fields and operators.
 */
export const filterConditionSchema: z.ZodType<FilterConditionShape> = z
  .object({
    logic: z.enum(['AND', 'OR']),
    groups: z.array(
      z.object({
        filters: z.array(filterSchema),
        get conditions(): z.ZodOptional<z.ZodType<FilterConditionShape>> {
          return filterConditionSchema.optional();
        },
      }),
    ),
  })
  .meta({ id: 'FilterCondition' });
