/**
 * A project's onboarding (spec part 4, `GET /projects/:id/setup-state`): whether it added a
 * sender domain, verified one, sent its first email and tracked its first event. The `setupState`
 * view (consumer group `accounts-setup`, topics `domain`, `email`, `trackedEvent`) keeps the time
 * each step was first done, by `$min`, so replays and duplicates change nothing.
 */
import { EMAIL_STREAM_CATEGORY, TRACKED_EVENT_STREAM_CATEGORY } from '@stamp/contracts';
import {
  BoundedCache,
  type RecordedEvent,
  streamCategory,
  type ViewDocument,
  type ViewStore,
} from '@stamp/platform';

/** Consumer group of the setup view. */
export const SETUP_GROUP = 'accounts-setup';

/** View of the projects' onboarding, one document per project. */
export const SETUP_VIEW = 'setupState';

/** Topics the setup view reads. */
export const SETUP_TOPICS = ['domain', EMAIL_STREAM_CATEGORY, TRACKED_EVENT_STREAM_CATEGORY];

/** The onboarding steps, in order. */
export const SETUP_STEPS = [
  'DOMAIN_ADDED',
  'DOMAIN_VERIFIED',
  'EMAIL_SENT',
  'EVENT_TRACKED',
] as const;

/** An onboarding step. */
export type SetupStep = (typeof SETUP_STEPS)[number];

/** A document of the setup view (`_id`: project id): ISO 8601 time each step was first done. */
export interface SetupDocument extends ViewDocument {
  steps: Partial<Record<SetupStep, string>>;
}

/** The step an event completes, or null. */
function stepOf(event: RecordedEvent): SetupStep | null {
  const category = streamCategory(event.streamId);
  if (category === 'domain') {
    if (event.type === 'DomainAdded') return 'DOMAIN_ADDED';
    if (event.type === 'DomainVerified') return 'DOMAIN_VERIFIED';
  }
  if (category === EMAIL_STREAM_CATEGORY && event.type === 'EmailQueued') return 'EMAIL_SENT';
  if (category === TRACKED_EVENT_STREAM_CATEGORY && event.type === 'EventTracked') {
    return 'EVENT_TRACKED';
  }
  return null;
}

/**
 * The handler of the setup view. Steps already recorded are remembered (up to 10,000 projects),
 * so the emails and events of a busy project cost no write.
 */
export function setupProjection(views: ViewStore) {
  const recorded = new BoundedCache<string, true>(10_000);
  return async (event: RecordedEvent): Promise<void> => {
    const step = stepOf(event);
    const projectId = event.metadata.projectId;
    if (step === null || projectId === undefined || projectId === '') return;
    const key = `${projectId}:${step}`;
    if (recorded.get(key) !== undefined) return;
    await views
      .collection(SETUP_VIEW)
      .updateOne(
        { _id: projectId },
        { $min: { [`steps.${step}`]: event.createdAt } },
        { upsert: true },
      );
    recorded.set(key, true);
  };
}

/** The onboarding of `projectId` as the API answers it. */
export async function setupStateOf(
  views: ViewStore,
  projectId: string,
): Promise<{
  steps: { step: SetupStep; done: boolean; completedAt?: string }[];
  completed: boolean;
}> {
  const found = await views.collection<SetupDocument>(SETUP_VIEW).findOne({ _id: projectId });
  const steps = SETUP_STEPS.map((step) => {
    const at = found?.steps[step];
    return at === undefined ? { step, done: false } : { step, done: true, completedAt: at };
  });
  return { steps, completed: steps.every((step) => step.done) };
}
