import { createServer } from 'node:net';

/** A JSON answer of {@link fetchJson}: status, parsed body (the text when not JSON), headers. */
export interface JsonResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

/**
 * Sends one HTTP request for tests and benchmarks: `body` is sent as JSON (a string as is, for
 * malformed-input tests), `key` as `Authorization: Bearer <key>`.
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
