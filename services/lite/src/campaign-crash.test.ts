import type { ChildProcess } from 'node:child_process';

import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { eventually } from '@stamp/testkit/eventually.ts';
import { freePort } from '@stamp/testkit/net.ts';
import { startSmtpSink } from '@stamp/testkit/smtp-sink.ts';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { call, startProcess, stopProcess, TEST_KEYS } from './testing.ts';

type Sink = Awaited<ReturnType<typeof startSmtpSink>>;

const RECIPIENTS = 3000;

/** Recipient address of each campaign message in the sink. */
function recipientsOf(sink: Sink): string[] {
  return sink.messages
    .map((message) => message.raw.toString('utf8'))
    .filter((raw) => /^Subject: Crash news/m.test(raw))
    .map((raw) => /^To: (\S+)/m.exec(raw)?.[1] ?? '');
}

/** How long and how often the test waits for a step of the campaign (ms). */
const PATIENCE = { timeoutMs: 60_000, intervalMs: 100 };

describe('crash safety of a campaign (kill -9 while it sends)', () => {
  let dns: TestDnsServer;
  let sink: Sink;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    dns = await startDnsServer({});
    sink = await startSmtpSink();
  });

  afterAll(async () => {
    // Its data folder goes after the test file: once the process has exited.
    if (child !== undefined) await stopProcess(child, 'SIGKILL');
    await sink.close();
    await dns.close();
  });

  it('gives every audience member exactly one email after a restart (at most one duplicate)', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      STAMP_PORT: String(port),
      STAMP_DATA_DIR: temporaryDirectory('stamp-campaign-crash-'),
      STAMP_SMTP_URL: sink.url,
      STAMP_DNS_SERVERS: dns.address,
      STAMP_BOOTSTRAP_SECRET_KEY: TEST_KEYS.secretKey,
      STAMP_BOOTSTRAP_PUBLIC_KEY: TEST_KEYS.publicKey,
      STAMP_CAMPAIGN_RATE_PER_SECOND: '1000',
      STAMP_LOG_LEVEL: 'silent',
    };
    const sk = TEST_KEYS.secretKey;
    child = await startProcess(env, url);
    const added = await call(url, sk, 'POST', '/domains', { domain: 'crash.test' });
    const dkim = (
      added.body as { id: string; records: { purpose: string; name: string; value: string }[] }
    ).records.find((record) => record.purpose === 'DKIM')!;
    dns.set(dkim.name, { TXT: [dkim.value] });
    await call(url, sk, 'GET', `/domains/${(added.body as { id: string }).id}/verify`);

    const rows = Array.from({ length: RECIPIENTS }, (_, index) => `r${index}@example.org,${index}`);
    const form = new FormData();
    const csv = `email,number\n${rows.join('\n')}\n`;
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'audience.csv');
    const imported = await fetch(`${url}/contacts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sk}` },
      body: form,
    });
    const { jobId } = (await imported.json()) as { jobId: string };
    await eventually(
      'the import',
      async () =>
        ((await call(url, sk, 'GET', `/contacts/import/${jobId}`)).body as { status: string })
          .status === 'COMPLETED' || undefined,
      PATIENCE,
    );

    const created = await call(url, sk, 'POST', '/campaigns', {
      name: 'Crash',
      subject: 'Crash news {{ number }}',
      body: '<p>Number {{ number }}</p>',
      from: 'news@crash.test',
      audienceType: 'ALL',
    });
    const campaignId = (created.body as { data: { id: string } }).data.id;
    expect((await call(url, sk, 'POST', `/campaigns/${campaignId}/send`)).status).toBe(200);
    await eventually(
      'part of the campaign delivered',
      async () => recipientsOf(sink).length >= 300 || undefined,
      PATIENCE,
    );
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    const deliveredBeforeRestart = recipientsOf(sink).length;
    expect(deliveredBeforeRestart).toBeLessThan(RECIPIENTS);

    child = await startProcess(env, url);
    await eventually(
      'the campaign sent',
      async () =>
        ((await call(url, sk, 'GET', `/campaigns/${campaignId}`)).body as { status: string })
          .status === 'SENT' || undefined,
      PATIENCE,
    );
    await eventually(
      'every delivery',
      async () => new Set(recipientsOf(sink)).size >= RECIPIENTS || undefined,
      PATIENCE,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));

    const counts = new Map<string, number>();
    for (const to of recipientsOf(sink)) counts.set(to, (counts.get(to) ?? 0) + 1);
    const missing = rows.map((row) => row.split(',')[0]!).filter((email) => !counts.has(email));
    const duplicates = [...counts.values()].filter((count) => count > 1).length;
    expect(missing).toEqual([]);
    expect(counts.size).toBe(RECIPIENTS);
    expect(duplicates).toBeLessThanOrEqual(1);
    const stats = (await call(url, sk, 'GET', `/campaigns/${campaignId}/stats`)).body;
    expect(stats).toMatchObject({ recipients: RECIPIENTS, sent: RECIPIENTS });

    child.kill('SIGTERM');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = undefined;
  }, 240_000);
});
