import { spawn } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

/**
 * A script run by Node alone (not under Jest, whose own handles keep a process alive): it opens
 * the embedded platform, writes 32 MiB to its log within a few seconds (the checkpoint thread
 * starts), then closes the platform and says so.
 */
const SCRIPT = `
const { openEmbeddedPlatform } = await import(process.env.EMBEDDED);
const { createLogger } = await import(process.env.LOGGER);
const platform = openEmbeddedPlatform({
  dataDir: process.env.DATA_DIR,
  logger: createLogger({ level: 'silent' }),
});
const filler = 'x'.repeat(64 * 1024);
for (let second = 0; second < 4; second += 1) {
  for (let index = 0; index < 128; index += 1) {
    await platform.store.append([
      {
        streamId: 'filler-' + second + '-' + index,
        expectedRevision: 'no_stream',
        events: [{ type: 'Filled', data: { filler } }],
      },
    ]);
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
}
await platform.close();
process.stdout.write('closed\\n');
`;

/**
 * A script run by Node alone (Linux: it counts its threads in /proc/self/status): writes 16 MiB
 * to a database within a second (the checkpoint thread starts), then a small row every 50 ms
 * (the leases of an idle platform) until the thread has ended (less than 1 MiB written within
 * 200 ms); prints whether it started and ended, and the connection's `data_version` before and
 * after.
 */
const IDLE_SCRIPT = `
const { readFileSync } = await import('node:fs');
const { openDatabase, startWalCheckpoints } = await import(process.env.DATABASE);
const path = process.env.DATA_DIR + '/stamp.db';
const threads = () => Number(/Threads:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const db = openDatabase(path);
const stop = startWalCheckpoints(db, path, { idleMs: 200 });
const version = () => db.prepare('PRAGMA data_version').get().data_version;
const alone = threads();
db.exec('CREATE TABLE filler (value BLOB)');
const insert = db.prepare('INSERT INTO filler VALUES (randomblob(?))');
for (let index = 0; index < 256; index += 1) insert.run(65536);
const before = version();
let deadline = Date.now() + 5000;
while (threads() === alone && Date.now() < deadline) await sleep(50);
const started = threads() > alone;
const light = setInterval(() => insert.run(100), 50);
deadline = Date.now() + 20000;
while (threads() > alone && Date.now() < deadline) await sleep(50);
const ended = threads() === alone;
clearInterval(light);
process.stdout.write(JSON.stringify({ started, ended, before, after: version() }) + '\\n');
await stop();
db.close();
`;

/** Runs `script` (an ES module's text) with Node alone; answers what it printed. */
async function runScript(script: string, env: Record<string, string>): Promise<string> {
  const file = join(temporaryDirectory('stamp-checkpoints-script-'), 'script.mjs');
  writeFileSync(file, script);
  return new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', () => {
      resolve(stdout);
    });
  });
}

describe('WAL checkpoints in their own thread', () => {
  it('ends while writes are light, the connection seeing no commit of another in it', async () => {
    const dataDir = temporaryDirectory('stamp-checkpoints-');
    const output = await runScript(IDLE_SCRIPT, {
      DATA_DIR: dataDir,
      DATABASE: pathToFileURL(join(import.meta.dirname, 'database.ts')).href,
    });
    // A truncation by the thread's connection would move data_version: the platform would
    // take it for another process's commit and drop its cached counts and query results.
    const result = JSON.parse(output) as Record<string, unknown>;
    expect(result).toEqual({
      started: true,
      ended: true,
      before: result.before,
      after: result.before,
    });
  }, 60_000);

  it('lets a process close its platform after heavy writes, the log copied and emptied', async () => {
    const dataDir = temporaryDirectory('stamp-checkpoints-');
    const output = await runScript(SCRIPT, {
      DATA_DIR: dataDir,
      EMBEDDED: pathToFileURL(join(import.meta.dirname, '..', 'embedded.ts')).href,
      LOGGER: pathToFileURL(join(import.meta.dirname, '..', 'logger.ts')).href,
    });
    expect(output).toContain('closed');
    expect(statSync(join(dataDir, 'stamp.db-wal'), { throwIfNoEntry: false })?.size ?? 0).toBe(0);
  }, 60_000);
});
