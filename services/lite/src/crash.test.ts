import type { SmtpSink } from '@stamp/testkit/smtp-sink.ts';

import { call, crashRig, TEST_KEYS } from './testing.ts';

function emailIdsOf(sink: SmtpSink): string[] {
  return sink.messages.map(
    (message) => /^X-Stamp-Email-Id:\s*(\S+)/im.exec(message.raw.toString('utf8'))?.[1] ?? '',
  );
}

describe('crash safety of accepted email (kill -9 with 1,000 sends in flight)', () => {
  const rig = crashRig('stamp-crash-');

  it('delivers every accepted email exactly once after a restart (at most one duplicate)', async () => {
    const { url, sink } = rig;
    const sk = TEST_KEYS.secretKey;
    await rig.start();
    await rig.verifyDomain('crash.test');

    const accepted = new Set<string>();
    let next = 0;
    let killed = false;
    const sender = async (): Promise<void> => {
      while (next < 1000 && !killed) {
        const index = next++;
        try {
          const response = await call(url, sk, 'POST', '/v1/send', {
            to: `user${index}@example.org`,
            subject: `Message ${index}`,
            body: `<p>Number ${index}</p>`,
            from: 'ops@crash.test',
          });
          if (response.status === 200) {
            const id = (response.body as { data: { emails: { email: string }[] } }).data.emails[0]!
              .email;
            accepted.add(id);
          }
        } catch {
          // the process was killed under this request: it was never acknowledged
        }
      }
    };
    const senders = Array.from({ length: 32 }, sender);
    while (!killed) {
      if (accepted.size >= 600 && sink.messages.length >= 100) {
        killed = true;
        await rig.stop('SIGKILL');
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(senders);
    const deliveredBeforeRestart = sink.messages.length;
    expect(deliveredBeforeRestart).toBeLessThan(accepted.size);

    await rig.start();
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && [...accepted].some((id) => !emailIdsOf(sink).includes(id))) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const delivered = emailIdsOf(sink);
    const counts = new Map<string, number>();
    for (const id of delivered) counts.set(id, (counts.get(id) ?? 0) + 1);
    const missing = [...accepted].filter((id) => !counts.has(id));
    const duplicates = [...counts.values()].filter((count) => count > 1).length;
    expect(missing).toEqual([]);
    expect(duplicates).toBeLessThanOrEqual(1);
    await rig.stop('SIGTERM');
  });
});
