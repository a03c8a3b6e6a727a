/**
 * The S3 upload store against an S3-compatible server on loopback: s3rver, a stand-in for Amazon
 * S3 (see `s3-stand-in.ts`): the port's contract, the objects it leaves in the bucket, the
 * variables that choose it, and failures that must not pass for missing images.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { S3Store, type S3StoreOptions } from './s3.ts';
import {
  describeWithS3rver,
  S3RVER_CREDENTIALS,
  startS3rver,
  type S3StandIn,
} from './s3-stand-in.ts';
import { sampleWebp } from './sample-images.ts';
import { uploadStoreOf } from './settings.ts';
import { uploadStoreContract } from './upload-store.contract.ts';

const BUCKET = 'stamp-uploads';
const CREDENTIALS = S3RVER_CREDENTIALS;
const SUITE = 'S3 upload store against s3rver (an S3 stand-in on loopback)';

describeWithS3rver(SUITE)(SUITE, () => {
  let s3: S3StandIn;
  const options = (): S3StoreOptions => ({
    bucket: BUCKET,
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: CREDENTIALS,
  });

  beforeAll(async () => {
    s3 = await startS3rver([BUCKET]);
  });

  afterAll(async () => {
    await s3.close();
  });

  uploadStoreContract('S3 (s3rver stand-in)', async () => {
    const store = new S3Store(options());
    return { store, close: () => store.close() };
  });

  it('stores an object under the key in the bucket, with its content type', async () => {
    const store = new S3Store(options());
    await store.put('p/abc.webp', sampleWebp(), 'image/webp');
    const client = new S3Client({ ...options(), region: 'us-east-1' });
    const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'p/abc.webp' }));
    expect(object.ContentType).toBe('image/webp');
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(sampleWebp())).toBe(true);
    client.destroy();
    await store.close();
  });

  it('is chosen by STAMP_S3_BUCKET, with credentials from the SDK’s default chain', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, key: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = CREDENTIALS.secretAccessKey;
    try {
      const store = uploadStoreOf(
        {
          STAMP_S3_BUCKET: BUCKET,
          STAMP_S3_ENDPOINT: s3.endpoint,
          STAMP_S3_REGION: 'eu-west-1',
          STAMP_S3_FORCE_PATH_STYLE: 'true',
        },
        temporaryDirectory('stamp-unused-'),
      );
      expect(store.description).toBe(`s3 bucket ${BUCKET} at ${s3.endpoint}`);
      await store.put('p/env.webp', sampleWebp(), 'image/webp');
      expect(await store.get('p/env.webp')).toMatchObject({ contentType: 'image/webp' });
      await store.close();
    } finally {
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      else process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.key === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      else process.env.AWS_SECRET_ACCESS_KEY = saved.key;
    }
  });

  it('fails, rather than answering null, when the access key is refused or the bucket is missing', async () => {
    const wrongKey = new S3Store({
      ...options(),
      credentials: { accessKeyId: 'UNKNOWN', secretAccessKey: 'S3RVER' },
    });
    await expect(wrongKey.get('p/abc.webp')).rejects.toThrow();
    await wrongKey.close();
    const noBucket = new S3Store({ ...options(), bucket: 'no-such-bucket' });
    await expect(noBucket.get('p/abc.webp')).rejects.toThrow();
    await expect(noBucket.put('p/abc.webp', sampleWebp(), 'image/webp')).rejects.toThrow();
    await noBucket.close();
  });
});
