/**
 * Projection of domain streams into the `domains` view (consumer group `domains-view`, topic
 * `domain`). Idempotent: every write is guarded by `{revision: {$lt: event.revision}}`, so a
 * replayed or duplicated event changes nothing.
 */
import type { EventHandler, RecordedEvent, Update, ViewStore } from '@stamp/platform';
import { applyAtRevision } from '@stamp/platform';

import { DOMAIN_CATEGORY, DOMAIN_EVENT_TYPES, type DomainEvent } from './events.ts';
import { domainsView } from './views.ts';

/** Consumer group of the projection. */
export const DOMAINS_VIEW_GROUP = 'domains-view';

function updateOf(event: DomainEvent, revision: number): Update {
  switch (event.type) {
    case 'DomainAdded': {
      const { data } = event;
      return {
        $set: {
          projectId: data.projectId,
          domain: data.domain,
          selector: data.selector,
          publicKey: data.publicKey,
          privateKey: data.privateKey,
          status: 'PENDING',
          verified: false,
          records: data.records,
          createdAt: data.addedAt,
          revision,
        },
      };
    }
    case 'DomainVerified':
      return {
        $set: {
          status: 'VERIFIED',
          verified: true,
          records: event.data.records,
          verifiedAt: event.data.checkedAt,
          checkedAt: event.data.checkedAt,
          revision,
        },
      };
    case 'DomainVerificationFailed':
      return {
        $set: {
          status: 'FAILED',
          verified: false,
          records: event.data.records,
          checkedAt: event.data.checkedAt,
          revision,
        },
      };
    case 'DomainChecked':
      return { $set: { records: event.data.records, checkedAt: event.data.checkedAt, revision } };
    case 'DomainRemoved':
      return { $set: { removedAt: event.data.removedAt, revision }, $unset: { privateKey: '' } };
  }
}

/** The bus handler writing the `domains` view. */
export function domainsProjection(views: ViewStore): EventHandler {
  const collection = domainsView(views);
  return async (event: RecordedEvent) => {
    if (!(DOMAIN_EVENT_TYPES as readonly string[]).includes(event.type)) return;
    const domainEvent = event as RecordedEvent & DomainEvent;
    const id = event.streamId.slice(DOMAIN_CATEGORY.length + 1);
    const update = updateOf(domainEvent, event.revision);
    await applyAtRevision(
      collection,
      id,
      event.revision,
      update,
      domainEvent.type === 'DomainAdded',
    );
  };
}
