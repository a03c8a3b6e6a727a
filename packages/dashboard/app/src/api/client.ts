/**
 * The typed client of Stamp's API: `openapi-fetch` over the types generated from the platform's
 * OpenAPI document (`schema.d.ts`, made by `openapi-typescript` from `docs/openapi.json`). Calls
 * go to the page's own origin with the session cookie; inside a project, every call names it with
 * the `X-Project-Id` header (API reference, "Dashboard authentication and members").
 */
import createClient, { type Middleware } from 'openapi-fetch';

import type { components, paths } from './schema';

/** A schema of the API, by its name in the OpenAPI document. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The error envelope's field-level detail (spec part 7). */
export interface FieldError {
  field: string;
  message: string;
  code?: string;
}

/** An answer of the API in its error envelope (spec part 7), or a failed connection (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: readonly FieldError[];
  readonly suggestion: string | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    errors: readonly FieldError[] = [],
    suggestion?: string,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.errors = errors;
    this.suggestion = suggestion;
  }
}

let projectId: string | undefined;

/** Names the project of the calls that follow (undefined outside a project). */
export function setCurrentProject(id: string | undefined): void {
  projectId = id;
}

const projectHeader: Middleware = {
  onRequest({ request }) {
    if (projectId !== undefined && !request.headers.has('X-Project-Id')) {
      request.headers.set('X-Project-Id', projectId);
    }
    return request;
  },
};

/** The client; prefer {@link unwrap} around its calls. */
export const api = createClient<paths>({
  baseUrl: globalThis.location?.origin ?? '',
  credentials: 'same-origin',
});
api.use(projectHeader);

interface Envelope {
  error?: { code?: unknown; message?: unknown; errors?: unknown; suggestion?: unknown };
}

/** Turns an error body of the API into an {@link ApiError}. */
export function toApiError(status: number, body: unknown): ApiError {
  const error = (body as Envelope | undefined)?.error;
  if (error === undefined || typeof error !== 'object') {
    return new ApiError(status, 'UNEXPECTED', `The server answered ${status}`);
  }
  const errors = Array.isArray(error.errors)
    ? error.errors.filter(
        (item): item is FieldError =>
          typeof item === 'object' &&
          item !== null &&
          typeof (item as FieldError).message === 'string',
      )
    : [];
  return new ApiError(
    status,
    typeof error.code === 'string' ? error.code : 'UNEXPECTED',
    typeof error.message === 'string' ? error.message : `The server answered ${status}`,
    errors,
    typeof error.suggestion === 'string' ? error.suggestion : undefined,
  );
}

/**
 * The data of a call of {@link api}.
 * @throws ApiError for an answer in the error envelope, or status 0 when the server was not reached.
 */
export async function unwrap<Data>(
  call: Promise<{ data?: Data; error?: unknown; response: Response }>,
): Promise<Data> {
  let result: { data?: Data; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw new ApiError(
      0,
      'NETWORK_ERROR',
      'Stamp could not be reached. Check your connection and try again.',
    );
  }
  if (result.error !== undefined || !result.response.ok)
    throw toApiError(result.response.status, result.error);
  return result.data as Data;
}
