/**
 * Uploads in the distributed mode: the gateway, accounts and sending processes started from their
 * entry points, as a deployment runs them (the embedded event store, bus and views shared on one
 * disk), the sending process keeping the images in an S3 bucket of s3rver, a stand-in for Amazon
 * S3 on loopback (see `s3-stand-in.ts`), with credentials from the SDK's default chain. The
 * gateway forwards POST /uploads/image (authenticated) and GET /images/… (public) to it.
 */
import { randomBytes } from 'node:crypto';

import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '@stamp/testkit/net.ts';
import { StampProcess } from '@stamp/testkit/stamp-process.ts';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import {
  describeWithS3rver,
  S3RVER_CREDENTIALS,
  type S3StandIn,
  startS3rver,
} from './s3-stand-in.ts';
import { samplePng, sampleSvg } from './sample-images.ts';

const BUCKET = 'stamp-images';
const SECRET_KEY = 'sk_uploadssecret0123456789abcdef';
const PUBLIC_KEY = 'pk_uploadspublic0123456789abcdef';
const SUITE = 'uploads through the gateway to the sending process, images in s3rver (S3 stand-in)';

describeWithS3rver(SUITE)(SUITE, () => {
  let s3: S3StandIn;
  let gateway = '';
  const processes: StampProcess[] = [];

  beforeAll(async () => {
    s3 = await startS3rver([BUCKET]);
    const ports = {
      accounts: await freePort(),
      sending: await freePort(),
      gateway: await freePort(),
    };
    // No process answers here: the gateway forwards nothing but uploads and keys in this suite.
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    gateway = `http://127.0.0.1:${ports.gateway}`;
    const env: Record<string, string> = {
      STAMP_HOST: '127.0.0.1',
      STAMP_LOG_LEVEL: 'warn',
      STAMP_DATA_DIR: temporaryDirectory('stamp-uploads-distributed-'),
      STAMP_SECRET: randomBytes(32).toString('hex'),
      STAMP_INTERNAL_TOKEN: randomBytes(24).toString('hex'),
      STAMP_INBOUND_SMTP_PORT: '0',
      STAMP_PUBLIC_URL: gateway,
      STAMP_BOOTSTRAP_SECRET_KEY: SECRET_KEY,
      STAMP_BOOTSTRAP_PUBLIC_KEY: PUBLIC_KEY,
      STAMP_ACCOUNTS_URL: `http://127.0.0.1:${ports.accounts}`,
      STAMP_SENDING_URL: `http://127.0.0.1:${ports.sending}`,
      STAMP_CONTACTS_URL: nowhere,
      STAMP_DOMAINS_URL: nowhere,
      STAMP_ACTIVITY_URL: nowhere,
      STAMP_SEGMENTS_URL: nowhere,
      STAMP_CAMPAIGNS_URL: nowhere,
      STAMP_WORKFLOWS_URL: nowhere,
    };
    const sending = {
      ...env,
      STAMP_UPLOAD_MAX_BYTES: '4096',
      STAMP_S3_BUCKET: BUCKET,
      STAMP_S3_ENDPOINT: s3.endpoint,
      STAMP_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    };
    const accounts = new StampProcess('accounts', ports.accounts, env);
    processes.push(accounts);
    // The accounts process creates the first project and its keys before the others start.
    await accounts.start();
    const others = [
      new StampProcess('sending', ports.sending, sending),
      new StampProcess('gateway', ports.gateway, env),
    ];
    processes.push(...others);
    await Promise.all(others.map((process) => process.start()));
  }, 180_000);

  afterAll(async () => {
    // Their data folder goes after the test file: once every process has exited.
    await Promise.all(processes.map((process) => process.stop()));
    await s3.close();
  });

  const upload = async (bytes: Buffer, key: string | null = SECRET_KEY): Promise<Response> => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'picture.png');
    return fetch(`${gateway}/uploads/image`, {
      method: 'POST',
      body: form,
      headers: key === null ? {} : { authorization: `Bearer ${key}` },
    });
  };

  it('stores an upload in the bucket and serves it at its public URL through the gateway', async () => {
    const response = await upload(samplePng());
    expect(response.status).toBe(201);
    const image = (await response.json()) as { id: string; url: string; contentType: string };
    const match = new RegExp(`^${gateway}/images/([^/]+)/${image.id}\\.png$`).exec(image.url);
    expect(match).not.toBeNull();
    expect(image.contentType).toBe('image/png');

    const served = await fetch(image.url);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(samplePng())).toBe(true);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
    });
    const object = await client.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: `${match?.[1]}/${image.id}.png` }),
    );
    expect(object.ContentType).toBe('image/png');
    client.destroy();
  }, 60_000);

  it('refuses an SVG (415), a file over the cap (413) and a request without a key (401)', async () => {
    expect((await upload(sampleSvg())).status).toBe(415);
    const large = await upload(samplePng(5000));
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect((await upload(samplePng(), null)).status).toBe(401);
    const unknown = await fetch(`${gateway}/images/nobody/${'0'.repeat(32)}.png`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ success: false, error: { statusCode: 404 } });
  }, 60_000);
});
