/**
 * The local-disk adapter of the upload storage port (embedded mode): files under one folder,
 * `<STAMP_DATA_DIR>/uploads/` by default, one file per key (`<folder>/<projectId>/<id>.<ext>`).
 */
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

import writeFileAtomic from 'write-file-atomic';

import { imageTypeOfExtension } from './sniff.ts';
import {
  extensionOf,
  isProjectSegment,
  isUploadKey,
  type StoredObject,
  type UploadStore,
} from './store.ts';

/** Error codes of a read that finds no file at the path. */
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

/** The `code` of a system error (`ENOENT`, …); checked by shape, as such errors may come from another realm. */
const codeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;

/**
 * Upload storage in a folder of the local disk. A file is written to a temporary file beside it,
 * flushed to disk, then renamed over its key (`write-file-atomic`), so a reader sees the old
 * bytes or the whole new ones, never a part. The content type of a key is the one of its
 * extension (`png`, `jpg`, `gif`, `webp`): `put` refuses another. Every path is resolved inside
 * the folder; a key that would leave it is no upload key (see `isUploadKey`) and is refused.
 */
export class LocalDiskStore implements UploadStore {
  readonly description: string;
  private readonly root: string;

  /** @param folder where the files live; created on the first `put`. */
  constructor(folder: string) {
    this.root = resolve(folder);
    this.description = `local disk ${this.root}`;
  }

  /** The absolute path of `key` inside the folder; null for a key that is not an upload key. */
  private pathOf(key: string): string | null {
    if (!isUploadKey(key)) return null;
    const path = resolve(this.root, ...key.split('/'));
    const inside = relative(this.root, path);
    if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
      return null;
    }
    return path;
  }

  /**
   * @throws Error for a key that is not an upload key, a content type that is not its
   *   extension's, or a failed write (the temporary file is removed).
   */
  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    const path = this.pathOf(key);
    if (path === null) throw new Error(`not an upload key: ${JSON.stringify(key)}`);
    const expected = imageTypeOfExtension(extensionOf(key))?.mime;
    if (expected !== contentType) {
      throw new Error(
        `the local disk keeps ${key} as ${expected ?? 'nothing'}, not ${contentType}`,
      );
    }
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, bytes, { fsync: true, mode: 0o644 });
  }

  /** @throws Error when the file exists but cannot be read. */
  async get(key: string): Promise<StoredObject | null> {
    const path = this.pathOf(key);
    const type = imageTypeOfExtension(extensionOf(key));
    if (path === null || type === null) return null;
    try {
      return { bytes: await readFile(path), contentType: type.mime };
    } catch (error) {
      if (MISSING.has(codeOf(error) ?? '')) return null;
      throw error;
    }
  }

  /** @throws Error for a key that is not an upload key, or when the file cannot be removed. */
  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    if (path === null) throw new Error(`not an upload key: ${JSON.stringify(key)}`);
    await rm(path, { force: true });
  }

  /** By the files' modification times. @throws Error when a file cannot be listed or removed. */
  async deleteProject(projectId: string, before: Date): Promise<number> {
    if (!isProjectSegment(projectId)) return 0;
    const folder = resolve(this.root, projectId);
    let entries: string[];
    try {
      entries = await readdir(folder, { recursive: true });
    } catch (error) {
      if (MISSING.has(codeOf(error) ?? '')) return 0;
      throw error;
    }
    let removed = 0;
    for (const entry of entries) {
      const path = resolve(folder, entry);
      const found = await stat(path).catch(() => null);
      if (found?.isFile() !== true || found.mtimeMs > before.getTime()) continue;
      await rm(path, { force: true });
      removed += 1;
    }
    return removed;
  }

  /** Nothing to release. */
  async close(): Promise<void> {
    // Files are opened and closed per call.
  }
}
