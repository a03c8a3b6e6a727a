import {
  decisionAppend,
  type EventStore,
  type ViewStore,
  withRevisionRetry,
} from '@stamp/platform';

import { emailStream } from '../delivery/events.ts';
import { EMAILS, type EmailDocument } from '../views.ts';
import { decideReport } from './decide.ts';
import type { FeedbackReport } from './reports.ts';

/**
 * Records what `report` means on email `emailId` (see decideReport; `source` says where a bounce
 * was learnt), at the revision of the stream read, deciding again when another writer came
 * first. An email that is not (or no longer) in the view, or whose data was erased, is left
 * alone.
 */
export async function recordReport(
  deps: { store: EventStore; views: ViewStore; now?: () => Date },
  emailId: string,
  report: FeedbackReport,
  source: 'dsn' | 'sns',
  correlationId: string,
): Promise<void> {
  const email = await deps.views.collection<EmailDocument>(EMAILS).findOne({ _id: emailId });
  if (email === null) return;
  await withRevisionRetry(async () => {
    const events = await deps.store.readStream(emailStream(emailId), 1);
    if (events.some((event) => event.erased === true)) return;
    const target = {
      recipient: email.to.email,
      bounced: events.some((event) => event.type === 'EmailBounced'),
      complained: events.some((event) => event.type === 'EmailComplained'),
    };
    const decided = decideReport(report, target, deps.now?.() ?? new Date(), source);
    if (decided === null) return;
    await deps.store.append([
      decisionAppend(emailStream(emailId), events.at(-1)?.revision ?? 0, [decided], {
        projectId: email.projectId,
        correlationId,
        subjectId: email.contactId,
      }),
    ]);
  });
}
