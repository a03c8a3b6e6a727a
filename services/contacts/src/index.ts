/**
 * The contacts service (spec parts 2, 3 and 4): contacts with unique emails per project, their
 * data and subscription, and tracked events. Exposes its public routes, its command API for
 * sending and tracking, and the `contacts-view` projection.
 */
import type { ContactsApi } from '@stamp/contracts';
import { consumeProjectResets, type ServiceDeps, type ServiceModule } from '@stamp/http-kit';
import { type Consumer, type RecordedEvent, type Resolver, type Secrets } from '@stamp/platform';
import { Router } from 'express';

import { contactsRouter } from './contacts/api.ts';
import { fieldsRouter } from './fields/api.ts';
import { CONTACT_FIELDS_VIEW, createContactFieldIndexes } from './fields/projection.ts';
import { ContactCommands } from './contacts/commands.ts';
import { CONTACT_CATEGORY } from './contacts/events.ts';
import { eraseProjectContacts } from './contacts/reset.ts';
import {
  CONTACTS_FEEDBACK_GROUP,
  CONTACTS_FEEDBACK_TOPICS,
  unsubscribeOnFeedback,
} from './contacts/feedback.ts';
import {
  CONTACTS_VIEW,
  createContactIndexes,
  eraseDeletedContact,
  projectContactEvents,
} from './contacts/projection.ts';
import { createTrackedEvents } from './events/index.ts';
import { CONTACT_JOBS_VIEW, CONTACT_JOBS_VIEW_GROUP, createContactJobs } from './jobs/index.ts';
import { subscriptionRouter } from './subscription/api.ts';
import { trackRouter } from './track/api.ts';
import { createVerifyRouter } from './verify/api.ts';

export { CONTACTS_VIEW, type ContactView } from './contacts/projection.ts';
export { isReservedEventName } from './track/decide.ts';

/** Consumer group of the contacts projection. */
export const CONTACTS_VIEW_GROUP = 'contacts-view';
/** Consumer group erasing the personal data of deleted contacts from the log. */
export const CONTACTS_ERASURE_GROUP = 'contacts-erasure';
/** Consumer group deleting the contacts of a reset project. */
export const CONTACTS_RESET_GROUP = 'contacts-project-reset';

/** Dependencies of {@link createContactsService}. */
export interface ContactsServiceDeps extends ServiceDeps {
  /** DNS resolver of the email verification route (POST /v1/verify). */
  resolver: Resolver;
  /**
   * The platform secret verifying subscription tokens of the pages `publicRouter` serves
   * (GET/POST /unsubscribe/:token, /subscribe/:token, GET /manage/:token).
   */
  secrets: Secrets;
  /** Cached contact and claim states (default 10,000 each). */
  cacheSize?: number;
}

/**
 * Creates the contacts service. `router` serves POST/GET /contacts, GET/PATCH/DELETE
 * /contacts/:id, POST /v1/track, POST /events/track and POST /v1/verify; `api` is the
 * ContactsApi used by sending; `publicRouter` serves the subscription pages of the signed links
 * in emails without an API key; `start()` creates the view indexes and starts the
 * `contacts-view` consumer (topic `contact`) and the `contacts-feedback` consumer (topic
 * `email`: a hard bounce or a complaint unsubscribes its contact); `projections()` returns them for
 * read-your-writes.
 * Tracked events (streams `trackedEvent-<id>`) are read and deleted through the /events routes of
 * `createTrackedEvents`, whose `tracked-events-view` consumer is among `projections()`.
 */
export function createContactsService(
  deps: ContactsServiceDeps,
): ServiceModule & { api: ContactsApi; router: Router; projections(): Consumer[] } {
  const commands = new ContactCommands({
    store: deps.store,
    logger: deps.logger,
    cacheSize: deps.cacheSize,
  });
  const api: ContactsApi = {
    upsertRecipient: (input) => commands.upsertRecipient(input),
  };
  const router = Router();
  const jobs = createContactJobs({ ...deps, commands });
  // Before the contacts router: /contacts/import and /contacts/bulk-* are not contact ids.
  router.use(jobs.router);
  // Before the contacts router: /contacts/fields is not a contact id.
  router.use(fieldsRouter({ commands, views: deps.views, awaitViews: deps.awaitViews }));
  router.use(contactsRouter({ commands, views: deps.views, awaitViews: deps.awaitViews }));
  router.use(trackRouter({ commands, awaitViews: deps.awaitViews }));
  const trackedEvents = createTrackedEvents(deps);
  router.use(trackedEvents.router);
  router.use(createVerifyRouter({ resolver: deps.resolver }));
  const publicRouter = subscriptionRouter({
    commands,
    views: deps.views,
    secrets: deps.secrets,
    awaitViews: deps.awaitViews,
    logger: deps.logger,
  });

  let consumers: Consumer[] = [];
  let reset: Consumer | undefined;
  const handle = (event: RecordedEvent): Promise<void> => projectContactEvents(deps.views, [event]);

  return {
    name: 'contacts',
    views: [
      { groupId: CONTACTS_VIEW_GROUP, collections: [CONTACTS_VIEW, CONTACT_FIELDS_VIEW] },
      { groupId: CONTACT_JOBS_VIEW_GROUP, collections: [CONTACT_JOBS_VIEW] },
      ...trackedEvents.views,
      { groupId: CONTACTS_RESET_GROUP, collections: [] },
    ],
    router,
    publicRouter,
    api,
    async start() {
      if (consumers.length > 0) return;
      await trackedEvents.start();
      await createContactIndexes(deps.views);
      await createContactFieldIndexes(deps.views);
      consumers = [
        deps.bus.consume({
          groupId: CONTACTS_VIEW_GROUP,
          topics: [CONTACT_CATEGORY],
          handle,
          handleBatch: (events) => projectContactEvents(deps.views, events),
          concurrency: 16,
        }),
        deps.bus.consume({
          groupId: CONTACTS_ERASURE_GROUP,
          topics: [CONTACT_CATEGORY],
          handle: (event) => eraseDeletedContact(deps.store, event),
          concurrency: 16,
        }),
        deps.bus.consume({
          groupId: CONTACTS_FEEDBACK_GROUP,
          topics: CONTACTS_FEEDBACK_TOPICS,
          handle: (event) => unsubscribeOnFeedback(commands, event),
          concurrency: 8,
        }),
      ];
      const views = [consumers[0], ...trackedEvents.projections()].filter((c) => c !== undefined);
      reset = consumeProjectResets({
        bus: deps.bus,
        groupId: CONTACTS_RESET_GROUP,
        projections: () => views,
        wipe: (notice) => eraseProjectContacts(commands, deps.views, notice),
      });
      await jobs.start();
    },
    async stop() {
      await jobs.stop();
      const running = [...consumers, ...(reset === undefined ? [] : [reset])];
      consumers = [];
      reset = undefined;
      await Promise.all(running.map((consumer) => consumer.stop()));
      await trackedEvents.stop();
    },
    projections: () => [
      ...consumers,
      ...trackedEvents.projections(),
      ...jobs.projections(),
      ...(reset === undefined ? [] : [reset]),
    ],
  };
}
