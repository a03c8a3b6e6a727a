import { rmSync } from 'node:fs';

import { OUTBOX_COLLECTION, OUTBOX_PARTS_COLLECTION } from '@stamp/platform';

import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
const sandboxFrom = 'hello@sandbox.stamp.localhost';

interface OutboxPage {
  data: Record<string, unknown>[];
  total: number;
}

/** The local outbox keeps message content apart from its list, and reads it only when asked. */
describe('local outbox of large messages', () => {
  let stamp: Stamp & { dataDir: string };
  /** The data folder of the first start, kept across the restart. */
  let dataDir = '';
  const attachment = Buffer.alloc(6 * 1024 * 1024, 42).toString('base64');
  let emailId = '';
  let contactId = '';
  let raw = '';

  const waitForRaw = async (id: string): Promise<string> => {
    for (let attempt = 0; attempt < 400; attempt++) {
      const message = await call(stamp.url, sk, 'GET', `/outbox/${id}`);
      if (message.status === 200) return (message.body as { raw: string }).raw;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`${id} never reached the outbox`);
  };

  beforeAll(async () => {
    stamp = await startTestStamp();
    dataDir = stamp.dataDir;
    const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
      to: 'large@example.org',
      from: sandboxFrom,
      subject: 'Large',
      body: '<p>see attached</p>',
      attachments: [
        { filename: 'large.bin', content: attachment, contentType: 'application/octet-stream' },
      ],
    });
    expect(sent.status).toBe(200);
    const data = (sent.body as { data: { emails: { email: string; contact: { id: string } }[] } })
      .data;
    emailId = data.emails[0]!.email;
    contactId = data.emails[0]!.contact.id;
    raw = await waitForRaw(emailId);
  });
  afterAll(async () => {
    await stamp.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers GET /outbox/:id with the whole raw message', () => {
    expect(raw.length).toBeGreaterThan(attachment.length);
    expect(raw).toContain('filename=large.bin');
    const body = raw.slice(raw.indexOf('filename=large.bin'));
    expect(body.replace(/\r\n/g, '')).toContain(attachment.slice(0, 4096));
  });

  it('keeps the raw message out of the list documents, in parts of at most 1 MiB', async () => {
    const listed = await stamp.platform.views.collection(OUTBOX_COLLECTION).findOne({
      _id: emailId,
    });
    expect(listed).not.toBeNull();
    expect(listed).not.toHaveProperty('raw');
    expect(JSON.stringify(listed).length).toBeLessThan(1000);
    const parts = await stamp.platform.views
      .collection(OUTBOX_PARTS_COLLECTION)
      .find({ emailId }, { sort: { n: 1 } });
    expect(parts.length).toBeGreaterThanOrEqual(8);
    expect(parts.every((part) => (part.data as string).length <= 1024 * 1024)).toBe(true);
    expect(parts.map((part) => part.data as string).join('')).toBe(raw);
    const page = await call(stamp.url, sk, 'GET', '/outbox?limit=1');
    expect(page.status).toBe(200);
    expect((page.body as OutboxPage).data[0]).toEqual({
      id: emailId,
      from: sandboxFrom,
      to: 'large@example.org',
      subject: 'Large',
      capturedAt: expect.any(String) as string,
    });
  });

  it('lists and reads the message again after a restart', async () => {
    await stamp.close();
    stamp = await startTestStamp({ STAMP_DATA_DIR: dataDir });
    // The restart was given the first data folder; the fresh one it also made stays unused.
    rmSync(stamp.dataDir, { recursive: true, force: true });
    const page = await call(stamp.url, sk, 'GET', '/outbox?limit=1');
    expect(page.status).toBe(200);
    expect((page.body as OutboxPage).data.map((item) => item.id)).toEqual([emailId]);
    const message = await call(stamp.url, sk, 'GET', `/outbox/${emailId}`);
    expect(message.status).toBe(200);
    expect((message.body as { raw: string }).raw).toBe(raw);
  });

  it('erases the parts with the contact', async () => {
    const deleted = await call(stamp.url, sk, 'DELETE', `/contacts/${contactId}`);
    expect(deleted.status).toBe(204);
    for (let attempt = 0; attempt < 200; attempt++) {
      if ((await call(stamp.url, sk, 'GET', `/outbox/${emailId}`)).status === 404) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect((await call(stamp.url, sk, 'GET', `/outbox/${emailId}`)).status).toBe(404);
    const parts = stamp.platform.views.collection(OUTBOX_PARTS_COLLECTION);
    expect(await parts.countDocuments({ emailId })).toBe(0);
  });
});
