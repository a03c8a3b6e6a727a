/**
 * Open and click tracking over real sockets (API reference, "Open and click tracking"): a
 * campaign delivered to a real SMTP sink (sender domain verified through a real DNS server)
 * carries the open pixel and tracked links; fetching them records opens and clicks, a person's
 * and automated ones apart, which move the email's status and are seen in the campaign's stats,
 * the activity feed and a segment on `email.click`. Forged tokens are 404 and redirect nowhere;
 * the subscription links are not rewritten; MARKETING_ONLY leaves transactional email alone.
 */
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { eventually } from '@stamp/testkit/eventually.ts';
import { parseMessage, type SmtpSink, startSmtpSink } from '@stamp/testkit/smtp-sink.ts';

import type { Stamp } from './app.ts';
import { addVerifiedDomain, call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
const PUBLIC_URL = 'http://stamp.test';
const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

let dns: TestDnsServer;
let sink: SmtpSink;

beforeAll(async () => {
  dns = await startDnsServer({});
  sink = await startSmtpSink();
});

afterAll(async () => {
  await sink.close();
  await dns.close();
});

/** Starts Stamp with the sink as relay and `domain` verified through the DNS server. */
async function startWithDomain(domain: string, env: Record<string, string> = {}): Promise<Stamp> {
  const stamp = await startTestStamp({
    STAMP_SMTP_URL: sink.url,
    STAMP_DNS_SERVERS: dns.address,
    STAMP_PUBLIC_URL: PUBLIC_URL,
    ...env,
  });
  await addVerifiedDomain(stamp.url, dns, domain);
  return stamp;
}

/** The HTML of the sink's message to `to` whose subject is `subject`. */
async function htmlOf(to: string, subject: string): Promise<string> {
  const raw = await eventually(`the message to ${to}`, () =>
    Promise.resolve(
      sink.messages
        .map((message) => message.raw)
        .find((message) => {
          const text = message.toString('utf8');
          return text.includes(`Subject: ${subject}`) && text.includes(`To: ${to}`);
        }),
    ),
  );
  const parsed = await parseMessage(raw);
  return typeof parsed.html === 'string' ? parsed.html : '';
}

/** The tracked URLs of `html` under the public URL, as URLs of the running Stamp. */
function trackedUrls(stamp: Stamp, html: string): { pixel: string; links: string[] } {
  const local = (url: string) => url.replace(PUBLIC_URL, stamp.url);
  const pixel = /<img src="(http:\/\/stamp\.test\/t\/o\/[^"]+)"/.exec(html)?.[1];
  const links = [...html.matchAll(/href="(http:\/\/stamp\.test\/t\/c\/[^"]+)"/g)].map((match) =>
    local(match[1] ?? ''),
  );
  return { pixel: pixel === undefined ? '' : local(pixel), links };
}

const fetchAs = (url: string, userAgent: string, method = 'GET'): Promise<Response> =>
  fetch(url, { method, redirect: 'manual', headers: { 'user-agent': userAgent } });

describe('open and click tracking of a campaign', () => {
  let stamp: Stamp;

  beforeAll(async () => {
    stamp = await startWithDomain('tracking.test');
  }, 60_000);

  afterAll(async () => {
    await stamp.close();
  });

  const api = (method: string, path: string, body?: unknown) =>
    call(stamp.url, sk, method, path, body);

  it('records a person apart from scanners and proxies, in status, stats, activity and segments', async () => {
    for (const email of ['ada@example.org', 'alan@example.org']) {
      expect((await api('POST', '/contacts', { email, subscribed: true })).status).toBe(201);
    }
    const segment = (
      await api('POST', '/segments', {
        name: 'Clickers',
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'email.click', operator: 'triggered' }] }],
        },
      })
    ).body as { id: string };
    // A workflow started by every open of a person (re-entry on), never by an automated one.
    const workflow = (
      await api('POST', '/workflows', {
        name: 'Opened',
        eventName: 'email.open',
        allowReentry: true,
      })
    ).body as { id: string; steps: { id: string }[] };
    const exit = (
      await api('POST', `/workflows/${workflow.id}/steps`, {
        type: 'EXIT',
        config: { reason: 'opened' },
      })
    ).body as { id: string };
    await api('POST', `/workflows/${workflow.id}/transitions`, {
      fromStepId: workflow.steps[0]?.id,
      toStepId: exit.id,
    });
    expect((await api('PATCH', `/workflows/${workflow.id}`, { enabled: true })).status).toBe(200);
    const created = await api('POST', '/campaigns', {
      name: 'Launch',
      subject: 'Launch day',
      body:
        '<html><body><p>It is here: <a href="https://shop.example/launch?ref=mail&amp;x=1">shop</a>' +
        ' and <a href="https://blog.example/launch">read</a>.</p>' +
        '<p><a href="{{ unsubscribeUrl }}">unsubscribe</a></p></body></html>',
      from: 'news@tracking.test',
      audienceType: 'ALL',
    });
    const campaignId = (created.body as { data: { id: string } }).data.id;
    expect((await api('POST', `/campaigns/${campaignId}/send`, {})).status).toBe(200);

    const html = await htmlOf('ada@example.org', 'Launch day');
    const { pixel, links } = trackedUrls(stamp, html);
    expect(links).toHaveLength(2);
    expect(pixel).not.toBe('');
    // The unsubscribe link is the contact's signed link, not a tracked one.
    expect(html).toMatch(/href="http:\/\/stamp\.test\/unsubscribe\/[^"]+"/);
    const emails = (await api('GET', `/campaigns/${campaignId}/stats`)).body as { sent: number };
    expect(emails.sent).toBe(2);
    const emailId = /\/t\/o\/([^.]+)/.exec(pixel)?.[1];
    const id = Buffer.from(emailId ?? '', 'base64url').toString('utf8');
    const sentAt = Date.parse(
      await eventually('the delivery outcome', async () => {
        const email = (await api('GET', `/emails/${id}`)).body as { sentAt: string | null };
        return email.sentAt ?? undefined;
      }),
    );

    // A link scanner follows both links on arrival: redirected, recorded as automated.
    const [shop, blog] = links as [string, string];
    const scanned = await fetchAs(shop, BROWSER);
    expect(scanned.status).toBe(302);
    expect(scanned.headers.get('location')).toBe('https://shop.example/launch?ref=mail&x=1');
    expect((await fetchAs(blog, 'python-requests/2.32.3')).status).toBe(302);
    // Apple's privacy proxy loads the pixel; then a person opens it in a browser.
    const proxied = await fetchAs(pixel, 'Mozilla/5.0');
    expect(proxied.status).toBe(200);
    expect(proxied.headers.get('content-type')).toBe('image/gif');
    expect(proxied.headers.get('cache-control')).toContain('no-store');
    expect(
      Buffer.from(await proxied.arrayBuffer())
        .subarray(0, 6)
        .toString('latin1'),
    ).toBe('GIF89a');
    expect((await fetchAs(pixel, BROWSER)).status).toBe(200);
    // The opens came after the scanner's clicks: the status stays CLICKED (never downgraded).
    const afterOpens = await eventually('both opens counted', async () => {
      const found = (await api('GET', `/emails/${id}`)).body as {
        status: string;
        opens: { human: number; automated: number };
      };
      return found.opens.human + found.opens.automated === 2 ? found : undefined;
    });
    expect(afterOpens.status).toBe('CLICKED');
    // The person's open started the workflow once; the proxy's open (before it) did not.
    // Started by the open, it ends once its steps ran: wait for its end, not only its start.
    const executions = await eventually('the execution of the open to end', async () => {
      const page = (await api('GET', `/workflows/${workflow.id}/executions`)).body as {
        data: { status: string; context: Record<string, unknown> }[];
      };
      return page.data.length > 0 && page.data.every(({ status }) => status !== 'RUNNING')
        ? page.data
        : undefined;
    });
    expect(executions).toHaveLength(1);
    expect(executions[0]?.status).toBe('EXITED');

    // Forged or foreign tokens: 404, redirected nowhere.
    const [payload, mac] = (shop.split('/t/c/')[1] ?? '').split('.') as [string, string];
    const evil = Buffer.from(JSON.stringify([id, 'https://evil.example/'])).toString('base64url');
    for (const url of [
      `${stamp.url}/t/c/${evil}.${mac}`,
      `${stamp.url}/t/c/${payload}.${mac.slice(0, -3)}xyz`,
      `${stamp.url}/t/o/${payload}.${mac}`,
      `${stamp.url}/t/c/%E0%A4%A`,
      `${stamp.url}/t/o/nothing`,
    ]) {
      const refused = await fetchAs(url, BROWSER);
      expect(refused.status).toBe(404);
      expect(refused.headers.get('location')).toBeNull();
    }

    // The person clicks once the scanner window has passed.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, sentAt + 10_500 - Date.now())));
    expect((await fetchAs(shop, BROWSER)).headers.get('location')).toBe(
      'https://shop.example/launch?ref=mail&x=1',
    );

    const email = await eventually('the click in the email status', async () => {
      const found = (await api('GET', `/emails/${id}`)).body as {
        status: string;
        opens: { human: number; automated: number };
        clicks: { human: number; automated: number };
      };
      return found.clicks.human === 1 ? found : undefined;
    });
    expect(email).toMatchObject({
      status: 'CLICKED',
      opens: { human: 1, automated: 1 },
      clicks: { human: 1, automated: 2 },
    });

    const stats = (await api('GET', `/campaigns/${campaignId}/stats`)).body;
    expect(stats).toMatchObject({
      sent: 2,
      delivered: 2,
      opened: 1,
      clicked: 1,
      opens: {
        unique: 1,
        total: 2,
        human: { unique: 1, total: 1 },
        automated: { unique: 1, total: 1 },
      },
      clicks: {
        unique: 1,
        total: 3,
        human: { unique: 1, total: 1 },
        automated: { unique: 1, total: 2 },
      },
      rates: { open: 0.5, click: 0.5 },
    });

    const activity = await eventually('the clicks in the feed', async () => {
      const page = (await api('GET', '/activity?type=email.clicked&limit=100')).body as {
        data: { emailId?: string; data: Record<string, unknown> }[];
      };
      return page.data.length === 3 ? page.data : undefined;
    });
    expect(activity.every((item) => item.emailId === id)).toBe(true);
    expect(activity.map((item) => item.data.automatedReason ?? 'person').sort()).toEqual([
      'bot-user-agent',
      'person',
      'soon-after-delivery',
    ]);
    const opened = (await api('GET', '/activity?type=email.opened&limit=100')).body as {
      data: { data: Record<string, unknown> }[];
    };
    expect(opened.data.map((item) => item.data.automated).sort()).toEqual([false, true]);

    // Only the person's click is engagement: Ada is in the segment, Alan (never clicked) is not.
    const members = await eventually('the clicker in the segment', async () => {
      const page = (await api('GET', `/segments/${segment.id}/contacts`)).body as {
        data: { email: string }[];
      };
      return page.data.length > 0 ? page.data : undefined;
    });
    expect(members.map((member) => member.email)).toEqual(['ada@example.org']);
  }, 60_000);
});

describe('tracking mode MARKETING_ONLY', () => {
  let stamp: Stamp;

  beforeAll(async () => {
    stamp = await startWithDomain('modes.test', { STAMP_TRACKING: 'MARKETING_ONLY' });
  }, 60_000);

  afterAll(async () => {
    await stamp.close();
  });

  it('tracks a MARKETING template and leaves transactional email as written', async () => {
    const body = '<p>See <a href="https://docs.example/">the docs</a></p>';
    for (const type of ['TRANSACTIONAL', 'MARKETING']) {
      const template = (
        await call(stamp.url, sk, 'POST', '/templates', {
          name: type,
          subject: `Mode ${type}`,
          body,
          type,
          from: 'hello@modes.test',
        })
      ).body as { id: string };
      const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
        to: 'reader@example.org',
        template: template.id,
        subscribed: true,
      });
      expect(sent.status).toBe(200);
    }
    const transactional = await htmlOf('reader@example.org', 'Mode TRANSACTIONAL');
    expect(transactional).toContain('<a href="https://docs.example/">the docs</a>');
    expect(transactional).not.toContain('/t/o/');
    const marketing = await htmlOf('reader@example.org', 'Mode MARKETING');
    expect(trackedUrls(stamp, marketing).links).toHaveLength(1);
    expect(marketing).toContain('/t/o/');
  }, 60_000);
});
