/**
 * The storage port of uploaded files (spec part 4, "POST /uploads/image"): bytes under a key,
 * with their content type. Two adapters: the local disk (`LocalDiskStore`, embedded mode) and an
 * S3-compatible bucket (`S3Store`). The bytes live only there, never in the event log.
 */

/** What {@link UploadStore.get} answers: the stored bytes and the content type they were put with. */
export interface StoredObject {
  bytes: Buffer;
  /** MIME type, for example `image/png`. */
  contentType: string;
}

/**
 * Where uploaded files are kept. Keys follow {@link isUploadKey} (for example
 * `0193…/3f9c….png`): whatever the key, an adapter never reads or writes outside its own space.
 */
export interface UploadStore {
  /** What the store is, for logs (`local disk <folder>`, `s3 bucket <name>`). */
  readonly description: string;
  /**
   * Stores `bytes` under `key` with `contentType`, replacing what was there. Once it resolves,
   * `get(key)` answers the whole new bytes (never a partial write).
   * @throws Error for a key that is not an upload key, or when the storage fails.
   */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /**
   * The bytes and content type under `key`; null when nothing is stored there or the key is not
   * an upload key.
   * @throws Error when the storage fails.
   */
  get(key: string): Promise<StoredObject | null>;
  /**
   * Removes what is under `key`; nothing happens when nothing is there.
   * @throws Error for a key that is not an upload key, or when the storage fails.
   */
  delete(key: string): Promise<void>;
  /**
   * Removes the files of project `projectId` (keys `<projectId>/…`) stored at or before `before`;
   * later ones stay. Answers how many were removed (a project reset).
   * @throws Error when the storage fails.
   */
  deleteProject(projectId: string, before: Date): Promise<number>;
  /** Releases connections (the S3 client's sockets); the store is not used afterwards. */
  close(): Promise<void>;
}

/** A project id usable as the first segment of upload keys. */
const PROJECT_SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;

/** Whether `projectId` can be the first segment of an upload key. */
export function isProjectSegment(projectId: string): boolean {
  return PROJECT_SEGMENT.test(projectId);
}

/**
 * An upload key: one to five segments of 1 to 128 letters, digits, `_` or `-`, separated by `/`,
 * the last one followed by a lower-case extension of 1 to 10 letters or digits. No dot segment,
 * no leading or trailing slash, no backslash: a key never names a path outside the store.
 */
const UPLOAD_KEY = /^(?:[A-Za-z0-9_-]{1,128}\/){0,4}[A-Za-z0-9_-]{1,128}\.[a-z0-9]{1,10}$/;

/** Whether `key` is an upload key (see {@link UploadStore}). */
export function isUploadKey(key: string): boolean {
  return UPLOAD_KEY.test(key);
}

/**
 * `key` itself when it is an upload key.
 * @throws Error naming the key otherwise.
 */
export function uploadKey(key: string): string {
  if (!isUploadKey(key)) throw new Error(`not an upload key: ${JSON.stringify(key)}`);
  return key;
}

/** The file extension of `key` (after its last dot), lower case; `''` without one. */
export function extensionOf(key: string): string {
  const dot = key.lastIndexOf('.');
  return dot === -1 ? '' : key.slice(dot + 1).toLowerCase();
}
