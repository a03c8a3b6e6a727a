/** Lifecycle of the domains service: start() schedules the re-check job, which verifies. */
import { randomBytes } from 'node:crypto';

import { DnsResolver, Secrets, createLogger, openEmbeddedPlatform } from '@stamp/platform';
import { startDnsServer } from '@stamp/testkit/dns-server.ts';
import cron from 'node-cron';

import { createDomainsService } from './index.ts';
import { createDomainCommands } from './domains/commands.ts';

const recheckTasks = (): string[] =>
  [...cron.getTasks().values()]
    .filter((task) => task.name === 'domains-recheck')
    .map((task) => task.getPattern());

it('start() schedules the 5-minute re-check, the job verifies pending domains, stop() ends it', async () => {
  const logger = createLogger({ level: 'silent' });
  const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
  const dns = await startDnsServer();
  const resolver = new DnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 1 });
  const secrets = new Secrets(randomBytes(32));
  const make = (recheckCron?: string): ReturnType<typeof createDomainsService> => {
    const service: ReturnType<typeof createDomainsService> = createDomainsService({
      store: platform.store,
      bus: platform.bus,
      views: platform.views,
      logger,
      resolver,
      secrets,
      awaitViews: async (position) => {
        for (const projection of service.projections?.() ?? [])
          await projection.waitFor(position, 2000);
      },
      options: recheckCron === undefined ? {} : { recheckCron },
    });
    return service;
  };
  try {
    const standard = make();
    await standard.start();
    expect(recheckTasks()).toEqual(['*/5 * * * *']);
    await standard.stop();
    expect(recheckTasks()).toEqual([]);

    // Every second, so the test sees the scheduled job run.
    const fast = make('* * * * * *');
    await fast.start();
    const commands = createDomainCommands({
      store: platform.store,
      resolver,
      config: {
        returnPathSubdomain: 'bounce',
        spfInclude: 'spf.stamp.localhost',
        mxHost: 'feedback.stamp.localhost',
      },
      secrets,
    });
    const { state } = await commands.add('p1', 'cron.example', 'test');
    const dkim = state.records.find((record) => record.purpose === 'DKIM')!;
    dns.set(dkim.name, { TXT: [dkim.value] });
    const deadline = Date.now() + 5000;
    let sender = await fast.api.senderDomain('p1', 'x@cron.example');
    while (sender?.verified !== true && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      sender = await fast.api.senderDomain('p1', 'x@cron.example');
    }
    expect(sender?.verified).toBe(true);
    await fast.stop();
    expect(recheckTasks()).toEqual([]);
  } finally {
    await dns.close();
    await platform.close();
  }
});
