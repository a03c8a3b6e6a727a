import { connect, type Socket } from 'node:net';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { freePort } from '@stamp/testkit/net.ts';
import { STAMP_NODE_ARGS } from '@stamp/testkit/stamp-process.ts';
import { removeTemporaryDirectories, temporaryDirectory } from '@stamp/testkit/temporary.ts';

/**
 * A temporary folder of the benchmark (`<os temp dir>/<prefix>XXXXXX`), removed when the
 * benchmark's process exits, also after a failure, Ctrl-C or `kill` (SIGTERM).
 */
export function benchDirectory(prefix: string): string {
  return temporaryDirectory(prefix);
}
process.once('exit', () => {
  removeTemporaryDirectories();
});
process.once('SIGINT', () => {
  process.exit(130);
});
process.once('SIGTERM', () => {
  process.exit(143);
});

/**
 * Node's compile cache, as `./pnpmw start` uses it (package.json): TypeScript sources are
 * stripped once, not at every start.
 */
export const COMPILE_CACHE = join(import.meta.dirname, '..', 'node_modules', '.cache', 'node');

/** Fixed bootstrap keys of benchmark runs. */
export const KEYS = {
  secretKey: 'sk_benchsecretkey0123456789abcdef',
  publicKey: 'pk_benchpublickey0123456789abcdef',
};

/** A process started by {@link startProcess}. */
export interface Running {
  child: ChildProcess;
  url: string;
  /** Resident set size, bytes (VmRSS of /proc/<pid>/status). */
  rss(): number;
  /**
   * CPU time the process has used so far, all its threads, ms (user and system time of
   * /proc/<pid>/stat): what a figure costs, steadier than a rate on a shared machine.
   */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** Starts `script` with Node (same binary) and waits for `readyPath` to answer 200. */
export async function startProcess(
  script: string,
  env: Record<string, string>,
  readyPath = '/readyz',
): Promise<Running & { startMs: number }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...STAMP_NODE_ARGS, ...nodeArgs, script], {
    env: {
      ...process.env,
      STAMP_PORT: String(port),
      PORT: String(port),
      STAMP_LOG_LEVEL: process.env.BENCH_CHILD_LOGS ?? 'silent',
      NODE_COMPILE_CACHE: COMPILE_CACHE,
      ...env,
    },
    stdio: ['ignore', process.env.BENCH_CHILD_LOGS === undefined ? 'ignore' : 'inherit', 'inherit'],
  });
  // A benchmark that fails leaves no process behind.
  const reap = (): void => {
    child.kill('SIGKILL');
  };
  process.on('exit', reap);
  child.once('exit', () => process.off('exit', reap));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      if ((await fetch(url + readyPath)).status === 200) break;
    } catch {
      // not yet listening
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const startMs = performance.now() - started;
  return {
    child,
    url,
    startMs,
    rss() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1] ?? '0';
      return Number(kb) * 1024;
    },
    cpuMs() {
      // Fields 14 and 15 (utime, stime) in clock ticks of 10 ms, after the command's `)`.
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
      return (Number(fields?.[11] ?? 0) + Number(fields?.[12] ?? 0)) * 10;
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => {
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Starts the embedded platform as `./pnpmw start` does, in a fresh (or the given) data folder. */
export function startStamp(
  env: Record<string, string> = {},
): Promise<Running & { startMs: number; dataDir: string }> {
  const dataDir = env.STAMP_DATA_DIR ?? benchDirectory('stamp-bench-');
  return startProcess('services/lite/src/main.ts', {
    STAMP_DATA_DIR: dataDir,
    STAMP_BOOTSTRAP_SECRET_KEY: KEYS.secretKey,
    STAMP_BOOTSTRAP_PUBLIC_KEY: KEYS.publicKey,
    STAMP_RATE_LIMIT_PER_MINUTE: '100000000',
    STAMP_INBOUND_SMTP_PORT: '0',
    ...env,
  }).then((running) => Object.assign(running, { dataDir }));
}

/** Prints one figure as `name value unit`. */
export function figure(name: string, value: number, unit: string): void {
  process.stdout.write(`${name} ${Number.isInteger(value) ? value : value.toFixed(2)} ${unit}\n`);
}

/**
 * A nodemailer `getSocket` to `host:port` whose socket disables Nagle's algorithm, as Stamp's
 * and real MTAs' do: with it, each message on loopback waits for delayed ACKs.
 */
export function noDelaySocket(host: string, port: number) {
  return (
    _options: unknown,
    callback: (error: Error | null, result?: { connection: Socket }) => void,
  ): void => {
    const socket = connect({ host, port, noDelay: true });
    socket.once('error', (error) => {
      callback(error);
    });
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      callback(null, { connection: socket });
    });
  };
}

/**
 * Adds `domain` to the bench project of the Stamp at `url` and verifies it, its DKIM record
 * published on `dns`.
 * @throws Error when it does not verify.
 */
export async function verifyBenchDomain(
  url: string,
  dns: { set(name: string, records: { TXT: string[] }): void },
  domain: string,
): Promise<void> {
  const headers = { authorization: `Bearer ${KEYS.secretKey}`, 'content-type': 'application/json' };
  const added = (await (
    await fetch(`${url}/domains`, { method: 'POST', headers, body: JSON.stringify({ domain }) })
  ).json()) as { id: string; records: { purpose: string; name: string; value: string }[] };
  const dkim = added.records.find((record) => record.purpose === 'DKIM');
  if (dkim === undefined) throw new Error('no DKIM record');
  dns.set(dkim.name, { TXT: [dkim.value] });
  const checked = (await (
    await fetch(`${url}/domains/${added.id}/verify`, { headers })
  ).json()) as {
    status?: string;
  };
  if (checked.status !== 'VERIFIED') throw new Error(`${domain} did not verify`);
}

/**
 * Waits until every consumer group's checkpoint has reached the head of the log (read from the
 * embedded data folder `folder` through a connection of this process) and answers how long
 * that took, ms. A log seeded while no platform ran is read by the reactors at the next start.
 */
export async function caughtUp(folder: string): Promise<number> {
  const started = performance.now();
  const db = new DatabaseSync(join(folder, 'stamp.db'), { readOnly: true });
  try {
    const behind = db.prepare(
      `SELECT count(*) AS groups FROM checkpoints
       WHERE position < (SELECT coalesce(max(position), 0) FROM events)`,
    );
    while ((behind.get() as { groups: number }).groups > 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    db.close();
  }
  return performance.now() - started;
}
