/**
 * End to end: a MARKETING email from the sandbox sender carries a signed RFC 8058 one-click
 * unsubscribe link; POSTing it without an API key unsubscribes the contact; a forged link is 404.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { ConfigError } from '@stamp/platform';

import type { Stamp } from './app.ts';
import { readConfig } from './config.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
const sandboxFrom = 'hello@sandbox.stamp.localhost';

interface Captured {
  raw: string;
}

/** Unfolds the header block of a raw message and returns the value of header `name`. */
function header(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const prefix = `${name.toLowerCase()}:`;
  const line = unfolded.split(/\r?\n/).find((item) => item.toLowerCase().startsWith(prefix));
  return line?.slice(prefix.length).trim();
}

/** Sends and waits until the message is in the local outbox; returns its raw text. */
async function sendAndCapture(stamp: Stamp, body: unknown): Promise<string> {
  const sent = await call(stamp.url, sk, 'POST', '/v1/send', body);
  expect(sent.status).toBe(200);
  const emailId = (sent.body as { data: { emails: { email: string }[] } }).data.emails[0]?.email;
  let captured = { status: 0, body: undefined as unknown };
  for (let attempt = 0; attempt < 200 && captured.status !== 200; attempt++) {
    captured = await call(stamp.url, sk, 'GET', `/outbox/${emailId ?? ''}`);
    if (captured.status !== 200) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(captured.status).toBe(200);
  return (captured.body as Captured).raw;
}

/** A form POST without any key or cookie, as a mailbox provider sends it (RFC 8058). */
const oneClick = (url: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });

describe('signed subscription links', () => {
  let stamp: Stamp;
  let contactId: string;
  let unsubscribeUrl: string;
  let raw: string;

  beforeAll(async () => {
    stamp = await startTestStamp({ STAMP_PUBLIC_URL: 'http://stamp.test/' });
    const contact = await call(stamp.url, sk, 'POST', '/contacts', {
      email: 'reader@example.org',
      subscribed: true,
    });
    expect(contact.status).toBe(201);
    contactId = (contact.body as { id: string }).id;
    const template = await call(stamp.url, sk, 'POST', '/templates', {
      name: 'Newsletter',
      type: 'MARKETING',
      from: sandboxFrom,
      subject: 'News',
      body: '<p>News</p><a id="u" href="{{ unsubscribeUrl }}">unsubscribe</a>',
    });
    expect(template.status).toBe(201);
    raw = await sendAndCapture(stamp, {
      to: 'reader@example.org',
      template: (template.body as { id: string }).id,
    });
    const listUnsubscribe = header(raw, 'List-Unsubscribe') ?? '';
    const match = /^<(http:\/\/stamp\.test\/unsubscribe\/[A-Za-z0-9_.%-]+)>$/.exec(listUnsubscribe);
    if (match?.[1] === undefined) throw new Error(`unexpected List-Unsubscribe ${listUnsubscribe}`);
    unsubscribeUrl = match[1];
  });

  afterAll(async () => {
    await stamp.close();
  });

  /** The link's path on the running server (the public URL is not where the test listens). */
  const local = (url: string): string => url.replace('http://stamp.test', stamp.url);

  it('marks marketing mail for one-click unsubscribe with a signed link, not the contact id', () => {
    expect(header(raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(unsubscribeUrl).not.toContain(contactId);
  });

  it('renders {{ unsubscribeUrl }} as the same URL as the header', () => {
    // The HTML part is quoted-printable: undo soft line breaks and `=3D` before searching.
    const decoded = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    expect(decoded).toContain(`href="${unsubscribeUrl}"`);
  });

  it('shows a confirmation page on GET without changing anything', async () => {
    const page = await fetch(local(unsubscribeUrl));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('Unsubscribe reader@example.org?');
    expect(html).toContain('<form method="post"');
    const contact = await call(stamp.url, sk, 'GET', `/contacts/${contactId}`);
    expect(contact.body).toMatchObject({ subscribed: true });
  });

  it('unsubscribes with a one-click POST that carries no API key', async () => {
    const response = await oneClick(local(unsubscribeUrl));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('reader@example.org is unsubscribed');
    const contact = await call(stamp.url, sk, 'GET', `/contacts/${contactId}`);
    expect(contact.status).toBe(200);
    expect(contact.body).toMatchObject({ subscribed: false });
    // A second click is fine and changes nothing.
    expect((await oneClick(local(unsubscribeUrl))).status).toBe(200);
  });

  it('resubscribes and shows the state on the manage page', async () => {
    const subscribeUrl = local(unsubscribeUrl.replace('/unsubscribe/', '/subscribe/'));
    const manageUrl = local(unsubscribeUrl.replace('/unsubscribe/', '/manage/'));
    expect(await (await fetch(manageUrl)).text()).toContain('reader@example.org is unsubscribed');
    expect((await fetch(subscribeUrl, { method: 'POST' })).status).toBe(200);
    expect(await (await fetch(manageUrl)).text()).toContain('reader@example.org is subscribed');
    const contact = await call(stamp.url, sk, 'GET', `/contacts/${contactId}`);
    expect(contact.body).toMatchObject({ subscribed: true });
  });

  it('answers a forged token with a 404 HTML page and changes nothing', async () => {
    const at = unsubscribeUrl.length - 5;
    const changed = unsubscribeUrl.charAt(at) === 'A' ? 'B' : 'A';
    const forged = unsubscribeUrl.slice(0, at) + changed + unsubscribeUrl.slice(at + 1);
    for (const url of [forged, `${stamp.url}/unsubscribe/${contactId}`]) {
      const response = await oneClick(local(url));
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect((await fetch(local(url))).status).toBe(404);
    }
    const contact = await call(stamp.url, sk, 'GET', `/contacts/${contactId}`);
    expect(contact.body).toMatchObject({ subscribed: true });
  });

  it('answers 404 once the contact is deleted', async () => {
    expect((await call(stamp.url, sk, 'DELETE', `/contacts/${contactId}`)).status).toBe(204);
    expect((await oneClick(local(unsubscribeUrl))).status).toBe(404);
    expect((await fetch(local(unsubscribeUrl))).status).toBe(404);
  });
});

describe('the platform secret', () => {
  it('refuses a STAMP_SECRET shorter than 32 characters', () => {
    expect(() => readConfig({ STAMP_SECRET: 'too-short' })).toThrow(ConfigError);
    expect(() => readConfig({ STAMP_SECRET: 'too-short' })).toThrow(/STAMP_SECRET/);
  });

  it('is generated into the data folder (0600) when unset, and not when STAMP_SECRET is set', async () => {
    const generated = await startTestStamp();
    const given = await startTestStamp({ STAMP_SECRET: 's'.repeat(32) });
    try {
      const file = join(generated.dataDir, 'secret.key');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(file).size).toBe(32);
      expect(existsSync(join(given.dataDir, 'secret.key'))).toBe(false);
    } finally {
      await generated.close();
      await given.close();
    }
  });
});
