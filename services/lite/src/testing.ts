import { createLogger } from '@stamp/platform';
import { fetchJson, type JsonResponse } from '@stamp/testkit/net.ts';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { type Stamp, startStamp } from './app.ts';
import { readConfig } from './config.ts';

/** Fixed keys of the first project in tests (STAMP_BOOTSTRAP_*). */
export const TEST_KEYS = {
  secretKey: 'sk_testsecretkey0123456789abcdef',
  publicKey: 'pk_testpublickey0123456789abcdef',
};

/**
 * Starts the embedded platform on a random loopback port with fixed bootstrap keys and the given
 * extra environment (for example STAMP_SMTP_URL), in `env.STAMP_DATA_DIR` or else a fresh
 * temporary folder. That folder outlives `close()`, so a test can restart on it; it is removed
 * when the test file ends (`@stamp/testkit/temporary.ts`): close the platform before, in the test
 * or in its `describe` block's `afterAll`.
 */
export async function startTestStamp(
  env: Record<string, string> = {},
): Promise<Stamp & { dataDir: string }> {
  const dataDir = env.STAMP_DATA_DIR ?? temporaryDirectory('stamp-test-');
  const config = readConfig({
    STAMP_PORT: '0',
    STAMP_BOOTSTRAP_SECRET_KEY: TEST_KEYS.secretKey,
    STAMP_BOOTSTRAP_PUBLIC_KEY: TEST_KEYS.publicKey,
    STAMP_LOG_LEVEL: 'silent',
    ...env,
    STAMP_DATA_DIR: dataDir,
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
