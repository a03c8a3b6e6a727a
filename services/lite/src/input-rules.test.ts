import { rmSync } from 'node:fs';

import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
const pk = TEST_KEYS.publicKey;
const sandboxFrom = 'hello@sandbox.stamp.localhost';

interface ErrorBody {
  error: { code: string; errors?: { field: string; message: string; code: string }[] };
}
const fieldsOf = (body: unknown): string[] =>
  ((body as ErrorBody).error.errors ?? []).map((error) => error.field);

/** `n` characters of `a`. */
const run = (n: number, character = 'a'): string => character.repeat(n);
/** A domain of `octets` octets made of labels of at most 63. */
function domainOf(octets: number): string {
  const labels: string[] = [];
  let left = octets - 4; // ".com"
  while (left > 0) {
    const size = Math.min(63, left);
    labels.push(run(size, 'd'));
    left -= size + 1;
  }
  const domain = `${labels.join('.')}.com`;
  return domain.length === octets ? domain : `${run(octets - domain.length, 'e')}${domain}`;
}

describe('input rules', () => {
  let stamp: Stamp & { dataDir: string };
  const post = (path: string, body: unknown, key = sk) => call(stamp.url, key, 'POST', path, body);

  beforeAll(async () => {
    stamp = await startTestStamp();
  });
  afterAll(async () => {
    await stamp.close();
    rmSync(stamp.dataDir, { recursive: true, force: true });
  });

  describe('email addresses beyond the RFC 5321 size limits', () => {
    const longLocal = `${run(65)}@example.org`;
    const longLabel = `a@${run(64, 'l')}.example`;
    const longDomain = `a@${domainOf(256)}`;
    const longAddress = `${run(64)}@${domainOf(190)}`;

    it('accepts the largest addresses the limits allow', async () => {
      const largest = `${run(64)}@${domainOf(189)}`;
      expect(Buffer.byteLength(largest)).toBe(254);
      expect((await post('/contacts', { email: largest })).status).toBe(201);
      expect((await post('/contacts', { email: `b@${run(63, 'l')}.example` })).status).toBe(201);
    });

    it('are refused with 422 naming the field on every route that takes one', async () => {
      expect(Buffer.byteLength(longAddress)).toBe(255);
      for (const [email, message] of [
        [longLocal, /64 octets/],
        [longLabel, /63 octets/],
        [longDomain, /255 octets/],
        [longAddress, /254 octets/],
      ] as const) {
        const created = await post('/contacts', { email });
        expect([email, created.status]).toEqual([email, 422]);
        expect((created.body as ErrorBody).error.errors?.[0]).toMatchObject({
          field: 'email',
          code: 'too_big',
        });
        expect((created.body as ErrorBody).error.errors?.[0]?.message).toMatch(message);
      }
      const contact = await post('/contacts', { email: 'fine@example.org' });
      const id = (contact.body as { id: string }).id;
      const cases: [string, string, unknown, string][] = [
        ['PATCH', `/contacts/${id}`, { email: longLocal }, 'email'],
        ['POST', '/v1/track', { event: 'e', email: longLocal }, 'email'],
        ['POST', '/events/track', { event: 'e', email: longDomain }, 'email'],
        ['POST', '/v1/verify', { email: longLocal }, 'email'],
        ['POST', '/contacts/lookup', { emails: ['fine@example.org', longLabel] }, 'emails.1'],
        ['POST', '/v1/send', { to: longLocal, from: sandboxFrom, subject: 's', body: 'b' }, 'to'],
        [
          'POST',
          '/v1/send',
          { to: [{ email: longLabel }], from: sandboxFrom, subject: 's', body: 'b' },
          'to.0.email',
        ],
        [
          'POST',
          '/v1/send',
          { to: 'ok@example.org', from: longLocal, subject: 's', body: 'b' },
          'from',
        ],
        [
          'POST',
          '/v1/send',
          { to: 'ok@example.org', from: sandboxFrom, reply: longAddress, subject: 's', body: 'b' },
          'reply',
        ],
        [
          'POST',
          '/templates',
          { name: 't', subject: 's', body: 'b', from: sandboxFrom, replyTo: longLocal },
          'replyTo',
        ],
      ];
      for (const [method, path, body, field] of cases) {
        const response = await call(stamp.url, sk, method, path, body);
        expect([method, path, field, response.status]).toEqual([method, path, field, 422]);
        expect(fieldsOf(response.body)).toEqual([field]);
      }
      const tracked = await post('/v1/track', { event: 'e', email: longLocal }, pk);
      expect(tracked.status).toBe(422);
    });

    it('are refused per row by a CSV import', async () => {
      const form = new FormData();
      const csv = `email,plan\nrow@example.org,pro\n${longLocal},pro\n`;
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
      const started = await fetch(`${stamp.url}/contacts/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sk}` },
        body: form,
      });
      expect(started.status).toBe(202);
      const { jobId } = (await started.json()) as { jobId: string };
      let job: { status: string; errors: { line?: number; reason: string }[] } | undefined;
      for (let attempt = 0; attempt < 200; attempt++) {
        job = (await call(stamp.url, sk, 'GET', `/contacts/import/${jobId}`)).body as typeof job;
        if (job?.status === 'COMPLETED' || job?.status === 'FAILED') break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(job?.status).toBe('COMPLETED');
      expect(job?.errors).toHaveLength(1);
      expect(job?.errors[0]).toMatchObject({ line: 3 });
      expect(job?.errors[0]?.reason).toMatch(/64 octets/);
    });
  });

  describe('control characters in message headers', () => {
    const base = { to: 'headers@example.org', from: sandboxFrom, subject: 's', body: 'b' };
    const attachment = { filename: 'a.txt', content: 'aGk=', contentType: 'text/plain' };

    it('are refused with 422 naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ subject: 'Hello\u0000world' }, 'subject'],
        [{ subject: 'bell\u0007' }, 'subject'],
        [{ subject: 'delete\u007f' }, 'subject'],
        [{ from: { name: 'Ada\u0000', email: sandboxFrom } }, 'from.name'],
        [{ to: { name: 'Bob\u001b[31m', email: 'bob@example.org' } }, 'to.name'],
        [{ name: 'Team\u0000' }, 'name'],
        [{ headers: { 'X-Note': 'a\u0000b' } }, 'headers.X-Note'],
        [{ headers: { 'X-\u0000': 'v' } }, 'headers.X-\u0000'],
        [{ attachments: [{ ...attachment, filename: 'a\u0000.txt' }] }, 'attachments.0.filename'],
        [
          { attachments: [{ ...attachment, contentType: 'text/plain; x=\u0000' }] },
          'attachments.0.contentType',
        ],
        [
          {
            attachments: [{ ...attachment, disposition: 'inline', contentId: 'c\u0001' }],
          },
          'attachments.0.contentId',
        ],
      ];
      for (const [fields, field] of cases) {
        const response = await post('/v1/send', { ...base, ...fields });
        expect([field, response.status]).toEqual([field, 422]);
        expect(fieldsOf(response.body)).toEqual([field]);
      }
      const subject = await post('/v1/send', { ...base, subject: 'a\u0000b' });
      expect((subject.body as ErrorBody).error.errors?.[0]?.message).toMatch(/control characters/);
      const templateCases: [Record<string, string>, string][] = [
        [{ subject: 'x\u0000' }, 'subject'],
        [{ fromName: 'x\u0000' }, 'fromName'],
      ];
      for (const [fields, field] of templateCases) {
        const template = await post('/templates', {
          name: 't',
          subject: 's',
          body: 'b',
          from: sandboxFrom,
          ...fields,
        });
        expect([field, template.status]).toEqual([field, 422]);
        expect(fieldsOf(template.body)).toEqual([field]);
      }
    });

    it('keeps tabs and strips control characters that variables bring into a subject', async () => {
      const sent = await post('/v1/send', {
        ...base,
        subject: 'Tab\there {{ code }}',
        data: { code: { value: 'x\u0000y\u0007z', persistent: false } },
      });
      expect(sent.status).toBe(200);
      const emailId = (sent.body as { data: { emails: { email: string }[] } }).data.emails[0]!
        .email;
      let raw = '';
      for (let attempt = 0; attempt < 200 && raw === ''; attempt++) {
        const message = await call(stamp.url, sk, 'GET', `/outbox/${emailId}`);
        if (message.status === 200) raw = (message.body as { raw: string }).raw;
        else await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const headers = raw.slice(0, raw.indexOf('\r\n\r\n'));
      // eslint-disable-next-line no-control-regex -- looking for control characters
      expect(headers).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/);
      expect(headers).toMatch(/Subject: Tab\there x y z/);
    });
  });

  describe('reserved event names', () => {
    it('are matched after trimming, compatibility normalisation and case folding', async () => {
      for (const event of [
        'EMAIL.SENT',
        ' email.sent',
        'email.open\t',
        'Contact.Subscribed ',
        'CONTACT.UNSUBSCRIBED',
        'SEGMENT.vip.ENTRY',
        ' segment.Big Spenders.exit ',
        '\uff45\uff4d\uff41\uff49\uff4c.sent',
      ]) {
        for (const key of [pk, sk]) {
          const response = await post('/v1/track', { event, email: 'e@example.org' }, key);
          expect([event, response.status]).toEqual([event, 422]);
          expect((response.body as ErrorBody).error.errors?.[0]).toMatchObject({
            field: 'event',
            code: 'reserved_event',
          });
        }
      }
      for (const event of ['emails.sent', 'contact.updated', 'segment.entry', 'signed-up']) {
        const response = await post('/v1/track', { event, email: 'e@example.org' }, pk);
        expect([event, response.status]).toEqual([event, 200]);
      }
    });
  });

  describe('large HTML bodies', () => {
    it('sends a body of several million characters, within the message limit', async () => {
      const body = `<p>${'Lorem ipsum dolor sit amet. '.repeat(200_000)}{{ name }}</p>`;
      expect(body.length).toBeGreaterThan(5_000_000);
      const sent = await post('/v1/send', {
        to: 'big@example.org',
        from: sandboxFrom,
        subject: 'Big',
        body,
        data: { name: 'Ada' },
      });
      expect(sent.status).toBe(200);
    });

    it('keeps the whole-message limit: a body beyond 40 MB is 413', async () => {
      const sent = await post('/v1/send', {
        to: 'big@example.org',
        from: sandboxFrom,
        subject: 'Too big',
        body: run(31 * 1024 * 1024, 'x'),
      });
      expect(sent.status).toBe(413);
    });

    it('stores templates of up to 5 MiB and names the limit beyond', async () => {
      const template = (size: number) =>
        post('/templates', {
          name: 'big',
          type: 'TRANSACTIONAL',
          subject: 's',
          from: sandboxFrom,
          body: `<p>${run(size - 7, 'y')}</p>`,
        });
      expect((await template(2_000_000)).status).toBe(201);
      const refused = await template(5 * 1024 * 1024 + 1);
      expect(refused.status).toBe(422);
      expect((refused.body as ErrorBody).error.errors?.[0]).toMatchObject({
        field: 'body',
        code: 'too_big',
      });
    });
  });
});
