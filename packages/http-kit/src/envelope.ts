import { randomUUID } from 'node:crypto';

import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '@stamp/platform';

import { ApiError } from './errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The request id of a request (set by {@link requestId}). */
export function requestIdOf(res: Response): string {
  return (res.locals as { requestId?: string }).requestId ?? randomUUID();
}

/**
 * Sets the request id: the inbound `X-Request-ID` when it is a UUID, else a new UUID; echoed in
 * the `X-Request-ID` response header (API reference, "Errors").
 */
export function requestId(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const inbound = req.get('x-request-id');
    const id = inbound !== undefined && UUID.test(inbound) ? inbound.toLowerCase() : randomUUID();
    (res.locals as { requestId?: string }).requestId = id;
    res.setHeader('X-Request-ID', id);
    next();
  };
}

/**
 * Sends the error envelope of spec part 7: `{success:false, error:{code, message, statusCode,
 * requestId, errors?, details?, suggestion?}, timestamp}`; on `/v1/*` paths also the older
 * top-level `code` (HTTP status), `message` and `time` (epoch ms) that older SDKs read.
 */
export function sendError(req: Request, res: Response, error: ApiError): void {
  const now = new Date();
  const body: Record<string, unknown> = {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      statusCode: error.status,
      requestId: requestIdOf(res),
      ...(error.options.errors === undefined ? {} : { errors: error.options.errors }),
      ...(error.options.details === undefined ? {} : { details: error.options.details }),
      ...(error.options.suggestion === undefined ? {} : { suggestion: error.options.suggestion }),
    },
    timestamp: now.toISOString(),
  };
  if (req.path.startsWith('/v1/')) {
    body.code = error.status;
    body.message = error.message;
    body.time = now.getTime();
  }
  for (const [name, value] of Object.entries(error.options.headers ?? {}))
    res.setHeader(name, value);
  res.status(error.status).json(body);
}

interface HttpParserError {
  type?: string;
  status?: number;
  expose?: boolean;
}

/**
 * Maps any thrown value to an {@link ApiError}: body-parser failures to 400 / 413 / 415,
 * everything unknown to 500 INTERNAL_SERVER_ERROR with a message that leaks nothing.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const parser = error as HttpParserError;
  switch (parser.type) {
    case 'entity.parse.failed':
      return new ApiError(400, 'BAD_REQUEST', 'Malformed JSON body', {
        suggestion: 'Send a valid JSON document with Content-Type: application/json.',
      });
    case 'entity.too.large':
      return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(400, 'BAD_REQUEST', 'Unsupported body encoding or charset', {
        suggestion: 'Send the body as UTF-8 JSON.',
      });
    default:
      // Client errors of the HTTP stack (for example a path that is not valid percent-encoding).
      if (typeof parser.status === 'number' && parser.status >= 400 && parser.status < 500) {
        return new ApiError(400, 'BAD_REQUEST', 'Malformed request');
      }
      return new ApiError(500, 'INTERNAL_SERVER_ERROR', 'An unexpected error occurred', {
        suggestion: 'Retry later; quote the requestId when contacting support.',
      });
  }
}

/** The last error handler of every app: logs 5xx with the request id and renders the envelope. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) {
      logger.error({ err: error, requestId: requestIdOf(res), path: req.path }, 'request failed');
    }
    if (res.headersSent) return;
    sendError(req, res, apiError);
  };
}

/** 404 NOT_FOUND JSON for routes that do not exist. */
export function notFoundHandler(): RequestHandler {
  return (req, res) => {
    sendError(
      req,
      res,
      new ApiError(404, 'NOT_FOUND', `Route ${req.method} ${req.path} not found`),
    );
  };
}
