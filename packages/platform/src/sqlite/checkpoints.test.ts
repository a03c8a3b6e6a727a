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
 * A script run by Node alone: writes 16 MiB to a database within a second (the checkpoint
 * thread starts), waits until the thread has ended (200 ms without writes), and prints the
 * connection's `data_version` before and after, and the log file's size.
 */
const IDLE_SCRIPT = `
const { openDatabase, startWalCheckpoints } = await import(process.env.DATABASE);
const path = process.env.DATA_DIR + '/stamp.db';
const db = openDatabase(path);
const stop = startWalCheckpoints(db, path, { idleMs: 200 });
const version = () => db.prepare('PRAGMA data_version').get().data_version;
db.exec('CREATE TABLE filler (value BLOB)');
const insert = db.prepare('INSERT INTO filler VALUES (randomblob(65536))');
for (let index = 0; index < 256; index += 1) insert.run();
const before = version();
const { statSync } = await import('node:fs');
const size = () => statSync(path + '-wal', { throwIfNoEntry: false })?.size ?? 0;
const deadline = Date.now() + 20000;
while (size() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
// A turn more: the size is read again once the thread's end was handled.
await new Promise((resolve) => setTimeout(resolve, 100));
process.stdout.write(JSON.stringify({ before, after: version(), log: size() }) + '\\n');
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
  it('empties the log when writes stop without the connection seeing a commit of another', async () => {
    const dataDir = temporaryDirectory('stamp-checkpoints-');
    const output = await runScript(IDLE_SCRIPT, {
      DATA_DIR: dataDir,
      DATABASE: pathToFileURL(join(import.meta.dirname, 'database.ts')).href,
    });
    // A truncation by the thread's connection would move data_version: the platform would
    // take it for another process's commit and drop its cached counts and query results.
    const { before, after, log } = JSON.parse(output) as {
      before: number;
      after: number;
      log: number;
    };
    expect(log).toBe(0);
    expect(after).toBe(before);
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
