import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createLogger } from '@stamp/platform';

import { type Stamp, startStamp } from './app.ts';
import { readConfig } from './config.ts';

/** Fixed keys of the first project in tests (STAMP_BOOTSTRAP_*). */
export const TEST_KEYS = {
  secretKey: 'sk_testsecretkey0123456789abcdef',
  publicKey: 'pk_testpublickey0123456789abcdef',
};

/**
 * Starts the embedded platform on a random loopback port with a fresh data directory, fixed
 * bootstrap keys and the given extra environment (for example STAMP_SMTP_URL).
 */
export async function startTestStamp(
  env: Record<string, string> = {},
): Promise<Stamp & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stamp-test-'));
  const config = readConfig({
    STAMP_PORT: '0',
    STAMP_DATA_DIR: dataDir,
    STAMP_BOOTSTRAP_SECRET_KEY: TEST_KEYS.secretKey,
    STAMP_BOOTSTRAP_PUBLIC_KEY: TEST_KEYS.publicKey,
    STAMP_LOG_LEVEL: 'silent',
    ...env,
  });
  const stamp = await startStamp(config, createLogger({ level: config.STAMP_LOG_LEVEL }));
  return Object.assign(stamp, { dataDir });
}

/** A JSON call to the API with a bearer key; returns status, body and headers. */
export async function call(
  baseUrl: string,
  key: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: {
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed, headers: response.headers };
}
