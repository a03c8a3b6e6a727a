/**
 * The S3 adapter of the upload storage port: objects in a bucket of Amazon S3 or of an
 * S3-compatible service (MinIO, Ceph, R2, …), through the AWS SDK (`@aws-sdk/client-s3`).
 * Selected by `STAMP_S3_BUCKET` (README "Configuration", "Uploads").
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';

import {
  isProjectSegment,
  isUploadKey,
  type StoredObject,
  type UploadStore,
  uploadKey,
} from './store.ts';

/** Options of {@link S3Store}. */
export interface S3StoreOptions {
  /** STAMP_S3_BUCKET: the bucket, which must exist. */
  bucket: string;
  /**
   * STAMP_S3_ENDPOINT: base URL of an S3-compatible service (for example `http://minio:9000`);
   * absent: Amazon S3 of `region`.
   */
  endpoint?: string;
  /** STAMP_S3_REGION, for example `us-east-1`. */
  region: string;
  /** STAMP_S3_FORCE_PATH_STYLE: `<endpoint>/<bucket>/<key>` URLs instead of `<bucket>.<host>`. */
  forcePathStyle: boolean;
  /**
   * Fixed credentials; absent: the SDK's default chain (`AWS_ACCESS_KEY_ID` and
   * `AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE`, web identity, container and instance roles).
   */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** Time limits of one S3 request, ms: connecting, and the whole answer. */
const CONNECTION_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Whether `error` says the object is not there: `NoSuchKey` (GET), or `NotFound` (the bodiless 404
 * of a HEAD). A missing bucket (`NoSuchBucket`) is a failure, not a missing object.
 */
function isMissing(error: unknown): boolean {
  return (
    error instanceof NoSuchKey ||
    (error instanceof S3ServiceException &&
      (error.name === 'NoSuchKey' || error.name === 'NotFound'))
  );
}

/**
 * Upload storage in an S3 bucket: one object per key, with its content type as the object's
 * `Content-Type`. A PUT replaces an object whole, so a reader never sees a partial one. Requests
 * are retried by the SDK (3 attempts) and time out after 30 s. With a custom endpoint, request
 * and response checksums are used only where S3 requires them, as not every S3-compatible
 * service supports the SDK's default CRC checksums.
 */
export class S3Store implements UploadStore {
  readonly description: string;
  private readonly client: S3Client;
  private readonly bucket: string;

  /** Creates the S3 client; nothing is sent before the first call. */
  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.description = `s3 bucket ${options.bucket}${options.endpoint === undefined ? '' : ` at ${options.endpoint}`}`;
    this.client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint === undefined
        ? {}
        : {
            endpoint: options.endpoint,
            requestChecksumCalculation: 'WHEN_REQUIRED' as const,
            responseChecksumValidation: 'WHEN_REQUIRED' as const,
          }),
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
      requestHandler: {
        connectionTimeout: CONNECTION_TIMEOUT_MS,
        requestTimeout: REQUEST_TIMEOUT_MS,
      },
    });
  }

  /** @throws Error for a key that is not an upload key; the SDK's error when S3 refuses. */
  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: uploadKey(key),
        Body: bytes,
        ContentType: contentType,
        ContentLength: bytes.length,
      }),
    );
  }

  /**
   * Null when the bucket has no such object. (Amazon S3 answers 403 instead of 404 for a missing
   * key when the credentials may not list the bucket: grant `s3:ListBucket` so such a key is a
   * 404 rather than an error.)
   * @throws the SDK's error for other refusals and failures.
   */
  async get(key: string): Promise<StoredObject | null> {
    if (!isUploadKey(key)) return null;
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key }),
      );
      if (answer.Body === undefined) return null;
      const bytes = Buffer.from(await answer.Body.transformToByteArray());
      return { bytes, contentType: answer.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** @throws Error for a key that is not an upload key; the SDK's error when S3 refuses. */
  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: uploadKey(key) }));
  }

  /**
   * By the objects' `LastModified` (whole seconds at S3), listed under the prefix `<projectId>/`
   * and deleted one by one (every S3-compatible service has DeleteObject).
   * @throws the SDK's error when S3 refuses.
   */
  async deleteProject(projectId: string, before: Date): Promise<number> {
    if (!isProjectSegment(projectId)) return 0;
    let removed = 0;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: `${projectId}/`,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined || object.LastModified === undefined) continue;
        if (object.LastModified.getTime() > before.getTime()) continue;
        await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: object.Key }));
        removed += 1;
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return removed;
  }

  /** Closes the client's sockets. */
  async close(): Promise<void> {
    this.client.destroy();
  }
}
