import { createServer } from 'node:net';

/** A JSON answer of {@link fetchJson}: status, parsed body (the text when not JSON), headers. */
export interface JsonResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

/** What {@link checkResponses} installs: it sees every answer and throws to refuse one. */
export type ResponseCheck = (response: {
  method: string;
  url: string;
  status: number;
  contentType: string | null;
  body: unknown;
}) => void;

let responseCheck: ResponseCheck | undefined;

/**
 * Installs `check` on every answer {@link fetchJson} receives from now on (undefined removes
 * it): the jest setup installs the OpenAPI document's check (`openapi-setup.ts`), so that an
 * HTTP test fails on an answer the document does not describe.
 */
export function checkResponses(check: ResponseCheck | undefined): void {
  responseCheck = check;
}

/**
 * Sends one HTTP request for tests and benchmarks: `body` is sent as JSON (a string as is, for
 * malformed-input tests), `key` as `Authorization: Bearer <key>`.
 * @throws Error from the installed {@link checkResponses} check when it refuses the answer.
 */
export async function fetchJson(
  url: string,
  options: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const response = await fetch(url, { method: options.method ?? 'GET', headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    // not JSON: the text as is
  }
  responseCheck?.({
    method: options.method ?? 'GET',
    url,
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: parsed,
  });
  return { status: response.status, body: parsed, headers: response.headers };
}

/** A TCP port that is free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
  });
}
