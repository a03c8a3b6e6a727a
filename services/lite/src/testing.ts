import { type ChildProcess, spawn } from 'node:child_process';

import { createLogger } from '@stamp/platform';
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { fetchJson, freePort, type JsonResponse } from '@stamp/testkit/net.ts';
import { type SmtpSink, startSmtpSink } from '@stamp/testkit/smtp-sink.ts';
import { STAMP_NODE_ARGS } from '@stamp/testkit/stamp-process.ts';
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
    // No inbound SMTP listener unless a test asks for one on a port of its own.
    STAMP_INBOUND_SMTP_PORT: '0',
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

/**
 * Adds `domain` to the test project (secret key) and verifies it: its DKIM record is published
 * on `dns`, then checked.
 * @throws Error when the domain does not verify.
 */
export async function addVerifiedDomain(
  baseUrl: string,
  dns: TestDnsServer,
  domain: string,
): Promise<void> {
  const created = (await call(baseUrl, TEST_KEYS.secretKey, 'POST', '/domains', { domain }))
    .body as { id: string; records: { purpose: string; name: string; value: string }[] };
  const dkim = created.records.find((record) => record.purpose === 'DKIM');
  if (dkim === undefined) throw new Error(`no DKIM record for ${domain}`);
  dns.set(dkim.name, { TXT: [dkim.value] });
  const checked = await call(baseUrl, TEST_KEYS.secretKey, 'GET', `/domains/${created.id}/verify`);
  if ((checked.body as { status?: string }).status !== 'VERIFIED') {
    throw new Error(`${domain} did not verify: ${JSON.stringify(checked.body)}`);
  }
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
  const child = spawn(
    process.execPath,
    [...STAMP_NODE_ARGS, ...nodeArgs, 'services/lite/src/main.ts'],
    {
      cwd: process.cwd(),
      env: { ...process.env, STAMP_INBOUND_SMTP_PORT: '0', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
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

/** What {@link crashRig} gives a crash test. */
export interface CrashRig {
  /** The real SMTP sink the process relays to. */
  readonly sink: SmtpSink;
  /** The real DNS server the process resolves with (DKIM records of verified domains). */
  readonly dns: TestDnsServer;
  /** Base URL of the process (one port for every start). */
  readonly url: string;
  /** Starts the process on the rig's data folder, or again after a kill. */
  start(): Promise<void>;
  /** Sends `signal` to the process and waits for its exit. */
  stop(signal: NodeJS.Signals): Promise<void>;
  /** Adds `domain` to the project, publishes its DKIM record and verifies it. */
  verifyDomain(domain: string): Promise<void>;
}

/**
 * The rig of a crash test: registers `beforeAll` (an SMTP sink, a DNS server, a free port, a
 * data folder named after `prefix`) and `afterAll` (the process killed, then the servers
 * closed; the data folder goes after the test file). `env` adds configuration variables.
 */
export function crashRig(prefix: string, env: Record<string, string> = {}): CrashRig {
  let sink: SmtpSink | undefined;
  let dns: TestDnsServer | undefined;
  let url = '';
  let settings: Record<string, string> = {};
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    dns = await startDnsServer({});
    sink = await startSmtpSink();
    url = `http://127.0.0.1:${await freePort()}`;
    settings = {
      STAMP_PORT: new URL(url).port,
      STAMP_DATA_DIR: temporaryDirectory(prefix),
      STAMP_SMTP_URL: sink.url,
      STAMP_DNS_SERVERS: dns.address,
      STAMP_BOOTSTRAP_SECRET_KEY: TEST_KEYS.secretKey,
      STAMP_BOOTSTRAP_PUBLIC_KEY: TEST_KEYS.publicKey,
      STAMP_LOG_LEVEL: 'silent',
      ...env,
    };
  });
  afterAll(async () => {
    if (child !== undefined) await stopProcess(child, 'SIGKILL');
    await sink?.close();
    await dns?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the crash rig is used before its beforeAll');
    return value;
  };
  return {
    get sink() {
      return started(sink);
    },
    get dns() {
      return started(dns);
    },
    get url() {
      return url;
    },
    async start() {
      child = await startProcess(settings, url);
    },
    async stop(signal) {
      if (child !== undefined) await stopProcess(child, signal);
    },
    async verifyDomain(domain) {
      const sk = TEST_KEYS.secretKey;
      const added = await call(url, sk, 'POST', '/domains', { domain });
      const { id, records } = added.body as {
        id: string;
        records: { purpose: string; name: string; value: string }[];
      };
      const dkim = records.find((record) => record.purpose === 'DKIM');
      if (dkim === undefined) throw new Error(`no DKIM record for ${domain}`);
      started(dns).set(dkim.name, { TXT: [dkim.value] });
      const verified = await call(url, sk, 'GET', `/domains/${id}/verify`);
      if (verified.status !== 200) throw new Error(`${domain} not verified: ${verified.status}`);
    },
  };
}
