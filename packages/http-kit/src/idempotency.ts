import { createHash, randomUUID } from 'node:crypto';

import type { Caller } from '@stamp/contracts';
import { DuplicateKeyError, type ViewDocument, type ViewStore } from '@stamp/platform';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

import { ApiError } from './errors.ts';
import { normalisePath } from './paths.ts';

/** Name of the view collection holding idempotency records. */
export const IDEMPOTENCY_COLLECTION = 'idempotency';

/** A stored idempotency record (`_id` = `projectId + ':' + key`); dates are ISO 8601 strings. */
export interface IdempotencyRecord extends ViewDocument {
  projectId: string;
  key: string;
  /** SHA-256 (hex) of method, path and canonical JSON body. */
  hash: string;
  status: 'in_flight' | 'done';
  /** Identifies the claim, so a replaced record is never completed by an older request. */
  token: string;
  createdAt: string;
  expiresAt: string;
  /** The first response, once `done`. */
  response?: { status: number; body: unknown };
}

/** Options of {@link idempotency}. */
export interface IdempotencyOptions {
  views: ViewStore;
  /** POST paths the header applies to; `/v1/send`, `/v1/track` and `/events/track` by default. */
  paths?: readonly string[];
  /** Lifetime of a record in ms; 24 h by default. */
  ttlMs?: number;
  /**
   * After this many ms an `in_flight` record is taken as abandoned (its process died) and may be
   * claimed again; 5 minutes by default.
   */
  inFlightTimeoutMs?: number;
  /** Clock, for tests. */
  now?: () => Date;
}

const PRINTABLE = /^[\x20-\x7e]{1,255}$/;
const MAX_CLAIM_ATTEMPTS = 5;

/** JSON with object keys sorted at every level, so equal bodies hash equally. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

/** SHA-256 (hex) of `method`, `path` and the canonical JSON of `body`. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

/**
 * The `Idempotency-Key` middleware (architecture brief, "Idempotent API"; API reference
 * "Errors"). Mount after authentication. For POST on the configured paths with the header:
 * - the key must be 1..255 printable ASCII characters, else 400 BAD_REQUEST;
 * - the first request claims `projectId:key` (insertOne; a DuplicateKeyError means it exists)
 *   and runs; its JSON response (captured by wrapping `res.json`) is stored for 24 h, except
 *   responses with status ≥ 500, whose record is deleted so a retry runs again;
 * - a repeat with the same method, path and body replays the stored status and body with the
 *   header `Idempotent-Replayed: true`; with a different body → 422 IDEMPOTENCY_KEY_REUSED;
 *   while the first is still running → 409 IDEMPOTENCY_KEY_IN_USE;
 * - expired records (and abandoned in-flight ones) are replaced.
 * Requests without the header, or on other routes, pass through untouched.
 */
export function idempotency(options: IdempotencyOptions): RequestHandler {
  const paths = new Set(
    (options.paths ?? ['/v1/send', '/v1/track', '/events/track']).map(normalisePath),
  );
  const ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
  const inFlightTimeoutMs = options.inFlightTimeoutMs ?? 5 * 60 * 1000;
  const now = options.now ?? (() => new Date());
  const records = options.views.collection<IdempotencyRecord>(IDEMPOTENCY_COLLECTION);
  // Expired records are removed at most once a minute, by the request that comes by then.
  let prunedAt = 0;
  const prune = (at: Date): void => {
    if (at.getTime() - prunedAt < 60_000) return;
    prunedAt = at.getTime();
    void records.deleteMany({ expiresAt: { $lte: at.toISOString() } }).catch(() => undefined);
  };

  /** Claims the key; returns the claimed record, or the live record that holds it. */
  async function claim(
    record: IdempotencyRecord,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt += 1) {
      try {
        await records.insertOne(record);
        return { claimed: true };
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
      }
      const existing = await records.findOne({ _id: record._id });
      if (existing === null) continue; // deleted meanwhile: claim again
      const at = now().getTime();
      const expired = Date.parse(existing.expiresAt) <= at;
      const abandoned =
        existing.status === 'in_flight' && Date.parse(existing.createdAt) + inFlightTimeoutMs <= at;
      if (!expired && !abandoned) return { claimed: false, existing };
      await records.deleteOne({ _id: existing._id, token: existing.token });
    }
    throw new ApiError(409, 'IDEMPOTENCY_KEY_IN_USE', 'The idempotency key is in use', {
      suggestion: 'Retry after the request holding this key has finished.',
    });
  }

  return async (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST' || !paths.has(normalisePath(req.path))) {
      next();
      return;
    }
    const key = req.get('idempotency-key');
    if (key === undefined) {
      next();
      return;
    }
    if (!PRINTABLE.test(key)) {
      throw new ApiError(
        400,
        'BAD_REQUEST',
        'Idempotency-Key must be 1 to 255 printable ASCII characters',
        { suggestion: 'Use a UUID as the Idempotency-Key.' },
      );
    }
    const caller = (res.locals as { caller?: Caller }).caller;
    if (caller === undefined) {
      throw new ApiError(401, 'MISSING_AUTH', 'Authentication required');
    }
    const hash = requestHash(req.method, normalisePath(req.path), req.body);
    const created = now();
    prune(created);
    const record: IdempotencyRecord = {
      _id: `${caller.projectId}:${key}`,
      projectId: caller.projectId,
      key,
      hash,
      status: 'in_flight',
      token: randomUUID(),
      createdAt: created.toISOString(),
      expiresAt: new Date(created.getTime() + ttlMs).toISOString(),
    };
    const outcome = await claim(record);
    if (!outcome.claimed) {
      const { existing } = outcome;
      if (existing.hash !== hash) {
        throw new ApiError(
          422,
          'IDEMPOTENCY_KEY_REUSED',
          'The idempotency key was already used with a different request body',
          { suggestion: 'Use a new Idempotency-Key for a different request.' },
        );
      }
      if (existing.status === 'in_flight' || existing.response === undefined) {
        throw new ApiError(
          409,
          'IDEMPOTENCY_KEY_IN_USE',
          'A request with this idempotency key is still in progress',
          { suggestion: 'Retry after the first request has finished.' },
        );
      }
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(existing.response.status).json(existing.response.body);
      return;
    }

    // Store the response before it is sent, so a retry right after it sees `done`.
    const send = res.json.bind(res);
    let captured = false;
    res.json = (body: unknown) => {
      if (captured) return send(body);
      captured = true;
      const status = res.statusCode;
      const finish =
        status >= 500
          ? records.deleteOne({ _id: record._id, token: record.token })
          : records.updateOne(
              { _id: record._id, token: record.token },
              {
                $set: {
                  status: 'done',
                  response: {
                    status,
                    body: body === undefined ? null : (JSON.parse(JSON.stringify(body)) as unknown),
                  },
                },
              },
            );
      finish
        .then(() => options.views.flush())
        .catch(() => records.deleteOne({ _id: record._id, token: record.token }))
        .catch(() => undefined)
        .then(() => {
          send(body);
        })
        .catch((error: unknown) => {
          res.destroy(error instanceof Error ? error : new Error(String(error)));
        });
      return res;
    };
    // A response sent without res.json (res.send, res.end) is not replayable: free the key.
    res.on('close', () => {
      if (!captured && res.writableFinished) {
        void records.deleteOne({ _id: record._id, token: record.token }).catch(() => undefined);
      }
    });
    next();
  };
}
