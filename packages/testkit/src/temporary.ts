/**
 * Temporary folders of tests, removed when the test file ends, whether its tests passed or not.
 *
 * Importing this module in a Jest test file (directly or through a helper such as
 * `services/lite/src/testing.ts`) registers one top-level `afterAll` hook in that file, which
 * removes every folder {@link temporaryDirectory} created in it. Jest runs that hook after every
 * `describe` block of the file has finished, its own `afterAll` hooks included, so close the
 * databases and stop the child processes using a folder in the test or in its `describe` block's
 * `afterAll` (a top-level `afterAll` of the file would run after this one: declaration order).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const folders = new Set<string>();

/**
 * Creates a fresh folder `<os temp dir>/<prefix>XXXXXX` (for example `stamp-test-`) and returns
 * its path; it is removed with its content after the test file's last `describe` block.
 */
export function temporaryDirectory(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  folders.add(folder);
  return folder;
}

/**
 * Removes every folder {@link temporaryDirectory} created so far (the hook of this module calls
 * it). It tries them all, then throws one error naming those it could not remove: Jest reports a
 * failing `afterAll` beside the test results, so it never hides a failed test.
 */
export function removeTemporaryDirectories(): void {
  const failures: string[] = [];
  for (const folder of folders) {
    try {
      rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
      folders.delete(folder);
    } catch (error) {
      failures.push(`${folder}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failures.length > 0) {
    throw new Error(`could not remove temporary folders:\n${failures.join('\n')}`);
  }
}

// Outside Jest (a script importing a test helper) there is no hook: the caller removes them.
if (typeof afterAll === 'function') afterAll(removeTemporaryDirectories);
