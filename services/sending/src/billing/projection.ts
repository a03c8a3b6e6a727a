/**
 * The billing views of the sending service (consumer group `sending-billing`, topics `project`,
 * `email`, `inboundEmail`): the caps in force of each project (`billingLimits`, from
 * BillingLimitsChanged) and the emails accepted per project, period and category
 * (`billingUsage`, from EmailQueued and EmailReceived; see `billingCategoryOf`). The accounts
 * service answers the consumption from `billingUsage` too, so both read the same numbers.
 *
 * Idempotent: the caps are written at the project stream's revision; an accepted email is
 * counted once, by inserting a marker under its event id (`billingCounted`) before the counter is
 * moved, so a redelivered or replayed event changes nothing. Markers of periods more than two
 * before the one being counted are deleted as the projection reaches a new period (an event is
 * never delivered again that late). A project reset wipes none of them: what a project sent this
 * month stays counted.
 */
import {
  BILLING_USAGE_VIEW,
  type BillingLimits,
  type BillingLimitsChangedEventData,
  billingCategoryOf,
  billingPeriodOf,
  billingUsageId,
} from '@stamp/contracts';
import {
  applyAtRevision,
  isDuplicateKey,
  type RecordedEvent,
  type ViewDocument,
  type ViewStore,
} from '@stamp/platform';

/** Consumer group of the billing views. */
export const SENDING_BILLING_GROUP = 'sending-billing';

/** Topics the billing views read. */
export const BILLING_TOPICS: readonly string[] = ['project', 'email', 'inboundEmail'];

/** View of the caps in force, one document per project (`_id`: project id). */
export const BILLING_LIMITS_VIEW = 'billingLimits';

/** View of the events already counted (`_id`: event id). */
export const BILLING_COUNTED_VIEW = 'billingCounted';

/** The views of the group, for rebuilds. */
export const BILLING_VIEWS: readonly string[] = [
  BILLING_LIMITS_VIEW,
  BILLING_USAGE_VIEW,
  BILLING_COUNTED_VIEW,
];

/** A document of {@link BILLING_LIMITS_VIEW}. */
export interface BillingLimitsDocument extends ViewDocument {
  limits: BillingLimits;
  /** Revision of the project stream it reflects. */
  revision: number;
}

/** The handler of consumer group {@link SENDING_BILLING_GROUP} (see the module comment). */
export function billingProjection(views: ViewStore) {
  const limits = views.collection<BillingLimitsDocument>(BILLING_LIMITS_VIEW);
  const counted = views.collection(BILLING_COUNTED_VIEW);
  const usage = views.collection(BILLING_USAGE_VIEW);
  /** The latest period whose old markers were deleted. */
  let pruned = '';
  return async (event: RecordedEvent): Promise<void> => {
    if (event.type === 'BillingLimitsChanged' && event.streamId.startsWith('project-')) {
      const data = event.data as BillingLimitsChangedEventData;
      await applyAtRevision(
        limits,
        event.streamId.slice('project-'.length),
        event.revision,
        { $set: { limits: data.limits } },
        true,
      );
      return;
    }
    const category = billingCategoryOf(event);
    const projectId = event.metadata.projectId;
    if (category === null || projectId === undefined || projectId === '') return;
    const period = billingPeriodOf(new Date(event.createdAt));
    if (period > pruned) {
      await counted.deleteMany({ period: { $lt: periodBefore(period, 2) } });
      pruned = period;
    }
    try {
      await counted.insertOne({ _id: event.id, projectId, period });
    } catch (error) {
      if (isDuplicateKey(error)) return;
      throw error;
    }
    const filter = { _id: billingUsageId(projectId, period) };
    const update = { $inc: { [category]: 1 }, $setOnInsert: { projectId, period } };
    try {
      await usage.updateOne(filter, update, { upsert: true });
    } catch (error) {
      // Two first counts of one period raced (MongoDB); the document exists now.
      if (!isDuplicateKey(error)) throw error;
      await usage.updateOne(filter, update, { upsert: true });
    }
  };
}

/** The period (`YYYY-MM`) `months` before `period`. */
export function periodBefore(period: string, months: number): string {
  const [year = 0, month = 1] = period.split('-').map(Number);
  return billingPeriodOf(new Date(Date.UTC(year, month - 1 - months, 1)));
}
