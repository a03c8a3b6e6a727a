/**
 * Outbound webhook calls (workflow WEBHOOK steps, webhook endpoints): one request sent with a per-attempt timeout, retried
 * with exponential backoff on network errors, timeouts and 5xx answers, and refused when the
 * target is a private, loopback, link-local or otherwise internal address (checked after DNS
 * resolution through the platform's resolver, then connected to exactly as checked, so a name
 * that rebinds between the check and the connection cannot reach an internal address).
 */
import {
  request as httpRequest,
  validateHeaderName,
  validateHeaderValue,
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type RequestOptions,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';

import { z } from 'zod';

import type { Resolver } from '../resolver/resolver.ts';

/**
 * `STAMP_ALLOW_PRIVATE_TARGETS` (API reference, "Configuration"): `true` lets workflow WEBHOOK
 * steps and webhook endpoints reach loopback, private and link-local addresses; otherwise such a
 * target, by literal address or by a name resolving to one, is refused (default `false`).
 */
export const privateTargetsEnv = {
  STAMP_ALLOW_PRIVATE_TARGETS: z.enum(['true', 'false']).default('false'),
};

/** A webhook request (a workflow WEBHOOK step's or an endpoint's delivery), already rendered (Liquid rendering happens elsewhere). */
export interface WebhookRequest {
  /** Absolute `http:` or `https:` URL; any other scheme is refused. */
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /**
   * Extra request headers (names case-insensitive; the last of names differing only by case
   * wins). `host`, `content-length`, `transfer-encoding`, the hop-by-hop headers of RFC 9110
   * §7.6.1, `user-agent` and `idempotency-key` are set by {@link callWebhook} and ignored here.
   */
  headers: Record<string, string>;
  /** Body sent as UTF-8, or `null` for none. */
  body: string | null;
}

/** Options of {@link callWebhook}. */
export interface WebhookOptions {
  /** Resolves every host name (A and AAAA); the operating system's resolver is never used. */
  resolver: Resolver;
  /**
   * When true (STAMP_ALLOW_PRIVATE_TARGETS), internal addresses may be called; when false,
   * any target with an internal address among its resolved addresses is refused.
   */
  allowPrivateTargets: boolean;
  /** Limit of one attempt, from its start to the end of the response body, ms (default 10 000). */
  timeoutMs?: number;
  /** Attempts in all, the first included (integer ≥ 1, default 3). */
  attempts?: number;
  /** Wait before the second attempt, ms, doubled before each further one (default 500). */
  backoffMs?: number;
  /** Sent as the `Idempotency-Key` header on every attempt, so the receiver can spot a repeat. */
  idempotencyKey: string;
  /** Most response-body bytes kept, the rest discarded unread (integer ≥ 0, default 65 536). */
  maxResponseBytes?: number;
}

/** The final answer of a webhook: a status below 500 (or above 599), redirects included. */
export interface WebhookResponse {
  /** HTTP status code of the last attempt. */
  status: number;
  /**
   * Response body decoded as UTF-8, cut to at most `maxResponseBytes` bytes (a character cut in
   * the middle is dropped whole).
   */
  body: string;
  /** Attempts made, the successful one included (≥ 1). */
  attempts: number;
  /** Time from the call to the end of the last response, backoff waits included, ms. */
  durationMs: number;
}

/** Details of a {@link WebhookError}. */
export interface WebhookErrorDetails {
  /** True when retrying the same request later cannot succeed. */
  permanent: boolean;
  /** HTTP status of the last attempt when it answered (a 5xx), otherwise null. */
  status: number | null;
  /** Attempts begun, the failed ones included; 0 when the request was refused before any. */
  attempts: number;
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * A webhook that did not produce a final answer. `permanent` errors (bad URL or scheme, invalid
 * header, name that does not exist or has no address, refused internal address) are thrown at
 * once without retry; transient ones (network errors, timeouts, 5xx answers, DNS failures)
 * after the last attempt.
 */
export class WebhookError extends Error {
  override readonly name = 'WebhookError';
  /** True when retrying the same request later cannot succeed. */
  readonly permanent: boolean;
  /** HTTP status of the last attempt when it answered (a 5xx), otherwise null. */
  readonly status: number | null;
  /** Attempts begun, the failed ones included; 0 when the request was refused before any. */
  readonly attempts: number;

  constructor(message: string, details: WebhookErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.permanent = details.permanent;
    this.status = details.status;
    this.attempts = details.attempts;
  }
}

const defaults = {
  timeoutMs: 10_000,
  attempts: 3,
  backoffMs: 500,
  maxResponseBytes: 64 * 1024,
} as const;

const methods: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** Headers callWebhook sets itself or that only the connection may carry (RFC 9110 §7.6.1). */
const reservedHeaders: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'user-agent',
  'idempotency-key',
]);

const userAgent = 'Stamp-Webhook/1';

/**
 * IPv4 ranges no webhook may reach unless private targets are allowed (RFC 6890 special-purpose
 * registry): "this network" with 0.0.0.0, private (RFC 1918), carrier-grade NAT (RFC 6598),
 * loopback, link-local (RFC 3927), IETF protocol assignments, benchmarking (RFC 2544),
 * multicast (RFC 5771), reserved and broadcast.
 */
const deniedV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/**
 * IPv6 ranges denied outright (RFC 4291, RFC 6890): IPv4-compatible with :: and ::1, discard-only
 * (RFC 6666), local-use NAT64 (RFC 8215), unique local (RFC 4193), site-local, link-local and
 * multicast.
 */
const deniedV6: readonly (readonly [string, number])[] = [
  ['::', 96],
  ['100::', 64],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fec0::', 10],
  ['fe80::', 10],
  ['ff00::', 8],
];

/** The four bytes of a dotted IPv4 address as two 16-bit hex groups (`10.1.2.3` → `a01:203`). */
function hexGroups(address: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = address.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

function buildDenyList(): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of deniedV4) {
    list.addSubnet(network, prefix, 'ipv4');
    // The same IPv4 range inside IPv6: mapped (RFC 4291 §2.5.5.2), well-known NAT64 prefix
    // (RFC 6052) and 6to4 (RFC 3056), all of which lead to the IPv4 address.
    list.addSubnet(`::ffff:${network}`, 96 + prefix, 'ipv6');
    list.addSubnet(`64:ff9b::${network}`, 96 + prefix, 'ipv6');
    list.addSubnet(`2002:${hexGroups(network)}::`, 16 + prefix, 'ipv6');
  }
  for (const [network, prefix] of deniedV6) list.addSubnet(network, prefix, 'ipv6');
  return list;
}

const denyList = buildDenyList();

/**
 * True when `address` is not a public unicast IPv4 or IPv6 literal: loopback, private, link-local,
 * carrier-grade NAT, multicast, reserved (the ranges of RFC 6890, their IPv4-mapped, NAT64 and
 * 6to4 forms included), or not an IP literal at all.
 */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return denyList.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A failure of one attempt that no retry can fix. */
class Refusal extends Error {}

/** A failed attempt that may succeed when tried again; `status` when the server answered 5xx. */
class Retryable extends Error {
  readonly status: number | null;

  constructor(message: string, status: number | null, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.status = status;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The host of `url` without IPv6 brackets and without a trailing dot. */
function hostOf(url: URL): string {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/**
 * Addresses of `host`: the host itself when an IP literal, loopback for `localhost` names
 * (RFC 6761 §6.3), otherwise the A then AAAA records given by `resolver`.
 * @throws Refusal when the name does not exist or has no address; Retryable when the resolver
 *   failed and no address was found.
 */
async function addressesOf(host: string, resolver: Resolver): Promise<string[]> {
  if (isIP(host) !== 0) return [host];
  const lower = host.toLowerCase();
  if (lower === 'localhost' || lower.endsWith('.localhost')) return ['127.0.0.1', '::1'];
  const answers = await Promise.all([resolver.a(host), resolver.aaaa(host)]).catch(
    (error: unknown) => {
      throw new Retryable(`DNS lookup of ${host} failed: ${messageOf(error)}`, null, error);
    },
  );
  const addresses = answers
    .filter((answer) => answer.status === 'ok')
    .flatMap((answer) => answer.records)
    .filter((record) => isIP(record) !== 0);
  if (addresses.length > 0) return addresses;
  if (answers.some((answer) => answer.status === 'error')) {
    throw new Retryable(`DNS lookup of ${host} failed`, null);
  }
  const nxdomain = answers.some((answer) => answer.status === 'nxdomain');
  throw new Refusal(nxdomain ? `${host} does not exist (NXDOMAIN)` : `${host} has no address`);
}

/**
 * A `lookup` for node's sockets that answers only the addresses already checked, so the
 * connection goes where the check looked and the name is never resolved a second time.
 */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  return (hostname, options, callback) => {
    const wanted =
      options.family === 4 || options.family === 'IPv4'
        ? 4
        : options.family === 6 || options.family === 'IPv6'
          ? 6
          : 0;
    const candidates = addresses
      .map((address) => ({ address, family: isIP(address) }))
      .filter(({ family }) => wanted === 0 || family === wanted);
    const [first] = candidates;
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error(`no IPv${wanted} address for ${hostname}`);
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
    } else if (options.all === true) {
      callback(null, candidates);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

/** Request headers: the caller's, then the default content type and ours. */
function headersOf(request: WebhookRequest, idempotencyKey: string): OutgoingHttpHeaders {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    const lower = name.toLowerCase();
    if (!reservedHeaders.has(lower)) headers[lower] = value;
  }
  if (request.body !== null) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(request.body, 'utf8'));
  }
  headers['user-agent'] = userAgent;
  headers['idempotency-key'] = idempotencyKey;
  return headers;
}

interface Target {
  url: URL;
  host: string;
  addresses: readonly string[];
}

interface Settings {
  timeoutMs: number;
  maxResponseBytes: number;
}

/**
 * One attempt: sends the request to the checked addresses and reads at most
 * `maxResponseBytes` of the answer.
 * @throws Error on network errors and when the attempt outlasts `timeoutMs`.
 */
function send(
  target: Target,
  request: WebhookRequest,
  headers: OutgoingHttpHeaders,
  settings: Settings,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      finish();
    };
    const { url } = target;
    const options: RequestOptions = {
      protocol: url.protocol,
      hostname: target.host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers,
      // The request's own connection, not a pooled one, and never a proxy taken from the
      // environment: it goes to the checked address and nowhere else.
      agent: false,
      lookup: pinnedLookup(target.addresses),
    };
    if (url.username !== '' || url.password !== '') {
      options.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    }
    const req: ClientRequest =
      url.protocol === 'https:' ? httpsRequest(options) : httpRequest(options);
    const timer = setTimeout(() => {
      req.destroy(new Error(`no complete answer within ${settings.timeoutMs} ms`));
    }, settings.timeoutMs);
    req.on('error', (error) => {
      settle(() => {
        reject(error);
      });
    });
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const decoder = new StringDecoder('utf8');
      let body = '';
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        const room = settings.maxResponseBytes - kept;
        if (chunk.length > room) {
          // Keeps what fits and drops the rest unread; an incomplete last character is dropped.
          body += decoder.write(chunk.subarray(0, room));
          settle(() => {
            resolve({ status, body });
          });
          res.destroy();
          return;
        }
        body += decoder.write(chunk);
        kept += chunk.length;
      });
      res.on('end', () => {
        settle(() => {
          resolve({ status, body: body + decoder.end() });
        });
      });
      res.on('error', (error) => {
        settle(() => {
          reject(error);
        });
      });
      res.on('close', () => {
        settle(() => {
          reject(new Error('connection closed before the end of the answer'));
        });
      });
    });
    req.end(request.body ?? undefined);
  });
}

function inRange(name: string, value: number, integer: boolean, min: number): number {
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new RangeError(`${name} must be ${integer ? 'an integer' : 'a number'} ≥ ${min}`);
  }
  return value;
}

/**
 * Calls a webhook. Each attempt has `timeoutMs` for its whole exchange; network errors,
 * timeouts, 5xx answers and failed DNS look-ups are retried after `backoffMs`, 2 × `backoffMs`,
 * ... until `attempts` are spent. Any other answer (2xx, 3xx — redirects are not followed — and
 * 4xx) is final and returned. The host is resolved once, through `options.resolver`, and the
 * request goes to those addresses only; unless `allowPrivateTargets`, a host with any loopback,
 * private (RFC 1918, fc00::/7), link-local, unspecified, carrier-grade NAT, multicast or
 * reserved address (IPv4-mapped, NAT64 and 6to4 forms included) is refused before any request.
 * Sends `user-agent: Stamp-Webhook/1`, `Idempotency-Key: <idempotencyKey>` and, when there is a
 * body and no content type, `content-type: application/json`.
 * @throws WebhookError `permanent` true for an invalid URL, method or header, a scheme other
 *   than http/https, a name that does not exist (NXDOMAIN) or has no address, or a refused
 *   address; `permanent` false once every attempt failed, with the last attempt's 5xx status
 *   (null when it got no answer).
 * @throws RangeError when an option is out of range or `idempotencyKey` is not a valid header
 *   value.
 */
export async function callWebhook(
  request: WebhookRequest,
  options: WebhookOptions,
): Promise<WebhookResponse> {
  const started = performance.now();
  const attempts = inRange('attempts', options.attempts ?? defaults.attempts, true, 1);
  const backoffMs = inRange('backoffMs', options.backoffMs ?? defaults.backoffMs, false, 0);
  const settings: Settings = {
    timeoutMs: inRange('timeoutMs', options.timeoutMs ?? defaults.timeoutMs, false, 1),
    maxResponseBytes: inRange(
      'maxResponseBytes',
      options.maxResponseBytes ?? defaults.maxResponseBytes,
      true,
      0,
    ),
  };
  try {
    if (options.idempotencyKey === '') throw new Error('it is empty');
    validateHeaderValue('idempotency-key', options.idempotencyKey);
  } catch (error) {
    throw new RangeError(`idempotencyKey is not a valid header value: ${messageOf(error)}`, {
      cause: error,
    });
  }

  const refuse = (message: string, attemptsMade: number, cause?: unknown): WebhookError =>
    new WebhookError(message, { permanent: true, status: null, attempts: attemptsMade, cause });
  let url: URL;
  try {
    url = new URL(request.url);
  } catch (error) {
    throw refuse('invalid webhook URL', 0, error);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refuse(`webhook URL scheme ${url.protocol} is not http: or https:`, 0);
  }
  if (!methods.has(request.method)) {
    throw refuse(`webhook method ${request.method} is not supported`, 0);
  }
  let headers: OutgoingHttpHeaders;
  try {
    headers = headersOf(request, options.idempotencyKey);
  } catch (error) {
    throw refuse(`invalid webhook header: ${messageOf(error)}`, 0, error);
  }
  const host = hostOf(url);

  let target: Target | null = null;
  let failure = new Retryable('no attempt made', null);
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep(backoffMs * 2 ** (attempt - 2));
    try {
      if (target === null) {
        const addresses = await addressesOf(host, options.resolver);
        const denied = options.allowPrivateTargets ? undefined : addresses.find(isInternalAddress);
        if (denied !== undefined) {
          throw new Refusal(`${host} resolves to ${denied}, a private or internal address`);
        }
        target = { url, host, addresses };
      }
      const answer = await send(target, request, headers, settings);
      if (answer.status >= 500 && answer.status <= 599) {
        failure = new Retryable(`answered ${answer.status}`, answer.status);
        continue;
      }
      return { ...answer, attempts: attempt, durationMs: performance.now() - started };
    } catch (error) {
      if (error instanceof Refusal) throw refuse(`webhook refused: ${error.message}`, attempt);
      failure = error instanceof Retryable ? error : new Retryable(messageOf(error), null, error);
    }
  }
  throw new WebhookError(`webhook failed after ${attempts} attempts: ${failure.message}`, {
    permanent: false,
    status: failure.status,
    attempts,
    cause: failure.cause,
  });
}
