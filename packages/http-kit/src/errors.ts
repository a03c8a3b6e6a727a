import type { z } from 'zod';

/** A field-level error of the error envelope (spec part 7). */
export interface FieldError {
  /** Dot path of the field, for example `attachments.0.filename`. */
  field: string;
  message: string;
  /** The validator's issue code (`invalid_type`, `too_big`, …) or a domain code. */
  code: string;
  received?: unknown;
}

/** Options of {@link ApiError}. */
export interface ApiErrorOptions {
  errors?: FieldError[];
  suggestion?: string;
  details?: unknown;
  /** Extra response headers (for example `Retry-After`). */
  headers?: Record<string, string>;
}

/**
 * An error answered with the spec's error envelope (part 7). Throw it from any route; the
 * gateway's error handler renders it. Codes and statuses come from the API reference.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly options: ApiErrorOptions;
  constructor(status: number, code: string, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.options = options;
  }
}

/** 400 BAD_REQUEST. */
export const badRequest = (message: string, options?: ApiErrorOptions): ApiError =>
  new ApiError(400, 'BAD_REQUEST', message, options);

/** 404 with a resource code, for example `notFound('CONTACT_NOT_FOUND', 'Contact not found')`. */
export const notFound = (code: string, message: string): ApiError =>
  new ApiError(404, code, message);

/** 409 CONFLICT. */
export const conflict = (message: string, options?: ApiErrorOptions): ApiError =>
  new ApiError(409, 'CONFLICT', message, options);

/** 403 with a code, FORBIDDEN by default. */
export const forbidden = (message: string, code = 'FORBIDDEN'): ApiError =>
  new ApiError(403, code, message);

/** 422 VALIDATION_ERROR with field errors. */
export const validationError = (errors: FieldError[], message = 'Validation failed'): ApiError =>
  new ApiError(422, 'VALIDATION_ERROR', message, {
    errors,
    suggestion: 'Check the errors array for the fields to fix.',
  });

/**
 * Field errors from zod issues (`path` joined with dots; `body` for the body as a whole). The code
 * is the issue's, or for a custom issue the string `params.code` it carries, if any.
 */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => {
    const custom = issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined) : {};
    return {
      field: issue.path.length === 0 ? 'body' : issue.path.map(String).join('.'),
      message: issue.message,
      code: typeof custom?.code === 'string' ? custom.code : issue.code,
    };
  });
}

/**
 * Parses `value` with `schema`.
 * @throws ApiError 422 VALIDATION_ERROR listing every issue.
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(fieldErrors(result.error));
  return result.data;
}
