/**
 * Checks the answers HTTP tests receive against the OpenAPI document of the API
 * (`docs/openapi.json`): the operation is found by method and path template; a status the
 * operation does not document, or a JSON body that does not match the documented schema (JSON
 * Schema 2020-12, compiled with ajv and ajv-formats), is an error. Paths the document does not
 * have (the tests of unknown routes) and methods it does not document on a path are left alone.
 */
import { readFileSync } from 'node:fs';

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** One answer received by a test. */
export interface ObservedResponse {
  method: string;
  /** The full URL requested. */
  url: string;
  status: number;
  /** The `Content-Type` of the answer; null without one. */
  contentType: string | null;
  /** The parsed JSON body, the text when it is not JSON, undefined when empty. */
  body: unknown;
}

/** A JSON object of the document. */
type JsonObject = Record<string, unknown>;

/** An operation of the document and how to recognise its paths. */
interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** Per segment: true when literal (a literal outranks a parameter at the same place). */
  literals: boolean[];
  responses: JsonObject;
}

const DOCUMENT_ID = 'openapi.json';

/** `~` and `/` escaped for a JSON pointer segment (RFC 6901). */
const pointerSegment = (text: string): string => text.replace(/~/g, '~0').replace(/\//g, '~1');

/** Validates answers against one OpenAPI 3.1 document. */
export class OpenApiResponses {
  private readonly document: JsonObject;
  private readonly operations: Operation[];
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  /** @param document the parsed OpenAPI 3.1 document. */
  constructor(document: JsonObject) {
    this.document = document;
    this.operations = [];
    const paths = (document.paths ?? {}) as Record<string, Record<string, JsonObject>>;
    for (const [template, item] of Object.entries(paths)) {
      const segments = template.split('/').filter((segment) => segment !== '');
      const source = segments
        .map((segment) =>
          /^\{[^}]+\}$/.test(segment)
            ? '/[^/]+'
            : `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
        )
        .join('');
      const pattern = new RegExp(`^${source === '' ? '/' : source}/?$`, 'i');
      const literals = segments.map((segment) => !/^\{[^}]+\}$/.test(segment));
      for (const [method, operation] of Object.entries(item)) {
        const responses = (operation.responses ?? {}) as JsonObject;
        this.operations.push({ method, template, pattern, literals, responses });
      }
    }
    this.ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    addFormats.default(this.ajv);
    this.ajv.addSchema(document, DOCUMENT_ID);
  }

  /** Reads the document from `path` (JSON). */
  static fromFile(path: string): OpenApiResponses {
    return new OpenApiResponses(JSON.parse(readFileSync(path, 'utf8')) as JsonObject);
  }

  /**
   * The documented operation answering `method` on `pathname`: the most specific template
   * (literal segments before parameters, from the left), or undefined.
   */
  operationOf(method: string, pathname: string): Operation | undefined {
    const candidates = this.operations.filter(
      (operation) => operation.method === method.toLowerCase() && operation.pattern.test(pathname),
    );
    candidates.sort((a, b) => {
      for (let i = 0; i < Math.min(a.literals.length, b.literals.length); i++) {
        if (a.literals[i] !== b.literals[i]) return a.literals[i] === true ? -1 : 1;
      }
      return 0;
    });
    return candidates[0];
  }

  /**
   * Checks one answer.
   * @throws Error naming the operation when its status is not documented for it, or when its
   *   JSON body does not match the documented schema.
   */
  check(observed: ObservedResponse): void {
    const pathname = new URL(observed.url).pathname;
    const operation = this.operationOf(observed.method, pathname);
    if (operation === undefined) return;
    const name = `${observed.method.toUpperCase()} ${operation.template} (${pathname})`;
    const status = String(observed.status);
    const documented = operation.responses[status];
    if (documented === undefined) {
      throw new Error(
        `${name} answered ${status}, which the OpenAPI document does not list for it ` +
          `(it lists ${Object.keys(operation.responses).join(', ')}): ${preview(observed.body)}`,
      );
    }
    const response = this.resolved(documented as JsonObject);
    const content = (response.content ?? {}) as Record<string, JsonObject | undefined>;
    const json = content['application/json'];
    const isJson = observed.contentType?.toLowerCase().includes('json') === true;
    if (json?.schema === undefined || !isJson || observed.body === undefined) return;
    const validate = this.validator(operation, status, documented as JsonObject);
    if (!validate(observed.body)) {
      const problems = (validate.errors ?? [])
        .slice(0, 10)
        .map(
          (error) =>
            `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
        )
        .join('; ');
      throw new Error(
        `${name} answered ${status} with a body the OpenAPI document does not describe: ` +
          `${problems}. Body: ${preview(observed.body)}`,
      );
    }
  }

  /** A response object, its `$ref` to `#/components/responses/<name>` followed. */
  private resolved(response: JsonObject): JsonObject {
    const ref = response.$ref;
    if (typeof ref !== 'string') return response;
    const name = ref.slice('#/components/responses/'.length);
    const components = (this.document.components ?? {}) as { responses?: JsonObject };
    return (components.responses?.[name] ?? {}) as JsonObject;
  }

  /** The compiled schema of the JSON body of `operation`'s answer `status`. */
  private validator(
    operation: Operation,
    status: string,
    documented: JsonObject,
  ): ValidateFunction {
    const key = `${operation.method} ${operation.template} ${status}`;
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      const ref = documented.$ref;
      const location =
        typeof ref === 'string'
          ? ref
          : `#/paths/${pointerSegment(operation.template)}/${operation.method}/responses/${status}`;
      validate = this.ajv.compile({
        $ref: `${DOCUMENT_ID}${location}/content/application~1json/schema`,
      });
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

/** The first 500 characters of a body, for messages. */
function preview(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text === undefined ? '(empty)' : text.slice(0, 500);
}
