import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createLogger } from '@stamp/platform';
import { fetchJson, type JsonResponse } from '@stamp/testkit/net.ts';

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
export function call(
  baseUrl: string,
  key: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  return fetchJson(baseUrl + path, {
    method,
    ...(key === undefined ? {} : { key }),
    ...(body === undefined ? {} : { body }),
    headers,
  });
}
