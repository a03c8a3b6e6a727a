/**
 * Image uploads over real sockets (spec part 4 "POST /uploads/image"; README "Uploads"): the
 * four accepted formats, types sniffed from the bytes whatever the client declares, SVG refused,
 * the size cap, authentication by key and by session, the public URL and its headers, files on
 * the local disk, and keys that try to leave the uploads folder.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';

import { freePort } from '@stamp/testkit/net.ts';
import fc from 'fast-check';

import {
  sampleGif,
  sampleJpeg,
  samplePng,
  sampleSvg,
  sampleWebp,
} from '../../sending/src/uploads/sample-images.ts';
import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

/** The cap these tests run with (STAMP_UPLOAD_MAX_BYTES), bytes. */
const CAP = 64 * 1024;

interface Uploaded {
  id: string;
  url: string;
  contentType: string;
  size: number;
}
interface Envelope {
  success: false;
  error: {
    code: string;
    statusCode: number;
    message: string;
    errors?: { field: string; code: string }[];
  };
}

let stamp: Stamp & { dataDir: string };
let base = '';
let projectId = '';

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  stamp = await startTestStamp({
    STAMP_PORT: String(port),
    STAMP_PUBLIC_URL: base,
    STAMP_UPLOAD_MAX_BYTES: String(CAP),
  });
  projectId = stamp.bootstrap.projectId;
});

afterAll(async () => {
  await stamp.close();
});

/** Options of {@link upload}. */
interface UploadOptions {
  field?: string;
  fileName?: string;
  /** The content type the client declares for the part. */
  type?: string;
  /** Authorization key; null: none. */
  key?: string | null;
  headers?: Record<string, string>;
}

/** POSTs `bytes` as a multipart file part; the status, parsed body and headers. */
async function upload(
  bytes: Buffer,
  options: UploadOptions = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const form = new FormData();
  form.append(
    options.field ?? 'file',
    new Blob([bytes], { type: options.type ?? 'application/octet-stream' }),
    options.fileName ?? 'picture',
  );
  const key = options.key === undefined ? TEST_KEYS.secretKey : options.key;
  const response = await fetch(`${stamp.url}/uploads/image`, {
    method: 'POST',
    body: form,
    headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...options.headers },
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // not JSON
  }
  return { status: response.status, body, headers: response.headers };
}

/** Uploads `bytes`, expecting 201; the answer. */
async function uploaded(bytes: Buffer, options: UploadOptions = {}): Promise<Uploaded> {
  const response = await upload(bytes, options);
  if (response.status !== 201) {
    throw new Error(`upload: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body as Uploaded;
}

/** Files below the uploads folder of the data folder, relative to it. */
function storedFiles(): string[] {
  const folder = join(stamp.dataDir, 'uploads');
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1));
}

describe('POST /uploads/image', () => {
  it.each([
    ['PNG', samplePng(), 'image/png', 'png'],
    ['JPEG', sampleJpeg(), 'image/jpeg', 'jpg'],
    ['GIF', sampleGif(), 'image/gif', 'gif'],
    ['WebP', sampleWebp(), 'image/webp', 'webp'],
  ])(
    'accepts a %s and serves it at its public URL, without a key',
    async (_name, bytes, type, ext) => {
      const response = await upload(bytes, { fileName: `photo.${ext}`, type });
      expect(response.status).toBe(201);
      const image = response.body as Uploaded;
      expect(image).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{32}$/) as string,
        url: `${base}/images/${projectId}/${image.id}.${ext}`,
        contentType: type,
        size: bytes.length,
      });
      expect(response.headers.get('location')).toBe(image.url);

      const served = await fetch(image.url);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
      expect(served.headers.get('content-type')).toBe(type);
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(served.headers.get('content-security-policy')).toBe("default-src 'none'");
      expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      // The file lives on the local disk, under the project.
      const file = join(stamp.dataDir, 'uploads', projectId, `${image.id}.${ext}`);
      expect(readFileSync(file).equals(bytes)).toBe(true);
    },
  );

  it('takes the image from the form field "image" too, and answers HEAD on its URL', async () => {
    const image = await uploaded(samplePng(), { field: 'image' });
    const head = await fetch(image.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('image/png');
    expect(head.headers.get('content-length')).toBe(String(samplePng().length));
  });

  it('gives every upload of the same bytes a new, unguessable id', async () => {
    const ids = new Set<string>();
    for (let index = 0; index < 5; index++) ids.add((await uploaded(sampleGif())).id);
    expect(ids.size).toBe(5);
  });

  it('refuses an SVG with 415, whatever its name and declared type, and stores nothing', async () => {
    const before = storedFiles();
    for (const [fileName, type] of [
      ['logo.svg', 'image/svg+xml'],
      ['logo.png', 'image/png'],
      ['logo', 'application/octet-stream'],
    ] as const) {
      const response = await upload(sampleSvg(), { fileName, type });
      expect(response.status).toBe(415);
      expect(response.body).toMatchObject({
        success: false,
        error: {
          code: 'UNSUPPORTED_MEDIA_TYPE',
          statusCode: 415,
          message: expect.stringContaining('not a PNG, JPEG, GIF or WebP image') as string,
        },
      });
    }
    const bare = await upload(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), {
      type: 'image/png',
    });
    expect(bare.status).toBe(415);
    expect(storedFiles()).toEqual(before);
  });

  it('refuses other formats with 415, naming what the bytes are', async () => {
    const pdf = await upload(Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n'), {
      type: 'image/jpeg',
      fileName: 'scan.jpg',
    });
    expect(pdf.status).toBe(415);
    expect((pdf.body as Envelope).error.message).toContain('application/pdf');
  });

  it('stores and serves a PNG named .svg and declared image/svg+xml as a PNG', async () => {
    const image = await uploaded(samplePng(), { fileName: 'evil.svg', type: 'image/svg+xml' });
    expect(image.contentType).toBe('image/png');
    expect(image.url).toMatch(/\.png$/);
    const served = await fetch(image.url);
    expect(served.headers.get('content-type')).toBe('image/png');
  });

  it('accepts a file of exactly the cap and answers 413 to one byte more', async () => {
    // The padding chunk adds 12 bytes (length, type, CRC) to its data.
    const atCap = samplePng(CAP - samplePng().length - 12);
    expect(atCap.length).toBe(CAP);
    expect((await uploaded(atCap)).size).toBe(CAP);
    const over = await upload(samplePng(CAP - samplePng().length - 11));
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({
      success: false,
      error: {
        code: 'PAYLOAD_TOO_LARGE',
        statusCode: 413,
        message: expect.stringContaining('64 KiB') as string,
      },
    });
  });

  it('answers 413 to a body announced far above the cap without reading it', async () => {
    const { hostname, port } = new URL(stamp.url);
    const answer = await new Promise<{ text: string; closed: boolean }>((resolve) => {
      let text = '';
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          [
            'POST /uploads/image HTTP/1.1',
            'Host: stamp.test',
            `Authorization: Bearer ${TEST_KEYS.secretKey}`,
            'Content-Type: multipart/form-data; boundary=b',
            'Content-Length: 50000000',
            '',
            '--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n',
          ].join('\r\n'),
        );
      });
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ text, closed: false });
      }, 3000);
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ text, closed: true });
      });
    });
    expect(answer.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.text).toContain('"PAYLOAD_TOO_LARGE"');
    expect(answer.closed).toBe(true);
  });

  it('answers 422 on the field "file" without a file, with an empty one, or with two', async () => {
    const none = new FormData();
    none.append('name', 'no file here');
    for (const [form, code] of [
      [none, 'required'],
      [formWith(['upload', samplePng()]), 'required'],
      [formWith(['file', Buffer.alloc(0)]), 'too_small'],
      [formWith(['file', samplePng()], ['image', samplePng()]), 'too_big'],
    ] as const) {
      const response = await fetch(`${stamp.url}/uploads/image`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${TEST_KEYS.secretKey}` },
      });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({
        error: { code: 'VALIDATION_ERROR', errors: [{ field: 'file', code }] },
      });
    }
  });

  it('answers 400 to no body, a body that is not multipart, or malformed multipart', async () => {
    const empty = await call(stamp.url, TEST_KEYS.secretKey, 'POST', '/uploads/image');
    expect(empty.status).toBe(400);
    const json = await call(stamp.url, TEST_KEYS.secretKey, 'POST', '/uploads/image', {
      file: samplePng().toString('base64'),
    });
    expect(json.status).toBe(400);
    expect(json.body).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    for (const [contentType, body] of [
      ['multipart/form-data', '--x\r\n'],
      ['multipart/form-data; boundary=x', 'no boundary here'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="file"'],
    ]) {
      const response = await call(stamp.url, TEST_KEYS.secretKey, 'POST', '/uploads/image', body, {
        'content-type': contentType ?? '',
      });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.body).toMatchObject({ success: false });
    }
  });

  it('answers 401 without a key, with a public key, and with a wrong key', async () => {
    for (const [key, code] of [
      [null, 'MISSING_AUTH'],
      [TEST_KEYS.publicKey, 'INVALID_API_KEY'],
      ['sk_wrongwrongwrongwrongwrong0', 'INVALID_API_KEY'],
    ] as const) {
      const response = await upload(samplePng(), { key });
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: { code, statusCode: 401 } });
    }
  });

  it('takes a member’s session with X-Project-Id, from the dashboard’s origin only', async () => {
    const signup = await call(stamp.url, undefined, 'POST', '/auth/signup', {
      email: 'uploader@example.org',
      password: 'correct horse battery',
    });
    expect(signup.status).toBe(201);
    const cookie = signup.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    const session = { cookie, 'x-project-id': projectId };
    const image = await uploaded(sampleWebp(), {
      key: null,
      headers: { ...session, origin: base },
    });
    expect(image.url).toContain(`/images/${projectId}/`);
    const crossSite = await upload(sampleWebp(), {
      key: null,
      headers: { ...session, origin: 'https://elsewhere.example' },
    });
    expect(crossSite.status).toBe(403);
    const otherProject = await upload(sampleWebp(), {
      key: null,
      headers: { cookie, 'x-project-id': '00000000-0000-7000-8000-000000000000', origin: base },
    });
    expect(otherProject.status).toBe(404);
  });

  it('never answers 500 to random multipart bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('b', 'x-y', ''),
        fc.array(
          fc.oneof(
            fc.string(),
            fc.constantFrom(
              '--b\r\n',
              '--b--\r\n',
              'Content-Disposition: form-data; name="file"; filename="a.png"\r\n',
              'Content-Disposition: form-data; name="image"\r\n',
              'Content-Type: image/png\r\n',
              '\r\n',
              samplePng().toString('latin1'),
            ),
          ),
          { maxLength: 12 },
        ),
        async (boundary, parts) => {
          const body = Buffer.from(parts.join(''), 'latin1');
          const response = await fetch(`${stamp.url}/uploads/image`, {
            method: 'POST',
            body,
            headers: {
              authorization: `Bearer ${TEST_KEYS.secretKey}`,
              'content-type': `multipart/form-data; boundary=${boundary}`,
            },
          });
          const answer = (await response.json()) as { success?: boolean };
          if (response.status >= 500) {
            throw new Error(`${JSON.stringify(parts)} answered ${response.status}`);
          }
          if (response.status !== 201) expect(answer.success).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });
});

/**
 * GET `path` exactly as written (no URL normalisation, which would resolve `%2e%2e` before
 * sending); the status, content type and body text.
 */
function rawGet(path: string): Promise<{ status: number; type: string; text: string }> {
  const { hostname, port } = new URL(stamp.url);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: hostname, port, path, method: 'GET' }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        resolve({
          status: incoming.statusCode ?? 0,
          type: incoming.headers['content-type'] ?? '',
          text: Buffer.concat(chunks).toString('latin1'),
        });
      });
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** A form of file parts `[field, bytes]`. */
function formWith(...parts: [string, Buffer][]): FormData {
  const form = new FormData();
  for (const [field, bytes] of parts) form.append(field, new Blob([bytes]), 'picture.png');
  return form;
}

describe('GET /images/:projectId/:file', () => {
  it('answers 404 in the error envelope for an unknown image', async () => {
    const image = await uploaded(samplePng());
    for (const path of [
      `/images/${projectId}/${'0'.repeat(32)}.png`,
      // The same id under another extension or project.
      `/images/${projectId}/${image.id}.gif`,
      `/images/${projectId}/${image.id}.svg`,
      `/images/00000000-0000-7000-8000-000000000000/${image.id}.png`,
      `/images/${projectId}/${image.id}`,
      `/images/${projectId}`,
      '/images',
      `/images/${projectId}/${image.id}.png/more`,
    ]) {
      const response = await call(stamp.url, undefined, 'GET', path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.body).toMatchObject({ success: false, error: { statusCode: 404 } });
    }
    const posted = await call(stamp.url, undefined, 'POST', `/images/${projectId}/${image.id}.png`);
    expect(posted.status).toBe(404);
  });

  it('never serves a file outside the uploads folder to a climbing path', async () => {
    // Bait the keys would reach if a path could climb: the platform secret and a planted image.
    writeFileSync(join(stamp.dataDir, 'planted.png'), samplePng());
    for (const path of [
      '/images/..%2F..%2Fsecret.key/x.png',
      '/images/%2e%2e/secret.key',
      '/images/%2e%2e/planted.png',
      `/images/${projectId}/..%2F..%2Fplanted.png`,
      `/images/${projectId}/%2e%2e%2f%2e%2e%2fplanted.png`,
      `/images/${projectId}/..%5C..%5Cplanted.png`,
      `/images/..%2F/planted.png`,
      `/images/${projectId}/%00.png`,
      `/images/${projectId}/%2e%2e`,
    ]) {
      const response = await rawGet(path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.type).toMatch(/^application\/json/);
      expect(response.text).not.toContain('PNG');
    }
  });
});
