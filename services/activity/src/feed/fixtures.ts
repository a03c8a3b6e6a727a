/**
 * Recorded integration events for tests of the activity projection and routes, shaped as the
 * owning services append them (`@stamp/contracts`, integration events).
 */
import type {
  ContactStreamEvents,
  EmailStreamEvents,
  TrackedEventStreamEvents,
  WorkflowExecutionStreamEvents,
} from '@stamp/contracts';
import type { RecordedEvent } from '@stamp/platform';

let position = 0;

/** Options of the event builders: project, time (ISO 8601), event id, revision. */
export interface FixtureOptions {
  projectId?: string;
  at: string;
  id?: string;
  revision?: number;
  erased?: boolean;
}

function recorded(
  streamId: string,
  type: string,
  data: unknown,
  options: FixtureOptions,
): RecordedEvent {
  position += 1;
  return {
    id: options.id ?? `evt-${position}`,
    streamId,
    revision: options.revision ?? 0,
    position,
    type,
    schemaVersion: 1,
    data: options.erased === true ? {} : data,
    metadata: { projectId: options.projectId ?? 'p1', correlationId: 'test' },
    createdAt: options.at,
    ...(options.erased === true ? { erased: true } : {}),
  };
}

/** An event of stream `contact-<contactId>`. */
export function contactEvent<Type extends keyof ContactStreamEvents>(
  contactId: string,
  type: Type,
  options: FixtureOptions,
  data?: ContactStreamEvents[Type],
): RecordedEvent {
  return recorded(`contact-${contactId}`, type, data ?? {}, options);
}

/** EventTracked of stream `trackedEvent-<id>` (the event id is the stream's entity id). */
export function trackedEvent(
  data: Omit<TrackedEventStreamEvents['EventTracked'], 'email' | 'data'> & {
    data?: TrackedEventStreamEvents['EventTracked']['data'];
  },
  options: FixtureOptions,
): RecordedEvent {
  position += 1;
  const id = options.id ?? `tracked-${position}`;
  return recorded(
    `trackedEvent-${id}`,
    'EventTracked',
    { email: `${data.contactId}@example.org`, data: {}, ...data },
    { ...options, id },
  );
}

/** An event of stream `email-<emailId>`. */
export function emailEvent<Type extends keyof EmailStreamEvents>(
  emailId: string,
  type: Type,
  data: EmailStreamEvents[Type],
  options: FixtureOptions,
): RecordedEvent {
  return recorded(`email-${emailId}`, type, data, options);
}

/** Data of EmailQueued for `emailId` to `contactId`. */
export function queuedData(
  emailId: string,
  contactId: string,
  subject: string,
  templateId?: string,
): EmailStreamEvents['EmailQueued'] {
  return {
    emailId,
    contactId,
    to: { email: `${contactId}@example.org`, name: 'Ada' },
    from: { email: 'hello@example.test' },
    subject,
    sandbox: false,
    ...(templateId === undefined ? {} : { templateId }),
  };
}

/** An event of stream `workflowExecution-<executionId>`. */
export function executionEvent<Type extends keyof WorkflowExecutionStreamEvents>(
  executionId: string,
  type: Type,
  data: WorkflowExecutionStreamEvents[Type],
  options: FixtureOptions,
): RecordedEvent {
  return recorded(`workflowExecution-${executionId}`, type, data, options);
}
