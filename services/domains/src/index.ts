/**
 * The domains service: sender domains with their DKIM keys and DNS records (spec part 4
 * "Domains"). Wire with {@link createDomainsService}.
 */

import type { DomainsApi, SenderDomain } from '@stamp/contracts';
import type { ServiceDeps, ServiceModule } from '@stamp/http-kit';
import { type Consumer, newId, type Resolver, type Secrets } from '@stamp/platform';
import cron, { type ScheduledTask } from 'node-cron';

import { domainsRouter } from './domains/api.ts';
import { createDomainCommands } from './domains/commands.ts';
import type { RecordsConfig } from './domains/decide.ts';
import { DOMAIN_CATEGORY } from './domains/events.ts';
import { DKIM_PURPOSE } from './domains/keys.ts';
import { DOMAINS_VIEW_GROUP, domainsProjection } from './domains/projection.ts';
import { DOMAINS_VIEW } from './domains/views.ts';
import { LIVE, domainsView } from './domains/views.ts';

export type { DomainResource } from './domains/views.ts';
export type { DnsRecord, DomainStatus } from './domains/events.ts';

/** Options of the domains service; every one has a default. */
export interface DomainsOptions {
  /** Label of the return-path subdomain carrying SPF and MX (default `bounce`). */
  returnPathSubdomain?: string;
  /** Host the SPF record includes (default `spf.stamp.localhost`). */
  spfInclude?: string;
  /** MX host of the return path (default `feedback.stamp.localhost`). */
  mxHost?: string;
  /** Cron expression of the background re-check (default every 5 minutes, `*\/5 * * * *`). */
  recheckCron?: string;
}

/** Dependencies of {@link createDomainsService}. */
export interface DomainsServiceDeps extends ServiceDeps {
  resolver: Resolver;
  /**
   * The platform secret: DKIM private keys are sealed with it (purpose `dkim`) in the event log
   * and the `domains` view, and opened by `senderDomain`. Changing it makes existing keys
   * unreadable.
   */
  secrets: Secrets;
  options?: DomainsOptions;
}

/** The domains service's in-process API: {@link DomainsApi} plus the re-check. */
export interface DomainsServiceApi extends DomainsApi {
  /**
   * Checks every PENDING or FAILED domain in DNS now, recording changed outcomes (the cron job
   * calls it). Resolves to the number of domains checked; one domain's failure is logged, not
   * thrown.
   */
  checkPending(): Promise<number>;
}

const RECHECK_CONCURRENCY = 4;

/**
 * Creates the domains service. `start()` starts the `domains-view` projection and the re-check
 * cron job; `stop()` stops both; `router` holds the public routes.
 */
export function createDomainsService(
  deps: DomainsServiceDeps,
): ServiceModule & { api: DomainsServiceApi } {
  const config: RecordsConfig = {
    returnPathSubdomain: deps.options?.returnPathSubdomain ?? 'bounce',
    spfInclude: deps.options?.spfInclude ?? 'spf.stamp.localhost',
    mxHost: deps.options?.mxHost ?? 'feedback.stamp.localhost',
  };
  const logger = deps.logger.child({ service: 'domains' });
  const commands = createDomainCommands({
    store: deps.store,
    resolver: deps.resolver,
    config,
    secrets: deps.secrets,
  });

  /**
   * The PEM of a recorded private key: opens a sealed key; a PEM recorded before keys were
   * sealed is used as is.
   * @throws Error when the key cannot be opened (the platform secret changed, or tampering).
   */
  function openPrivateKey(domainId: string, recorded: string): string {
    if (recorded.startsWith('-----BEGIN')) return recorded;
    try {
      return deps.secrets.open(DKIM_PURPOSE, recorded);
    } catch (error) {
      logger.error(
        { err: error, domainId },
        'cannot open the DKIM private key: was the platform secret (STAMP_SECRET or secret.key) changed?',
      );
      throw error;
    }
  }
  const collection = domainsView(deps.views);
  // Opened private keys by sealed value: sending asks for the key of every email.
  const openedKeys = new Map<string, string>();
  const privateKeyOf = (domainId: string, sealed: string): string => {
    let key = openedKeys.get(sealed);
    if (key === undefined) {
      key = openPrivateKey(domainId, sealed);
      if (openedKeys.size >= 1000) openedKeys.clear();
      openedKeys.set(sealed, key);
    }
    return key;
  };
  let consumer: Consumer | undefined;
  let task: ScheduledTask | undefined;

  const api: DomainsServiceApi = {
    async senderDomain(projectId: string, address: string): Promise<SenderDomain | null> {
      const at = address.lastIndexOf('@');
      const domain = address
        .slice(at + 1)
        .replace(/>\s*$/, '')
        .trim()
        .toLowerCase()
        .replace(/\.$/, '');
      if (at === -1 || domain === '') return null;
      const found = await collection.findOne({ projectId, domain, ...LIVE });
      if (found?.privateKey === undefined) return null;
      return {
        domain: found.domain,
        verified: found.verified,
        returnPath: `${config.returnPathSubdomain}.${found.domain}`,
        dkim: {
          domainName: found.domain,
          keySelector: found.selector,
          privateKey: privateKeyOf(found._id, found.privateKey),
        },
      };
    },

    async receivingDomain(domain: string): Promise<{ projectId: string } | null> {
      const name = domain.trim().toLowerCase().replace(/\.$/, '');
      const found = await collection.findOne({ domain: name, verified: true, ...LIVE });
      return found === null ? null : { projectId: found.projectId };
    },

    async checkPending(): Promise<number> {
      const pending = await collection.find(
        { status: { $in: ['PENDING', 'FAILED'] }, ...LIVE },
        { sort: { _id: 1 } },
      );
      const correlationId = newId();
      let checked = 0;
      let next = 0;
      let position = 0;
      const worker = async (): Promise<void> => {
        for (let item = pending[next++]; item !== undefined; item = pending[next++]) {
          try {
            const result = await commands.verify(item.projectId, item._id, correlationId, false);
            position = Math.max(position, result.position);
            checked++;
          } catch (error) {
            logger.warn({ err: error, domainId: item._id }, 'domain re-check failed');
          }
        }
      };
      await Promise.all(Array.from({ length: RECHECK_CONCURRENCY }, worker));
      await deps.awaitViews(position);
      return checked;
    },
  };

  return {
    name: 'domains',
    views: [{ groupId: DOMAINS_VIEW_GROUP, collections: [DOMAINS_VIEW] }],
    router: domainsRouter({ commands, views: deps.views, awaitViews: deps.awaitViews }),
    api,
    async start() {
      await collection.createIndex({ projectId: 1 });
      consumer ??= deps.bus.consume({
        groupId: DOMAINS_VIEW_GROUP,
        topics: [DOMAIN_CATEGORY],
        handle: domainsProjection(deps.views),
      });
      task ??= cron.schedule(
        deps.options?.recheckCron ?? '*/5 * * * *',
        async () => {
          const checked = await api.checkPending();
          logger.debug({ checked }, 'pending domains re-checked');
        },
        { name: 'domains-recheck', noOverlap: true },
      );
    },
    async stop() {
      const running = task;
      task = undefined;
      await running?.destroy();
      const active = consumer;
      consumer = undefined;
      await active?.stop();
    },
    projections() {
      return consumer === undefined ? [] : [consumer];
    },
  };
}
