/**
 * The contract suite of the upload storage port: every adapter (local disk, S3) passes it.
 */
import { randomBytes } from 'node:crypto';

import { sampleGif, samplePng } from './sample-images.ts';
import type { UploadStore } from './store.ts';

/** What a contract run needs: a fresh, empty store, and how to release it and its server. */
export interface UploadStoreFixture {
  store: UploadStore;
  /** Closes the store and whatever serves it. */
  close(): Promise<void>;
}

/** Keys that are no upload keys: each would leave the store's space or is malformed. */
export const HOSTILE_KEYS: readonly string[] = [
  '',
  'x',
  '../x.png',
  '../../secret.key',
  'project/../../x.png',
  'project/./x.png',
  '/etc/x.png',
  'project//x.png',
  'project/x.png/',
  'project\\..\\x.png',
  'project/%2e%2e/x.png',
  'project/x.png\u0000.png',
  'project/.png',
  'project/x.PNG ',
  'a/b/c/d/e/f/x.png',
];

/**
 * Registers the contract tests of an upload store. `open` gives a fresh fixture (called once,
 * before the tests); its `close` runs after them.
 */
export function uploadStoreContract(name: string, open: () => Promise<UploadStoreFixture>): void {
  describe(`upload store contract: ${name}`, () => {
    let fixture: UploadStoreFixture;
    const store = (): UploadStore => fixture.store;
    const project = `project-${randomBytes(4).toString('hex')}`;
    const keyOf = (extension = 'png'): string =>
      `${project}/${randomBytes(16).toString('hex')}.${extension}`;

    beforeAll(async () => {
      fixture = await open();
    });

    afterAll(async () => {
      await fixture.close();
    });

    it('answers the bytes and content type put under a key, and null once deleted', async () => {
      const key = keyOf();
      const bytes = samplePng();
      await store().put(key, bytes, 'image/png');
      const stored = await store().get(key);
      expect(stored?.contentType).toBe('image/png');
      expect(stored?.bytes.equals(bytes)).toBe(true);
      await store().delete(key);
      expect(await store().get(key)).toBeNull();
      // Deleting what is not there is no error.
      await store().delete(key);
    });

    it("removes a project's files stored up to a time, keeping later ones and other projects'", async () => {
      const other = `other-${randomBytes(4).toString('hex')}`;
      const reset = `reset-${randomBytes(4).toString('hex')}`;
      const early = `${reset}/${randomBytes(16).toString('hex')}.png`;
      const elsewhere = `${other}/${randomBytes(16).toString('hex')}.png`;
      await store().put(early, samplePng(), 'image/png');
      await store().put(elsewhere, samplePng(), 'image/png');
      // S3 keeps LastModified in whole seconds.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const before = new Date();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const late = `${reset}/${randomBytes(16).toString('hex')}.png`;
      await store().put(late, samplePng(), 'image/png');

      expect(await store().deleteProject(reset, before)).toBe(1);
      expect(await store().get(early)).toBeNull();
      expect(await store().get(late)).not.toBeNull();
      expect(await store().get(elsewhere)).not.toBeNull();
      expect(await store().deleteProject(reset, before)).toBe(0);
      expect(await store().deleteProject('../x', new Date())).toBe(0);
    });

    it('answers null for a key never put', async () => {
      expect(await store().get(keyOf())).toBeNull();
      expect(
        await store().get(`${project}-other/${randomBytes(16).toString('hex')}.gif`),
      ).toBeNull();
    });

    it('replaces the bytes under a key whole', async () => {
      const key = keyOf();
      await store().put(key, samplePng(), 'image/png');
      const larger = samplePng(100_000);
      await store().put(key, larger, 'image/png');
      expect((await store().get(key))?.bytes.equals(larger)).toBe(true);
      await store().delete(key);
    });

    it('keeps every byte value of a large file exactly', async () => {
      const key = keyOf('gif');
      const bytes = Buffer.concat([sampleGif(), randomBytes(2 * 1024 * 1024)]);
      await store().put(key, bytes, 'image/gif');
      const stored = await store().get(key);
      expect(stored?.bytes.length).toBe(bytes.length);
      expect(stored?.bytes.equals(bytes)).toBe(true);
      expect(stored?.contentType).toBe('image/gif');
      await store().delete(key);
    });

    it('leaves one whole version when the same key is put concurrently', async () => {
      const key = keyOf();
      const versions = [1, 2, 3, 4].map((size) => samplePng(size * 50_000));
      await Promise.all(versions.map((bytes) => store().put(key, bytes, 'image/png')));
      const stored = await store().get(key);
      expect(versions.some((bytes) => stored?.bytes.equals(bytes))).toBe(true);
      await store().delete(key);
    });

    it('refuses to write or delete under a key that is no upload key, and reads none', async () => {
      for (const key of HOSTILE_KEYS) {
        await expect(store().put(key, samplePng(), 'image/png')).rejects.toThrow(
          /not an upload key/,
        );
        await expect(store().delete(key)).rejects.toThrow(/not an upload key/);
        expect(await store().get(key)).toBeNull();
      }
    });
  });
}
