import { parse } from '@stamp/http-kit';

import {
  assertMayReceive,
  checkSize,
  emailHeaders,
  recipientsOf,
  resolveMessage,
  splitData,
} from './decide.ts';
import { sendBody } from './schema.ts';
import { thrownApiError } from '@stamp/testkit/api-error.ts';

const failure = thrownApiError;

const fields = (run: () => unknown): string[] =>
  (failure(run).options.errors ?? []).map((issue) => issue.field);

const base = { to: 'a@example.org', subject: 'Hi', body: '<p>x</p>', from: 'me@example.test' };

describe('sendBody schema', () => {
  it('accepts every shape of to', () => {
    const body = parse(sendBody, {
      ...base,
      to: ['a@example.org', { name: 'Bea', email: 'b@example.org' }],
    });
    expect(recipientsOf(body.to)).toEqual([
      { email: 'a@example.org' },
      { name: 'Bea', email: 'b@example.org' },
    ]);
    expect(recipientsOf(parse(sendBody, { ...base, to: { email: 'c@example.org' } }).to)).toEqual([
      { email: 'c@example.org' },
    ]);
  });

  it('refuses bad recipients and empty lists; the command caps the size', () => {
    expect(fields(() => parse(sendBody, { ...base, to: 'nope' }))).toContain('to');
    expect(failure(() => parse(sendBody, { ...base, to: [] })).options.errors).toEqual([
      { field: 'to', message: 'At least one recipient is required', code: 'custom' },
    ]);
    const many = Array.from({ length: 51 }, (_, index) => `r${index}@example.org`);
    expect(parse(sendBody, { ...base, to: many }).to).toHaveLength(51);
  });

  it('enforces the content rule on template', () => {
    const error = failure(() => parse(sendBody, { to: 'a@example.org', subject: 'Hi' }));
    expect(error.status).toBe(422);
    expect(error.options.errors).toEqual([
      {
        field: 'template',
        message: 'Either template or both subject and body are required',
        code: 'custom',
      },
    ]);
    expect(parse(sendBody, { to: 'a@example.org', template: 't1' }).template).toBe('t1');
  });

  it('limits the subject to 998 characters without line breaks', () => {
    parse(sendBody, { ...base, subject: 'x'.repeat(998) });
    expect(fields(() => parse(sendBody, { ...base, subject: 'x'.repeat(999) }))).toEqual([
      'subject',
    ]);
    expect(fields(() => parse(sendBody, { ...base, subject: 'a\r\nBcc: x@y.z' }))).toEqual([
      'subject',
    ]);
  });

  it('refuses header injection and long header values', () => {
    parse(sendBody, { ...base, headers: { 'X-Ok': 'v'.repeat(998) } });
    expect(
      failure(() => parse(sendBody, { ...base, headers: { 'X-Bad': 'a\r\nBcc: x@y.z' } })).status,
    ).toBe(422);
    expect(failure(() => parse(sendBody, { ...base, headers: { 'X\nBad': 'a' } })).status).toBe(
      422,
    );
    expect(failure(() => parse(sendBody, { ...base, headers: { 'X Bad:': 'a' } })).status).toBe(
      422,
    );
    expect(
      failure(() => parse(sendBody, { ...base, headers: { 'X-Long': 'v'.repeat(999) } })).status,
    ).toBe(422);
  });

  it('checks attachments: count, base64, inline contentId', () => {
    const file = { filename: 'a.txt', content: 'aGVsbG8=', contentType: 'text/plain' };
    parse(sendBody, { ...base, attachments: [file] });
    expect(
      failure(() => parse(sendBody, { ...base, attachments: Array(11).fill(file) })).status,
    ).toBe(422);
    expect(
      fields(() => parse(sendBody, { ...base, attachments: [{ ...file, content: '***' }] })),
    ).toEqual(['attachments.0.content']);
    expect(
      fields(() => parse(sendBody, { ...base, attachments: [{ ...file, disposition: 'inline' }] })),
    ).toEqual(['attachments.0.contentId']);
    expect(
      fields(() => parse(sendBody, { ...base, attachments: [{ ...file, filename: '' }] })),
    ).toEqual(['attachments.0.filename']);
  });
});

describe('send decisions', () => {
  const template = {
    id: 't1',
    subject: 'T subject',
    body: 'T body',
    type: 'MARKETING' as const,
    from: 'news@example.test',
    fromName: 'News',
    replyTo: 'reply@example.test',
  };

  it('lets explicit fields override the template', () => {
    const body = parse(sendBody, { to: 'a@example.org', template: 't1', subject: 'Own' });
    expect(resolveMessage(body, template)).toEqual({
      subject: 'Own',
      body: 'T body',
      from: { email: 'news@example.test', name: 'News' },
      replyTo: 'reply@example.test',
      templateId: 't1',
      marketing: true,
    });
  });

  it('uses the deprecated name only when from has none', () => {
    const named = parse(sendBody, { ...base, from: { name: 'Me', email: 'me@example.test' } });
    expect(resolveMessage({ ...named, name: 'Old' }, null).from).toEqual({
      name: 'Me',
      email: 'me@example.test',
    });
    expect(resolveMessage({ ...parse(sendBody, base), name: 'Old' }, null).from).toEqual({
      name: 'Old',
      email: 'me@example.test',
    });
  });

  it('requires a from when the template has none', () => {
    const body = parse(sendBody, { to: 'a@example.org', template: 't1' });
    expect(fields(() => resolveMessage(body, { ...template, from: undefined }))).toEqual(['from']);
  });

  it('splits persistent and send-only data and stores the recipient name', () => {
    expect(
      splitData(
        { plan: 'pro', gone: null, once: { value: 'x', persistent: false }, kept: { value: 2 } },
        { name: 'Ann', email: 'a@example.org' },
      ),
    ).toEqual({
      persistent: { plan: 'pro', gone: null, kept: 2, name: 'Ann' },
      transient: { once: 'x' },
    });
  });

  it('limits attachment bytes (422) and the whole message (413)', () => {
    const content = Buffer.alloc(3000).toString('base64');
    const body = parse(sendBody, {
      ...base,
      attachments: [{ filename: 'a.bin', content, contentType: 'application/octet-stream' }],
    });
    const resolved = { subject: 'Hi', body: 'x' };
    expect(
      checkSize(body, resolved, { attachmentBytes: 3000, messageBytes: 10_000 }),
    ).toBeGreaterThan(4000);
    expect(
      fields(() => checkSize(body, resolved, { attachmentBytes: 2999, messageBytes: 10_000 })),
    ).toEqual(['attachments']);
    const tooBig = failure(() =>
      checkSize(body, resolved, { attachmentBytes: 3000, messageBytes: 4000 }),
    );
    expect([tooBig.status, tooBig.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('refuses marketing mail to unsubscribed contacts with 400', () => {
    assertMayReceive(false, { email: 'a@example.org', subscribed: false });
    assertMayReceive(true, { email: 'a@example.org', subscribed: true });
    expect(
      failure(() => {
        assertMayReceive(true, { email: 'a@x.org', subscribed: false });
      }).status,
    ).toBe(400);
  });

  it('adds one-click unsubscribe headers to marketing mail', () => {
    expect(emailHeaders({ 'X-A': '1' }, true, 'https://s/unsubscribe/c')).toEqual({
      'X-A': '1',
      'List-Unsubscribe': '<https://s/unsubscribe/c>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    expect(emailHeaders(undefined, false, 'u')).toEqual({});
  });
});
