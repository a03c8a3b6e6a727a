/**
 * Amazon SES notifications through SNS over real sockets (issue "Bounces and complaints"): Stamp
 * runs as its own process trusting a loopback HTTPS stand-in for SNS (`NODE_EXTRA_CA_CERTS`,
 * `STAMP_SNS_CERT_URL_PATTERN`), which serves the signing certificate and the subscription
 * confirmation. A signed SubscriptionConfirmation is confirmed; a signed permanent bounce and a
 * signed complaint are recorded on the emails they name; forged, unsigned, stale and foreign
 * messages are refused with 4xx and change nothing.
 */
import type { ChildProcess } from 'node:child_process';

import { eventually } from '@stamp/testkit/eventually.ts';
import { freePort } from '@stamp/testkit/net.ts';
import { type SnsHost, startSnsHost } from '@stamp/testkit/sns.ts';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { call, startProcess, stopProcess, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
let sns: SnsHost;
let child: ChildProcess;
let url: string;

const api = (method: string, path: string, body?: unknown) => call(url, sk, method, path, body);

/** Posts `message` as SNS does: JSON in a text/plain body, no API key. */
const post = (message: unknown) =>
  fetch(`${url}/webhooks/sns`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'x' },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });

beforeAll(async () => {
  sns = await startSnsHost();
  url = `http://127.0.0.1:${await freePort()}`;
  child = await startProcess(
    {
      STAMP_PORT: new URL(url).port,
      STAMP_DATA_DIR: temporaryDirectory('stamp-sns-'),
      STAMP_BOOTSTRAP_SECRET_KEY: TEST_KEYS.secretKey,
      STAMP_BOOTSTRAP_PUBLIC_KEY: TEST_KEYS.publicKey,
      STAMP_LOG_LEVEL: 'silent',
      STAMP_SNS_CERT_URL_PATTERN: `^${sns.url.replace(/\./g, '\\.')}/`,
      NODE_EXTRA_CA_CERTS: sns.caFile,
    },
    url,
  );
}, 60_000);

afterAll(async () => {
  await stopProcess(child, 'SIGTERM');
  await sns.close();
});

/** Sends one email from the sandbox sender; resolves with its id and Message-ID. */
async function sendTo(to: string): Promise<{ id: string; messageId: string }> {
  const sent = await api('POST', '/v1/send', {
    to,
    from: 'hello@sandbox.stamp.localhost',
    subject: 'Hello',
    body: '<p>Hello</p>',
    subscribed: true,
  });
  const id = (sent.body as { data: { emails: { email: string }[] } }).data.emails[0]?.email ?? '';
  const messageId = await eventually('the delivery', async () => {
    const email = (await api('GET', `/emails/${id}`)).body as { messageId: string | null };
    return email.messageId ?? undefined;
  });
  return { id, messageId };
}

const ses = (messageId: string, type: 'Bounce' | 'Complaint', to: string): string =>
  JSON.stringify({
    notificationType: type,
    mail: {
      timestamp: new Date().toISOString(),
      messageId: '0100018c-ses-id',
      source: 'hello@sandbox.stamp.localhost',
      destination: [to],
      commonHeaders: { messageId, subject: 'Hello' },
    },
    ...(type === 'Bounce'
      ? {
          bounce: {
            bounceType: 'Permanent',
            bounceSubType: 'General',
            bouncedRecipients: [
              {
                emailAddress: to,
                action: 'failed',
                status: '5.1.1',
                diagnosticCode: 'smtp; 550 5.1.1 user unknown',
              },
            ],
          },
        }
      : {
          complaint: {
            complainedRecipients: [{ emailAddress: to }],
            complaintFeedbackType: 'abuse',
            userAgent: 'ExampleISP',
          },
        }),
  });

const statusOf = async (id: string): Promise<string> =>
  ((await api('GET', `/emails/${id}`)).body as { status: string }).status;

describe('POST /webhooks/sns', () => {
  it('confirms a signed subscription', async () => {
    const answer = await post(
      sns.message({
        Type: 'SubscriptionConfirmation',
        Message: 'You have chosen to subscribe to the topic.',
        Token: 'token-1',
        SubscribeURL: `${sns.url}/confirm?Action=ConfirmSubscription&Token=token-1`,
      }),
    );
    expect(answer.status).toBe(200);
    expect(sns.confirmations).toEqual(['token-1']);
  });

  it('refuses forged, unsigned, stale and foreign messages, recording nothing', async () => {
    const { id, messageId } = await sendTo('kept@example.org');
    const genuine = sns.message({
      Type: 'Notification',
      Message: ses(messageId, 'Bounce', 'kept@example.org'),
    });
    const forged = { ...genuine, Message: ses(messageId, 'Complaint', 'kept@example.org') };
    const unsigned: Record<string, string> = { ...genuine };
    delete unsigned.Signature;
    const stale = sns.message({
      Type: 'Notification',
      Message: genuine.Message ?? '',
      Timestamp: new Date(Date.now() - 2 * 3600_000).toISOString(),
    });
    const foreign = { ...genuine, SigningCertURL: 'https://sns.evil.example/cert.pem' };
    const subscribeElsewhere = sns.message({
      Type: 'SubscriptionConfirmation',
      Message: 'x',
      Token: 'token-2',
      SubscribeURL: 'https://attacker.example/confirm',
    });
    expect((await post(forged)).status).toBe(403);
    expect((await post(unsigned)).status).toBe(422);
    expect((await post(stale)).status).toBe(403);
    expect((await post(foreign)).status).toBe(403);
    expect((await post(subscribeElsewhere)).status).toBe(403);
    expect((await post('not json')).status).toBe(400);
    expect((await post({ Type: 'Notification' })).status).toBe(422);
    expect(sns.confirmations).not.toContain('token-2');
    // Nothing was recorded: the genuine message, posted last, is the first to count.
    expect(await statusOf(id)).toBe('SENT');
    expect(((await api('GET', '/suppressions')).body as { data: unknown[] }).data).toEqual([]);
    const recorded = await post(genuine);
    expect(recorded.status).toBe(200);
    expect(await recorded.json()).toMatchObject({ recorded: true, emailId: id });
  });

  it('records a permanent bounce and a complaint, suppressing both addresses', async () => {
    const bounced = await sendTo('ses-bounce@example.org');
    const complained = await sendTo('ses-complaint@example.org');
    const bounce = sns.message(
      {
        Type: 'Notification',
        Message: ses(
          `<${bounced.messageId.replace(/^<|>$/g, '')}>`,
          'Bounce',
          'ses-bounce@example.org',
        ),
      },
      '2',
    );
    expect((await post(bounce)).status).toBe(200);
    const complaint = sns.message({
      Type: 'Notification',
      Message: ses(complained.messageId, 'Complaint', 'ses-complaint@example.org'),
    });
    expect((await post(complaint)).status).toBe(200);
    // The same notification again (SNS retries) records nothing more.
    expect((await post(complaint)).status).toBe(200);
    await eventually('the bounce', async () =>
      (await statusOf(bounced.id)) === 'BOUNCED' ? true : undefined,
    );
    await eventually('the complaint', async () =>
      (await statusOf(complained.id)) === 'COMPLAINED' ? true : undefined,
    );
    const suppressions = await eventually('both suppressions', async () => {
      const page = (await api('GET', '/suppressions')).body as {
        data: { email: string; reason: string }[];
      };
      return page.data.length >= 3 ? page.data : undefined;
    });
    expect(suppressions.map((entry) => `${entry.email} ${entry.reason}`).sort()).toEqual([
      'kept@example.org HARD_BOUNCE',
      'ses-bounce@example.org HARD_BOUNCE',
      'ses-complaint@example.org COMPLAINT',
    ]);
    const complaints = (await api('GET', '/activity?type=email.complained')).body as {
      data: { emailId?: string }[];
    };
    expect(complaints.data.filter((item) => item.emailId === complained.id)).toHaveLength(1);
  });
});
