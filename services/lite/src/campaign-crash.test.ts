import { eventually } from '@stamp/testkit/eventually.ts';
import type { SmtpSink } from '@stamp/testkit/smtp-sink.ts';

import { call, crashRig, TEST_KEYS } from './testing.ts';

const RECIPIENTS = 3000;

/** Recipient address of each campaign message in the sink. */
function recipientsOf(sink: SmtpSink): string[] {
  return sink.messages
    .map((message) => message.raw.toString('utf8'))
    .filter((raw) => /^Subject: Crash news/m.test(raw))
    .map((raw) => /^To: (\S+)/m.exec(raw)?.[1] ?? '');
}

/** How long and how often the test waits for a step of the campaign (ms). */
const PATIENCE = { timeoutMs: 60_000, intervalMs: 100 };

describe('crash safety of a campaign (kill -9 while it sends)', () => {
  const rig = crashRig('stamp-campaign-crash-', { STAMP_CAMPAIGN_RATE_PER_SECOND: '1000' });

  it('gives every audience member exactly one email after a restart (at most one duplicate)', async () => {
    const { url, sink } = rig;
    const sk = TEST_KEYS.secretKey;
    await rig.start();
    await rig.verifyDomain('crash.test');

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
    await rig.stop('SIGKILL');
    const deliveredBeforeRestart = recipientsOf(sink).length;
    expect(deliveredBeforeRestart).toBeLessThan(RECIPIENTS);

    await rig.start();
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

    await rig.stop('SIGTERM');
  }, 240_000);
});
