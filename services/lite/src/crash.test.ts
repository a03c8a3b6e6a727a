import type { ChildProcess } from 'node:child_process';

import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { freePort } from '@stamp/testkit/net.ts';
import { startSmtpSink } from '@stamp/testkit/smtp-sink.ts';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { call, startProcess, stopProcess, TEST_KEYS } from './testing.ts';

type Sink = Awaited<ReturnType<typeof startSmtpSink>>;

function emailIdsOf(sink: Sink): string[] {
  return sink.messages.map(
    (message) => /^X-Stamp-Email-Id:\s*(\S+)/im.exec(message.raw.toString('utf8'))?.[1] ?? '',
  );
}

describe('crash safety of accepted email (kill -9 with 1,000 sends in flight)', () => {
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

  it('delivers every accepted email exactly once after a restart (at most one duplicate)', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      STAMP_PORT: String(port),
      STAMP_DATA_DIR: temporaryDirectory('stamp-crash-'),
      STAMP_SMTP_URL: sink.url,
      STAMP_DNS_SERVERS: dns.address,
      STAMP_BOOTSTRAP_SECRET_KEY: TEST_KEYS.secretKey,
      STAMP_BOOTSTRAP_PUBLIC_KEY: TEST_KEYS.publicKey,
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
        child.kill('SIGKILL');
        killed = true;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(senders);
    const killedChild = child;
    if (killedChild.exitCode === null && killedChild.signalCode === null) {
      await new Promise((resolve) => killedChild.once('exit', resolve));
    }
    const deliveredBeforeRestart = sink.messages.length;
    expect(deliveredBeforeRestart).toBeLessThan(accepted.size);

    child = await startProcess(env, url);
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
    child.kill('SIGTERM');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = undefined;
  });
});
