import type { DomainsApi } from '@stamp/contracts';
import {
  createLogger,
  type EventStore,
  newId,
  openEmbeddedPlatform,
  type RecordedEvent,
  SmtpMailer,
  Secrets,
  type StreamAppend,
} from '@stamp/platform';
import { startSmtpSink } from '@stamp/testkit/smtp-sink.ts';

import { DEFAULT_RETRY } from '../deps.ts';
import { emailStream } from './events.ts';
import { handleDelivery } from './worker.ts';

const noDomains: DomainsApi = {
  senderDomain: () => Promise.resolve(null),
  receivingDomain: () => Promise.resolve(null),
};
const NO_TRACKING = {
  modeOf: () => Promise.resolve('DISABLED' as const),
  links: { publicUrl: 'http://localhost', secrets: new Secrets('x'.repeat(32)) },
};

describe('delivery worker', () => {
  it('records an accepted delivery whose first record failed, without sending it again', async () => {
    const logger = createLogger({ level: 'silent' });
    const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
    const sink = await startSmtpSink();
    const relay = new SmtpMailer({ url: sink.url });
    // The store refuses the first EmailSent append, as a full disk would.
    let refuseSent = true;
    const store: EventStore = Object.create(platform.store) as EventStore;
    store.append = (streams: readonly StreamAppend[]) => {
      if (
        refuseSent &&
        streams.some((stream) => stream.events.some((e) => e.type === 'EmailSent'))
      ) {
        refuseSent = false;
        return Promise.reject(new Error('disk full'));
      }
      return platform.store.append(streams);
    };
    const emailId = newId();
    await platform.store.append([
      {
        streamId: emailStream(emailId),
        expectedRevision: 'no_stream',
        events: [
          {
            type: 'EmailQueued',
            data: {
              emailId,
              contactId: 'c1',
              to: { email: 'ada@example.org' },
              from: { email: 'ops@example.test' },
              subject: 'Hello',
              html: '<p>Hi</p>',
              headers: {},
              attachments: [],
              sandbox: false,
            },
            metadata: { projectId: 'p1' },
          },
        ],
      },
    ]);
    const [queued] = (await platform.store.readStream(emailStream(emailId))) as [RecordedEvent];
    const deps = {
      store,
      domains: noDomains,
      logger,
      relay,
      outbox: relay,
      retry: DEFAULT_RETRY,
      tracking: NO_TRACKING,
      secrets: NO_TRACKING.links.secrets,
      suppressionOf: () => Promise.resolve(null),
      accepted: new Map(),
    };
    try {
      await expect(handleDelivery(deps, queued)).rejects.toThrow('disk full');
      expect(sink.messages).toHaveLength(1);
      // the consumer retries the same event
      await handleDelivery(deps, queued);
      expect(sink.messages).toHaveLength(1);
      const types = (await platform.store.readStream(emailStream(emailId))).map(
        (event) => event.type,
      );
      expect(types).toEqual(['EmailQueued', 'EmailSent']);
    } finally {
      await relay.close();
      await sink.close();
      await platform.close();
    }
  });

  it('delivers campaign email in the campaign lane only, transactional email in its own', async () => {
    const logger = createLogger({ level: 'silent' });
    const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
    const sink = await startSmtpSink();
    const relay = new SmtpMailer({ url: sink.url });
    const queue = async (campaignId?: string): Promise<RecordedEvent> => {
      const emailId = newId();
      await platform.store.append([
        {
          streamId: emailStream(emailId),
          expectedRevision: 'no_stream',
          events: [
            {
              type: 'EmailQueued',
              data: {
                emailId,
                contactId: 'c1',
                to: { email: 'ada@example.org' },
                from: { email: 'ops@example.test' },
                subject: campaignId === undefined ? 'Receipt' : 'News',
                html: '<p>Hi</p>',
                headers: {},
                attachments: [],
                ...(campaignId === undefined ? {} : { campaignId }),
                sandbox: false,
              },
              metadata: { projectId: 'p1' },
            },
          ],
        },
      ]);
      return (await platform.store.readStream(emailStream(emailId)))[0]!;
    };
    const deps = {
      store: platform.store,
      domains: noDomains,
      logger,
      relay,
      outbox: relay,
      retry: DEFAULT_RETRY,
      tracking: NO_TRACKING,
      secrets: NO_TRACKING.links.secrets,
      suppressionOf: () => Promise.resolve(null),
      accepted: new Map(),
    };
    try {
      const news = await queue('campaign-1');
      const receipt = await queue();
      await handleDelivery(deps, news, 'transactional');
      await handleDelivery(deps, receipt, 'campaign');
      expect(sink.messages).toHaveLength(0);
      await handleDelivery(deps, receipt, 'transactional');
      await handleDelivery(deps, news, 'campaign');
      const subjects = sink.messages.map(
        (message) => /^Subject: (.*)$/m.exec(message.raw.toString('utf8'))?.[1],
      );
      expect(subjects).toEqual(['Receipt', 'News']);
    } finally {
      await relay.close();
      await sink.close();
      await platform.close();
    }
  });
});
