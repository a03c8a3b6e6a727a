import { type ChildProcess, spawn } from 'node:child_process';

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

/**
 * GET `path` with `key`, expecting 200: the body as `T`.
 * @throws Error naming the path, the status and the body otherwise.
 */
export async function getOk<T>(baseUrl: string, key: string, path: string): Promise<T> {
  const response = await call(baseUrl, key, 'GET', path);
  if (response.status !== 200) {
    throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body as T;
}

/** Sends `signal` to `child` unless it has exited, and waits for its exit. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/**
 * Starts `pnpm start`'s entry point as a child process (with `nodeArgs` before the script) and
 * waits until /readyz answers 200 (30 s at most).
 * @throws Error when the process exits first or is not ready in time (it is killed then).
 */
export async function startProcess(
  env: Record<string, string>,
  url: string,
  nodeArgs: readonly string[] = [],
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeArgs, 'services/lite/src/main.ts'], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`stamp exited early: ${stderr}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return child;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stopProcess(child, 'SIGKILL');
  throw new Error(`stamp did not become ready: ${stderr}`);
}
