/**
 * The local-disk upload store: the port's contract, where its files land, that nothing is ever
 * written outside its folder, and that a failed write leaves no file behind.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { LocalDiskStore } from './local-disk.ts';
import { sampleJpeg, samplePng } from './sample-images.ts';
import { uploadStoreOf } from './settings.ts';
import { HOSTILE_KEYS, uploadStoreContract } from './upload-store.contract.ts';

uploadStoreContract('local disk', async () => {
  const store = new LocalDiskStore(join(temporaryDirectory('stamp-uploads-'), 'uploads'));
  return { store, close: () => store.close() };
});

/** Every file below `folder`, as paths relative to it. */
function filesBelow(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1))
    .sort();
}

describe('local disk upload store', () => {
  it('keeps a key as the file <folder>/<project>/<id>.<ext>, with no temporary file left', async () => {
    const dataDir = temporaryDirectory('stamp-uploads-');
    const store = uploadStoreOf(
      { STAMP_S3_REGION: 'us-east-1', STAMP_S3_FORCE_PATH_STYLE: 'false' },
      dataDir,
    );
    expect(store.description).toBe(`local disk ${join(dataDir, 'uploads')}`);
    await store.put('p1/abc.png', samplePng(), 'image/png');
    await store.put('p1/def.jpg', sampleJpeg(), 'image/jpeg');
    expect(filesBelow(dataDir)).toEqual([
      join('uploads', 'p1', 'abc.png'),
      join('uploads', 'p1', 'def.jpg'),
    ]);
    expect(readFileSync(join(dataDir, 'uploads', 'p1', 'abc.png')).equals(samplePng())).toBe(true);
    expect(await store.get('p1/def.jpg')).toMatchObject({ contentType: 'image/jpeg' });
  });

  it('never writes, reads or removes outside its folder', async () => {
    const parent = temporaryDirectory('stamp-uploads-');
    const folder = join(parent, 'uploads');
    mkdirSync(folder);
    // Bait beside the folder and in the parent, where climbing keys would land.
    writeFileSync(join(parent, 'x.png'), 'bait');
    writeFileSync(join(parent, 'secret.key'), 'bait');
    const store = new LocalDiskStore(folder);
    for (const key of HOSTILE_KEYS) {
      await expect(store.put(key, samplePng(), 'image/png')).rejects.toThrow();
      await expect(store.delete(key)).rejects.toThrow();
      expect(await store.get(key)).toBeNull();
    }
    expect(filesBelow(parent)).toEqual(['secret.key', 'x.png']);
    expect(readFileSync(join(parent, 'x.png'), 'utf8')).toBe('bait');
  });

  it('refuses a content type that is not the one of the key’s extension', async () => {
    const folder = join(temporaryDirectory('stamp-uploads-'), 'uploads');
    const store = new LocalDiskStore(folder);
    await expect(store.put('p/x.png', sampleJpeg(), 'image/jpeg')).rejects.toThrow(/image\/png/);
    await expect(store.put('p/x.svg', Buffer.from('<svg/>'), 'image/svg+xml')).rejects.toThrow();
    expect(existsSync(folder)).toBe(false);
    // A file of another extension that appeared in the folder is not served either.
    mkdirSync(join(folder, 'p'), { recursive: true });
    writeFileSync(join(folder, 'p', 'x.svg'), '<svg/>');
    expect(await store.get('p/x.svg')).toBeNull();
  });

  it('leaves the previous file whole when a write fails, and no temporary file', async () => {
    const folder = join(temporaryDirectory('stamp-uploads-'), 'uploads');
    const store = new LocalDiskStore(folder);
    await store.put('p/x.png', samplePng(), 'image/png');
    // A folder where the file should be makes the rename fail.
    mkdirSync(join(folder, 'p', 'y.png'));
    await expect(store.put('p/y.png', samplePng(10), 'image/png')).rejects.toThrow();
    expect(filesBelow(folder)).toEqual([join('p', 'x.png')]);
    expect(await store.get('p/y.png')).toBeNull();
    expect((await store.get('p/x.png'))?.bytes.equals(samplePng())).toBe(true);
  });
});
