/**
 * Configuration of uploads (README "Configuration", "Uploads"): the size cap and which storage
 * adapter keeps the files, read from the variables `sendingEnv` validates, in both modes.
 */
import { join } from 'node:path';

import { LocalDiskStore } from './local-disk.ts';
import type { S3StoreOptions } from './s3.ts';
import type { UploadStore } from './store.ts';

/** Default cap of an uploaded file, bytes (5 MiB). */
export const DEFAULT_UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
/** Highest cap `STAMP_UPLOAD_MAX_BYTES` may set, bytes (50 MiB): a file is held in memory. */
export const MAX_UPLOAD_MAX_BYTES = 50 * 1024 * 1024;
/** Region of the S3 client when `STAMP_S3_REGION` is unset. */
export const DEFAULT_S3_REGION = 'us-east-1';

/** The validated variables {@link uploadStoreOf} reads (see `sendingEnv`). */
export interface UploadEnv {
  /** The bucket; unset: the local disk. */
  STAMP_S3_BUCKET?: string | undefined;
  /** Base URL of an S3-compatible service; unset: Amazon S3. */
  STAMP_S3_ENDPOINT?: string | undefined;
  STAMP_S3_REGION: string;
  STAMP_S3_FORCE_PATH_STYLE: 'true' | 'false';
}

/**
 * The upload storage `env` chooses: the S3 bucket `STAMP_S3_BUCKET` (credentials from the AWS
 * SDK's default chain) when it is set, else the folder `<dataDir>/uploads` of the local disk.
 * @param dataDir STAMP_DATA_DIR
 */
export function uploadStoreOf(env: UploadEnv, dataDir: string): UploadStore {
  if (env.STAMP_S3_BUCKET === undefined) return new LocalDiskStore(join(dataDir, 'uploads'));
  return lazyS3Store({
    bucket: env.STAMP_S3_BUCKET,
    ...(env.STAMP_S3_ENDPOINT === undefined ? {} : { endpoint: env.STAMP_S3_ENDPOINT }),
    region: env.STAMP_S3_REGION,
    forcePathStyle: env.STAMP_S3_FORCE_PATH_STYLE === 'true',
  });
}

/**
 * An S3Store whose module (and the AWS SDK, tens of MiB) is loaded at its first use, so a
 * process that never stores an image does not hold it.
 */
function lazyS3Store(options: S3StoreOptions): UploadStore {
  let store: Promise<UploadStore> | undefined;
  const load = (): Promise<UploadStore> =>
    (store ??= import('./s3.ts').then(({ S3Store }) => new S3Store(options)));
  return {
    description: `s3 bucket ${options.bucket}${options.endpoint === undefined ? '' : ` at ${options.endpoint}`}`,
    put: async (key, bytes, contentType) => (await load()).put(key, bytes, contentType),
    get: async (key) => (await load()).get(key),
    delete: async (key) => (await load()).delete(key),
    deleteProject: async (projectId, before) => (await load()).deleteProject(projectId, before),
    close: async () => {
      if (store !== undefined) await (await store).close();
    },
  };
}
