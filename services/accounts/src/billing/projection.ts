/**
 * The `billingCustomers` view (consumer group `accounts-billing`, topic `project`): which project
 * each customer of the payment provider pays for, so that a notification naming only the
 * customer finds its project. Filled from BillingSubscriptionChanged; idempotent (the same
 * customer always maps to the project that first reported it).
 */
import {
  isDuplicateKey,
  type RecordedEvent,
  type ViewDocument,
  type ViewStore,
} from '@stamp/platform';

import type { SubscriptionData } from './events.ts';

/** Consumer group of the billing view of the accounts service. */
export const BILLING_GROUP = 'accounts-billing';

/** View of the payment provider's customers: `_id` is the customer id (`cus_…`). */
export const BILLING_CUSTOMERS_VIEW = 'billingCustomers';

/** A document of {@link BILLING_CUSTOMERS_VIEW}. */
export interface BillingCustomerDocument extends ViewDocument {
  projectId: string;
}

/** The handler of consumer group {@link BILLING_GROUP}. */
export function billingProjection(views: ViewStore) {
  const customers = views.collection<BillingCustomerDocument>(BILLING_CUSTOMERS_VIEW);
  return async (event: RecordedEvent): Promise<void> => {
    if (event.type !== 'BillingSubscriptionChanged') return;
    const { customerId } = event.data as SubscriptionData;
    const projectId = event.streamId.slice('project-'.length);
    try {
      await customers.updateOne(
        { _id: customerId },
        { $setOnInsert: { projectId } },
        { upsert: true },
      );
    } catch (error) {
      // Two first writes of one customer raced (MongoDB): the document exists.
      if (!isDuplicateKey(error)) throw error;
    }
  };
}

/** The project whose customer `customerId` is, or null. */
export async function projectOfCustomer(
  views: ViewStore,
  customerId: string,
): Promise<string | null> {
  const found = await views
    .collection<BillingCustomerDocument>(BILLING_CUSTOMERS_VIEW)
    .findOne({ _id: customerId });
  return found?.projectId ?? null;
}
