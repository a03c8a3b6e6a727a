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

describe('WAL checkpoints in their own thread', () => {
  it('lets a process close its platform after heavy writes, the log copied and emptied', async () => {
    const dataDir = temporaryDirectory('stamp-checkpoints-');
    const script = join(temporaryDirectory('stamp-checkpoints-script-'), 'script.mjs');
    writeFileSync(script, SCRIPT);
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [script], {
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          EMBEDDED: pathToFileURL(join(import.meta.dirname, '..', 'embedded.ts')).href,
          LOGGER: pathToFileURL(join(import.meta.dirname, '..', 'logger.ts')).href,
        },
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
    expect(output).toContain('closed');
    expect(statSync(join(dataDir, 'stamp.db-wal'), { throwIfNoEntry: false })?.size ?? 0).toBe(0);
  }, 60_000);
});
