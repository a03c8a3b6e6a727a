import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

import { removeTemporaryDirectories, temporaryDirectory } from './temporary.ts';

describe('temporaryDirectory', () => {
  it('creates a fresh folder in the temp dir that removeTemporaryDirectories removes', () => {
    const first = temporaryDirectory('stamp-temporary-');
    const second = temporaryDirectory('stamp-temporary-');
    expect(first).not.toBe(second);
    expect(dirname(first)).toBe(tmpdir());
    expect(basename(first)).toMatch(/^stamp-temporary-/);
    writeFileSync(join(first, 'file.txt'), 'content');
    removeTemporaryDirectories();
    expect(existsSync(first)).toBe(false);
    expect(existsSync(second)).toBe(false);
  });
});
