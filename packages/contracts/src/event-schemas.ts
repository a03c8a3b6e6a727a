/**
 * JSON Schemas (draft-07) of the events on the bus: the envelope every event travels in, the data
 * of every event type a service appends, and the topics they are published on (architecture
 * brief, "Contracts"). The relay validates each envelope against these before publishing it to
 * Kafka, and the AsyncAPI document (`asyncapi.ts`) is generated from them.
 *
 * Plain objects without dependencies. Every `data` schema allows additional properties, so a
 * field added to an event (an additive change) stays compatible; a breaking change takes a new
 * `schemaVersion`.
 */

/** JSON Schema primitive type names (draft-07, section 6.1.1). */
export type JsonSchemaType =
  'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

/**
 * The subset of JSON Schema draft-07 these schemas use, read-only. A type alias (not an
 * interface) so that it is assignable to validators' schema types that have an index signature.
 */
export type JsonSchema = {
  readonly $schema?: string;
  readonly title?: string;
  readonly description?: string;
  readonly type?: JsonSchemaType;
  readonly const?: string | number | boolean;
  readonly enum?: readonly (string | number | boolean)[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly maxProperties?: number;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minimum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  /** Draft-07 formats used here: `date-time` (RFC 3339, section 5.6). */
  readonly format?: string;
  readonly anyOf?: readonly JsonSchema[];
  readonly if?: JsonSchema;
  readonly then?: JsonSchema;
  readonly else?: JsonSchema;
};

/** `$schema` of every top-level schema here: JSON Schema draft-07. */
export const JSON_SCHEMA_DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/**
 * An event id: a UUID in its 8-4-4-4-12 hexadecimal form (RFC 9562). Ids are version 7 UUIDs
 * (time-ordered) except the deterministic ids of fired timers (version 8 layout).
 */
export const EVENT_ID_PATTERN =
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** A stream id, `<category>-<id>`: a category of letters and digits, a dash, a non-empty id. */
export const STREAM_ID_PATTERN = '^[A-Za-z][A-Za-z0-9]*-.+$';

/** A W3C Trace Context `traceparent` header value (Trace Context level 1, section 3.2). */
export const TRACEPARENT_PATTERN = '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$';

// ---------------------------------------------------------------------------------------------
// Building blocks.

const text = (description: string): JsonSchema => ({ type: 'string', description });
const nonEmpty = (description: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  description,
});
const dateTime = (description: string): JsonSchema => ({
  type: 'string',
  format: 'date-time',
  description: `${description} (ISO 8601 / RFC 3339 date-time, UTC).`,
});
const count = (description: string, minimum = 0): JsonSchema => ({
  type: 'integer',
  minimum,
  description,
});
const flag = (description: string): JsonSchema => ({ type: 'boolean', description });
const oneOfStrings = (values: readonly string[], description: string): JsonSchema => ({
  type: 'string',
  enum: values,
  description,
});

/** An object schema: `required` lists the required keys; additional properties are allowed. */
function object(
  description: string,
  properties: Readonly<Record<string, JsonSchema>>,
  required: readonly string[] = Object.keys(properties),
): JsonSchema {
  return { type: 'object', description, properties, required, additionalProperties: true };
}

/** The fields of an execution's end (its workflow, contact and time) beside `fields`. */
const executionEnd = (fields: Readonly<Record<string, JsonSchema>>) => ({
  workflowId: nonEmpty('Workflow id.'),
  contactId: nonEmpty('Contact id.'),
  completedAt: dateTime('Time of the end'),
  ...fields,
});

/** An object whose fields this document leaves open. */
const anyObject = (description: string): JsonSchema => ({
  type: 'object',
  description,
  additionalProperties: true,
});

/** Data of an event that carries no fields (`Record<string, never>`); one object per type. */
const empty = (): JsonSchema => ({
  type: 'object',
  description: 'No fields.',
  additionalProperties: true,
});

/** A primitive contact data value (`ContactValue`: string, number or boolean). */
const CONTACT_VALUE: JsonSchema = {
  description: 'A primitive contact data value.',
  anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
};

/** A map of contact data keys to primitive values (`Record<string, ContactValue>`). */
const contactData = (description: string): JsonSchema => ({
  type: 'object',
  description,
  additionalProperties: CONTACT_VALUE,
});

/** A mailbox (`EmailMailbox`): an address with an optional display name. */
const MAILBOX: JsonSchema = object(
  'A mailbox: address and optional display name.',
  { name: text('Display name.'), email: nonEmpty('Email address.') },
  ['email'],
);

/** A DNS record of a sender domain (`DnsRecord` of the domains service). */
const DNS_RECORD: JsonSchema = object(
  'A DNS record the customer adds to their zone.',
  {
    type: oneOfStrings(['TXT', 'MX'], 'Record type.'),
    name: nonEmpty('Owner name of the record.'),
    value: text('Record value.'),
    priority: count('MX preference (MX records only).'),
    purpose: oneOfStrings(
      ['DKIM', 'SPF', 'RETURN_PATH', 'DMARC', 'INBOUND'],
      'What the record is for.',
    ),
    status: oneOfStrings(
      ['PENDING', 'VERIFIED', 'FAILED'],
      'PENDING (absent), VERIFIED (matches) or FAILED (present, wrong).',
    ),
  },
  ['type', 'name', 'value', 'purpose', 'status'],
);

const DOMAIN_CHECK: Readonly<Record<string, JsonSchema>> = {
  records: { type: 'array', items: DNS_RECORD, description: 'Records with their new status.' },
  checkedAt: dateTime('Time of the check'),
};

/** A monthly cap of a billing category: an integer ≥ 0, or null for no cap. */
const BILLING_CAP: JsonSchema = {
  description: 'Most emails of the category per calendar month (UTC); null: no cap.',
  anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }],
};

/** Caps of every billing category (`BillingLimits`). */
const BILLING_LIMITS = (description: string): JsonSchema =>
  object(description, {
    transactional: BILLING_CAP,
    campaigns: BILLING_CAP,
    workflows: BILLING_CAP,
    inbound: BILLING_CAP,
  });

/** The outcome counters of contact jobs (`RowOutcome`). */
const ROW_OUTCOMES = [
  'created',
  'updated',
  'unchanged',
  'subscribed',
  'unsubscribed',
  'deleted',
  'notFound',
  'failed',
] as const;

/** Fields of JobQueued for an import. */
const IMPORT_JOB_FIELDS: Readonly<Record<string, JsonSchema>> = {
  columns: {
    type: 'array',
    items: { type: 'string' },
    description: 'Import: header names, the order of the values of every row.',
  },
  fileName: {
    description: 'Import: client-supplied file name (at most 255 characters), or null.',
    anyOf: [{ type: 'string', maxLength: 255 }, { type: 'null' }],
  },
  bytes: count('Import: size of the upload, bytes.'),
};

/** Fields of JobQueued for a bulk job. */
const BULK_JOB_FIELDS: Readonly<Record<string, JsonSchema>> = {
  ids: {
    type: 'array',
    items: { type: 'string' },
    description: 'Bulk: contact ids, deduplicated, in request order.',
  },
};

/** The values of a readable CSV record, in header order. */
const ROW_VALUES: JsonSchema = {
  type: 'array',
  items: { type: 'string' },
  description: 'Values, in header order.',
};

/** Why a CSV record is unreadable. */
const ROW_ERROR: JsonSchema = text('Why the record is unreadable (column count, unclosed quote).');

const TEMPLATE_TYPE = oneOfStrings(['TRANSACTIONAL', 'MARKETING'], 'Template type.');

/** A clearable optional string of a template patch: a string sets it, null clears it. */
const clearable = (description: string): JsonSchema => ({
  description: `${description} Null clears it.`,
  anyOf: [{ type: 'string' }, { type: 'null' }],
});

// ---------------------------------------------------------------------------------------------
// The envelope.

/** Matches an envelope whose `erased` is true. */
const ERASED: JsonSchema = {
  type: 'object',
  properties: { erased: { const: true } },
  required: ['erased'],
};

/** The data of an erased event: `{}`. */
const ERASED_DATA: JsonSchema = {
  type: 'object',
  maxProperties: 0,
  description: 'Erased: the data is no longer readable.',
};

/**
 * Schema of the envelope of every event on the bus: the event store's `RecordedEvent` as JSON.
 * `revision` is 0-based within the stream, `position` 1-based in the whole log; `metadata` values
 * are strings; when `erased` is true (the subject's key was destroyed, crypto-shredding) `data` is
 * `{}`. Unknown envelope fields are refused.
 */
export const EVENT_ENVELOPE_SCHEMA: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT_07,
  title: 'Event envelope',
  description:
    'An event as recorded in the event store and published on the bus. The Kafka message key ' +
    'is `streamId`.',
  type: 'object',
  required: [
    'id',
    'streamId',
    'revision',
    'position',
    'type',
    'schemaVersion',
    'data',
    'metadata',
    'createdAt',
  ],
  additionalProperties: false,
  properties: {
    id: {
      type: 'string',
      pattern: EVENT_ID_PATTERN,
      description: 'Event id (UUID, RFC 9562), unique in the whole log.',
    },
    streamId: {
      type: 'string',
      pattern: STREAM_ID_PATTERN,
      description:
        'Stream id `<category>-<id>`; the category (text before the first `-`) names the topic.',
    },
    revision: count('0-based position of the event within its stream.'),
    position: count('1-based position of the event in the whole log.', 1),
    type: {
      type: 'string',
      pattern: '^[A-Z][A-Za-z0-9]*$',
      description: 'Event type (PascalCase).',
    },
    schemaVersion: count('Version of the schema of `data`.', 1),
    data: { type: 'object', description: 'The event data; its schema depends on `type`.' },
    metadata: {
      type: 'object',
      description: 'Metadata of the event; every value is a string.',
      properties: {
        projectId: text('Project the event belongs to.'),
        correlationId: text('Id of the request or job that caused the event.'),
        causationId: text('Id of the event that caused this one.'),
        traceparent: {
          type: 'string',
          pattern: TRACEPARENT_PATTERN,
          description: 'W3C trace context of the request that caused the event.',
        },
        subjectId: text(
          'Contact the data is about; the data is sealed under that contact key and erased ' +
            'with it.',
        ),
        billingCategory: oneOfStrings(
          ['transactional', 'campaigns', 'workflows', 'inbound'],
          'Billing category an accepted email counts in (EmailQueued, EmailReceived).',
        ),
      },
      additionalProperties: { type: 'string' },
    },
    createdAt: dateTime('Time the event was appended'),
    erased: flag('True when the subject was erased; `data` is then `{}`.'),
  },
  if: ERASED,
  then: { type: 'object', properties: { data: ERASED_DATA } },
};

// ---------------------------------------------------------------------------------------------
// Event types.

/** Schema entry of one event type. */
export interface EventSchema {
  /** Stream category the event is appended to (the topic, without prefix). */
  readonly category: string;
  /** Version of the data schema (the envelope's `schemaVersion`). */
  readonly schemaVersion: number;
  readonly description: string;
  /** JSON Schema (draft-07) of the event's `data`. */
  readonly data: JsonSchema;
}

const v1 = (category: string, description: string, data: JsonSchema): EventSchema => ({
  category,
  schemaVersion: 1,
  description,
  data,
});

/** Fields of the engagement events (EmailOpened, EmailClicked). */
const ENGAGEMENT_FIELDS: Readonly<Record<string, JsonSchema>> = {
  emailId: nonEmpty('Email id.'),
  subject: text('Subject of the email.'),
  templateId: text('Template the email was rendered from.'),
  campaignId: text('Campaign the email belongs to.'),
  workflowId: text('Workflow whose SEND_EMAIL step sent the email.'),
  userAgent: text('User-Agent header of the request (at most 512 characters).'),
  automated: flag('Whether the request looks automated rather than a person.'),
  automatedReason: oneOfStrings(
    ['bot-user-agent', 'privacy-proxy', 'head-request', 'soon-after-delivery', 'link-burst'],
    'Why it looks automated.',
  ),
};

const CAMPAIGN_FIELDS: Readonly<Record<string, JsonSchema>> = {
  name: nonEmpty('Name.'),
  description: clearable('Description.'),
  subject: text('Subject (Liquid).'),
  body: text('HTML body (Liquid).'),
  from: nonEmpty('Sender address.'),
  fromName: clearable('Sender display name.'),
  replyTo: clearable('Reply-To address.'),
  audienceType: oneOfStrings(['ALL', 'SEGMENT', 'FILTERED'], 'Audience type.'),
  segmentId: clearable('Segment of a SEGMENT audience.'),
  audienceFilter: {
    description: 'Filter of a FILTERED audience (API reference, "Filter language"), else null.',
    anyOf: [{ type: 'object' }, { type: 'null' }],
  },
};
const CAMPAIGN_REQUIRED = Object.keys(CAMPAIGN_FIELDS);

/**
 * Schema of every event type appended by a service, keyed by event type. The data schemas of the
 * integration events (`integration-events.ts`) match those interfaces; the others match what the
 * owning service writes. Every data schema allows additional properties.
 */
export const EVENT_SCHEMAS: Readonly<Record<string, EventSchema>> = {
  // accounts: bootstrap, user, project
  DefaultProjectClaimed: v1(
    'bootstrap',
    'The default project of this installation was claimed (once per data folder).',
    object('The claimed project.', { projectId: nonEmpty('Project id.') }),
  ),
  BootstrapOwnerClaimed: v1(
    'bootstrap',
    'The first user to sign up took the ownership of the default project (once per data folder).',
    object('The owner.', { userId: nonEmpty('User id.') }),
  ),
  UserRegistered: v1(
    'user',
    'A user was registered.',
    object(
      'The user.',
      {
        email: nonEmpty('Email address, lower-cased.'),
        name: text('Display name.'),
        passwordHash: nonEmpty(
          'The password, hashed (argon2id, PHC string) and sealed (AES-256-GCM) with the platform ' +
            'secret; absent for a user without one.',
        ),
      },
      ['email', 'name'],
    ),
  ),
  UserEmailClaimed: v1(
    'userEmail',
    'An email address was claimed by a user account (one account per address).',
    object('The claim.', { userId: nonEmpty('User id.') }),
  ),
  UserEmailVerified: v1(
    'user',
    'A user confirmed their email address with the link sent to it.',
    object('The address.', { email: nonEmpty('The address confirmed, lower-cased.') }),
  ),
  UserPasswordChanged: v1(
    'user',
    "A user's password was reset; sessions issued before it end.",
    object('The password.', {
      passwordHash: nonEmpty(
        'The new password, hashed (argon2id, PHC string) and sealed with the platform secret.',
      ),
    }),
  ),
  UserIdentityLinked: v1(
    'user',
    "An OpenID Connect provider's identity was linked to a user at its first login through it.",
    object('The identity.', {
      provider: nonEmpty('Id of the configured provider.'),
      issuer: nonEmpty("Issuer Identifier of the provider (the ID token's iss)."),
      subject: nonEmpty("Subject Identifier at the provider (the ID token's sub)."),
      email: nonEmpty('The verified address the provider vouched for, lower-cased.'),
    }),
  ),
  AccountTokenUsed: v1(
    'accountToken',
    'A single-use link sent by email (verification, password reset, invitation) was used.',
    object('The use.', {
      purpose: oneOfStrings(['VERIFY_EMAIL', 'RESET_PASSWORD', 'INVITATION'], 'What it was for.'),
    }),
  ),
  AccountEmailRequested: v1(
    'accountEmail',
    'Account mail (email verification, password reset, invitation) is to be sent by the sending ' +
      'service from STAMP_SYSTEM_FROM; its body carries a single-use link and is sealed.',
    object('The message.', {
      kind: oneOfStrings(['VERIFY_EMAIL', 'RESET_PASSWORD', 'INVITATION'], 'What it is for.'),
      to: nonEmpty('Recipient address.'),
      subject: nonEmpty('Subject.'),
      html: nonEmpty('HTML body, sealed (AES-256-GCM) with the platform secret.'),
    }),
  ),
  AccountEmailDelivered: v1(
    'accountEmailDelivery',
    'The relay (or the local outbox) accepted an account email.',
    object('The acceptance.', {
      messageId: text('Message-ID given by the receiving side.'),
      response: text("The receiving side's reply."),
      transport: oneOfStrings(['smtp', 'outbox'], 'Where it went.'),
      sentAt: dateTime('Time of acceptance'),
    }),
  ),
  AccountEmailFailed: v1(
    'accountEmailDelivery',
    'An account email could not be delivered (it is not retried: the user may ask again).',
    object('The failure.', { error: text('Why.'), failedAt: dateTime('Time of the failure') }),
  ),
  ProjectRenamed: v1(
    'project',
    'A project was renamed.',
    object('The project.', { name: nonEmpty('New name (1 to 100 characters).') }),
  ),
  ProjectDeleted: v1(
    'project',
    'A project was deleted: its keys stop working and its members lose it.',
    object('The deletion.', { deletedAt: dateTime('Time of the deletion') }),
  ),
  ProjectReset: v1(
    'project',
    "A project's data was wiped: contacts erased, resources removed from the views.",
    object('The reset.', { resetAt: dateTime('Time of the reset') }),
  ),
  ProjectSettingsChanged: v1(
    'project',
    "A project's settings changed.",
    object('The settings.', {
      tracking: {
        description: 'Open and click tracking of its email; null: the installation default.',
        anyOf: [
          oneOfStrings(['ENABLED', 'DISABLED', 'MARKETING_ONLY'], 'The mode.'),
          { type: 'null', description: 'The installation default.' },
        ],
      },
    }),
  ),
  ProjectMemberRoleChanged: v1(
    'project',
    "A member's role in a project changed.",
    object('The member.', {
      userId: nonEmpty('User id.'),
      role: oneOfStrings(['OWNER', 'ADMIN', 'MEMBER'], 'New role.'),
    }),
  ),
  ProjectMemberRemoved: v1(
    'project',
    'A member left a project, or was removed from it.',
    object('The member.', { userId: nonEmpty('User id.') }),
  ),
  ProjectMemberAdded: v1(
    'project',
    'A user became a member of a project, with a role.',
    object('The member.', {
      userId: nonEmpty('User id.'),
      role: oneOfStrings(['OWNER', 'ADMIN', 'MEMBER'], 'Role in the project.'),
    }),
  ),
  ProjectCreated: v1(
    'project',
    'A project was created, owned by a user.',
    object('The project.', {
      name: nonEmpty('Project name (1 to 100 characters).'),
      ownerId: nonEmpty('User id of the owner.'),
    }),
  ),
  ProjectKeysIssued: v1(
    'project',
    'A new API key pair replaced the project keys. Only hashes and hints are recorded.',
    object('Hashes and hints of the new keys.', {
      publicKeyHash: text('SHA-256 (hex) of the public key.'),
      secretKeyHash: text('SHA-256 (hex) of the secret key.'),
      publicKeyHint: text('Short hint of the public key.'),
      secretKeyHint: text('Short hint of the secret key.'),
    }),
  ),
  ProjectSuspended: v1(
    'project',
    "The project's bounce or complaint rate over its window passed the threshold: its sends " +
      'are refused (403 PROJECT_DISABLED) until it is reinstated.',
    object('The rates the suspension was decided on.', {
      reason: oneOfStrings(['BOUNCE_RATE', 'COMPLAINT_RATE'], 'Which rate passed its threshold.'),
      sends: count('Emails sent in the window.'),
      bounces: count('Hard bounces among them.'),
      complaints: count('Complaints among them.'),
      bounceRate: { type: 'number', minimum: 0, description: 'Bounces / sends (0..1).' },
      complaintRate: { type: 'number', minimum: 0, description: 'Complaints / sends (0..1).' },
      suspendedAt: dateTime('Time of the suspension'),
    }),
  ),
  ProjectReinstated: v1(
    'project',
    'The project may send again; its rates are measured afresh from then.',
    object('The reinstatement.', { reinstatedAt: dateTime('Time of the reinstatement') }),
  ),
  BillingLimitsChanged: v1(
    'project',
    "The project's monthly caps per billing category changed (by hand, or by its subscription): " +
      'the sending service refuses an email that would pass its category cap (402 ' +
      'BILLING_LIMIT_EXCEEDED).',
    object('The caps.', {
      limits: BILLING_LIMITS('Caps in force: per category the lower of `manual` and `plan`.'),
      manual: BILLING_LIMITS('Caps set by hand (PUT /users/@me/projects/:id/billing-limits).'),
      plan: {
        description: "Caps of the active subscription's plan (STAMP_STRIPE_PLANS), or null.",
        anyOf: [BILLING_LIMITS('The plan caps.'), { type: 'null' }],
      },
      source: oneOfStrings(['MANUAL', 'SUBSCRIPTION'], 'What changed them.'),
      changedAt: dateTime('Time of the change'),
    }),
  ),
  BillingSubscriptionChanged: v1(
    'project',
    "The payment provider reported a change of the project's subscription (its event id " +
      'derives the id of this event, so a redelivered notification is recorded once).',
    object('The subscription.', {
      provider: oneOfStrings(['stripe'], 'The payment provider.'),
      eventId: nonEmpty("The provider's event id (`evt_…`)."),
      eventType: nonEmpty(
        "The provider's event type, for example `customer.subscription.updated`.",
      ),
      eventCreatedAt: dateTime('Time the provider created its event'),
      customerId: nonEmpty("The provider's customer (`cus_…`)."),
      subscriptionId: {
        description: 'The subscription (`sub_…`), or null when the report names none.',
        anyOf: [{ type: 'string' }, { type: 'null' }],
      },
      priceId: {
        description: 'The subscribed price (`price_…`), or null when the report names none.',
        anyOf: [{ type: 'string' }, { type: 'null' }],
      },
      status: nonEmpty("The provider's status of the subscription (`active`, `canceled`, …)."),
      active: flag("Whether the plan's caps apply (`active`, `trialing`, `past_due`)."),
      changedAt: dateTime('Time it was recorded'),
    }),
  ),

  // contacts: contact
  ContactCreated: v1(
    'contact',
    'A contact was created with its first email, subscription and custom data.',
    object('The new contact.', {
      email: nonEmpty('Normalised email address.'),
      subscribed: flag('Subscription state.'),
      data: contactData('Custom data.'),
    }),
  ),
  ContactEmailChanged: v1(
    'contact',
    'The email of a contact changed.',
    object('Old and new normalised addresses.', {
      from: nonEmpty('Previous address.'),
      to: nonEmpty('New address.'),
    }),
  ),
  ContactDataChanged: v1(
    'contact',
    'Custom data keys of a contact were set or removed.',
    object('The change.', {
      set: contactData('Keys set, with their new values.'),
      unset: { type: 'array', items: { type: 'string' }, description: 'Keys removed.' },
    }),
  ),
  ContactSubscribed: v1('contact', 'The contact flipped to subscribed.', empty()),
  ContactUnsubscribed: v1('contact', 'The contact flipped to unsubscribed.', empty()),
  ContactDeleted: v1(
    'contact',
    'The contact was deleted: every consumer drops its personal data from its views.',
    empty(),
  ),

  // contacts: email claims
  EmailClaimed: v1(
    'contactEmail',
    'A contact claimed an email address within its project (unique email per project).',
    object('The holder.', { contactId: nonEmpty('Contact id.') }),
  ),
  EmailReleased: v1(
    'contactEmail',
    'The contact holding an email address released it (email change or deletion).',
    object('The former holder.', { contactId: nonEmpty('Contact id.') }),
  ),

  // contacts: tracked events
  EventTracked: v1(
    'trackedEvent',
    'A named event was recorded for a contact (POST /v1/track).',
    object('The tracked event.', {
      name: nonEmpty('Event name.'),
      contactId: nonEmpty('Contact id.'),
      email: nonEmpty('Email address of the contact.'),
      data: contactData('Event data as sent.'),
    }),
  ),
  TrackedEventsDeleted: v1(
    'trackedEventName',
    'Every tracked event of one name of a project, up to a log position, was deleted.',
    object('The deleted name.', {
      name: nonEmpty('Event name.'),
      upToPosition: count('Log position up to which (inclusive) events were deleted.'),
    }),
  ),

  // contacts: jobs
  JobQueued: v1(
    'contactJob',
    'A contact job (CSV import or bulk subscribe, unsubscribe, delete) was accepted.',
    {
      type: 'object',
      description: 'The job: `kind` says which fields follow.',
      required: ['kind', 'total', 'chunkSizes'],
      additionalProperties: true,
      properties: {
        kind: oneOfStrings(
          ['import', 'bulk-subscribe', 'bulk-unsubscribe', 'bulk-delete'],
          'What the job does.',
        ),
        total: count('Rows (import) or ids (bulk) to process.'),
        chunkSizes: {
          type: 'array',
          items: count('Rows of the chunk.'),
          description: 'Rows of each chunk, by chunk index.',
        },
        ...IMPORT_JOB_FIELDS,
        ...BULK_JOB_FIELDS,
      },
      if: { type: 'object', properties: { kind: { const: 'import' } }, required: ['kind'] },
      then: {
        type: 'object',
        properties: IMPORT_JOB_FIELDS,
        required: Object.keys(IMPORT_JOB_FIELDS),
      },
      else: { type: 'object', properties: BULK_JOB_FIELDS, required: Object.keys(BULK_JOB_FIELDS) },
    },
  ),
  JobStarted: v1('contactJob', 'The worker took the job up.', empty()),
  RowsProcessed: v1(
    'contactJob',
    'Rows of one chunk were applied.',
    object('The rows applied.', {
      chunk: count('Chunk index.'),
      from: count('First row (inclusive) within the chunk.'),
      to: count('Last row (exclusive) within the chunk.'),
      counts: {
        type: 'object',
        description: 'Rows per outcome.',
        properties: Object.fromEntries(ROW_OUTCOMES.map((name) => [name, count(name)])),
        additionalProperties: { type: 'integer', minimum: 0 },
      },
      errors: {
        type: 'array',
        description: 'Rows that were not applied, with the reason.',
        items: object(
          'A row not applied: line and email (import) or id (bulk).',
          {
            line: count('1-based line of the CSV file where the record starts.', 1),
            email: text('Email of the row.'),
            id: text('Contact id.'),
            reason: text('Why the row was not applied.'),
          },
          ['reason'],
        ),
      },
    }),
  ),
  JobCompleted: v1('contactJob', 'Every row of the job was processed.', empty()),
  JobFailed: v1(
    'contactJob',
    'The job stopped for a reason other than a bad row.',
    object('Why.', { reason: text('Reason.') }),
  ),
  ImportChunkQueued: v1(
    'contactImportRows',
    'One chunk of the rows of a CSV import (the stream is deleted once the job ended).',
    object('The rows.', {
      chunk: count('Chunk index.'),
      rows: {
        type: 'array',
        description:
          'Records of the file: values in header order, or the error that made one unreadable.',
        items: {
          type: 'object',
          description: 'One record, starting at `line` (1-based).',
          required: ['line'],
          additionalProperties: true,
          properties: {
            line: count('1-based line where the record starts.', 1),
            values: ROW_VALUES,
            error: ROW_ERROR,
          },
          anyOf: [
            { type: 'object', properties: { values: ROW_VALUES }, required: ['values'] },
            { type: 'object', properties: { error: ROW_ERROR }, required: ['error'] },
          ],
        },
      },
    }),
  ),

  // domains
  DomainAdded: v1(
    'domain',
    'A sender domain was added to a project with a new RSA-2048 DKIM key pair.',
    object('The domain.', {
      domainId: nonEmpty('Domain id.'),
      projectId: nonEmpty('Project id.'),
      domain: nonEmpty('Lowercase hostname.'),
      selector: nonEmpty('DKIM selector.'),
      publicKey: nonEmpty('Base64 of the SPKI DER public key (DKIM `p=` tag).'),
      privateKey: nonEmpty(
        'The private key sealed with the platform secret (`v1.<iv>.<ciphertext>.<tag>`), ' +
          'never plaintext.',
      ),
      records: { type: 'array', items: DNS_RECORD, description: 'Records to add, all PENDING.' },
      addedAt: dateTime('Time the domain was added'),
    }),
  ),
  DomainVerified: v1(
    'domain',
    'A check found the DKIM record resolving to the domain key.',
    object('The check.', DOMAIN_CHECK),
  ),
  DomainVerificationFailed: v1(
    'domain',
    'A check of a verified domain no longer found its DKIM key.',
    object('The check.', DOMAIN_CHECK),
  ),
  DomainChecked: v1(
    'domain',
    'A check that did not change the domain status (record statuses may have changed).',
    object('The check.', DOMAIN_CHECK),
  ),
  DomainRemoved: v1(
    'domain',
    'The domain was removed from its project.',
    object('The removal.', { removedAt: dateTime('Time of the removal') }),
  ),
  DomainClaimed: v1(
    'domainclaim',
    'A domain name was taken within a project.',
    object('The holder.', { domainId: nonEmpty('Domain id.') }),
  ),
  DomainReleased: v1(
    'domainclaim',
    'A domain name was released by the removal of its domain.',
    object('The former holder.', { domainId: nonEmpty('Domain id.') }),
  ),

  // sending: emails
  EmailQueued: v1(
    'email',
    'An email was accepted for delivery. The data also carries the rendered message ' +
      '(`html`, `headers`, `attachments`), which only delivery uses.',
    object(
      'The email.',
      {
        emailId: nonEmpty('Email id (as POST /v1/send returned it).'),
        contactId: nonEmpty('Recipient contact id.'),
        to: MAILBOX,
        from: MAILBOX,
        replyTo: text('Reply-To address.'),
        subject: text('Rendered subject.'),
        templateId: text('Template the email was rendered from.'),
        campaignId: text('Campaign the email belongs to.'),
        workflowId: text('Workflow whose SEND_EMAIL step sent the email.'),
        executionId: text('Workflow execution that sent the email.'),
        marketing: flag('A campaign email or a MARKETING template (tracking MARKETING_ONLY).'),
        sandbox: flag('Sandbox sender: only ever delivered to the local outbox.'),
      },
      ['emailId', 'contactId', 'to', 'from', 'subject', 'sandbox'],
    ),
  ),
  EmailDeferred: v1(
    'email',
    'A delivery attempt failed transiently; another attempt is due at `retryAt`.',
    object('The failed attempt.', {
      attempt: count('Number of the failed attempt.', 1),
      error: text('The error.'),
      retryAt: dateTime('Time of the next attempt'),
    }),
  ),
  EmailRetryDue: v1(
    'email',
    'The retry timer of a deferred email fired.',
    object('The attempt.', { attempt: count('Number of the deferred attempt.', 1) }),
  ),
  EmailSent: v1(
    'email',
    'The receiving side (SMTP relay or local outbox) accepted the email.',
    object('The acceptance.', {
      messageId: nonEmpty('Message-ID of the email.'),
      response: text('The server reply, for example `250 OK: queued`.'),
      transport: oneOfStrings(['smtp', 'outbox'], 'Where the email went.'),
      sentAt: dateTime('Time of acceptance'),
    }),
  ),
  EmailFailed: v1(
    'email',
    'The email was rejected permanently, or its retries were exhausted.',
    object('The failure.', {
      error: text('The last error (an SMTP reply may quote the recipient address).'),
      failedAt: dateTime('Time of the failure'),
    }),
  ),

  EmailBounced: v1(
    'email',
    "The recipient's server refused the email for good (a hard bounce); the address is " +
      'suppressed and the contact unsubscribed.',
    object(
      'The bounce.',
      {
        bounceType: oneOfStrings(['hard'], 'Kind of bounce.'),
        source: oneOfStrings(
          ['smtp', 'dsn', 'sns'],
          'Where the bounce was learnt: the SMTP reply at delivery, a DSN (RFC 3464), or an ' +
            'Amazon SES notification through SNS.',
        ),
        recipient: nonEmpty('The refused address.'),
        responseCode: count('SMTP reply code at delivery (RFC 5321).'),
        status: text('Enhanced status code of a DSN (RFC 3463).'),
        diagnostic: text("The server's reply."),
        bouncedAt: dateTime('Time of the bounce'),
      },
      ['bounceType', 'source', 'recipient', 'diagnostic', 'bouncedAt'],
    ),
  ),
  EmailComplained: v1(
    'email',
    'The recipient reported the email as unwanted (an ARF report, RFC 5965); the address is ' +
      'suppressed and the contact unsubscribed.',
    object(
      'The complaint.',
      {
        feedbackType: nonEmpty('Feedback-Type of the report, for example `abuse`.'),
        userAgent: text("User-Agent of the report: the provider's software."),
        recipient: nonEmpty('The address that complained.'),
        complainedAt: dateTime('Time the report arrived'),
      },
      ['feedbackType', 'recipient', 'complainedAt'],
    ),
  ),
  EmailSuppressed: v1(
    'email',
    "The address is on the project's suppression list: the email was not sent.",
    object('The decision.', {
      reason: oneOfStrings(['HARD_BOUNCE', 'COMPLAINT', 'MANUAL'], 'Why it is suppressed.'),
      suppressedAt: dateTime('Time of the decision'),
    }),
  ),
  EmailOpened: v1(
    'email',
    "The email's open pixel was fetched.",
    object('The open.', { ...ENGAGEMENT_FIELDS, openedAt: dateTime('Time of the request') }, [
      'emailId',
      'subject',
      'automated',
      'openedAt',
    ]),
  ),
  EmailClicked: v1(
    'email',
    'A tracked link of the email was followed.',
    object(
      'The click.',
      {
        ...ENGAGEMENT_FIELDS,
        url: nonEmpty("The link's original URL."),
        clickedAt: dateTime('Time of the request'),
      },
      ['emailId', 'subject', 'automated', 'url', 'clickedAt'],
    ),
  ),

  // sending: received emails
  EmailReceived: v1(
    'inboundEmail',
    'A message addressed to a verified domain of the project was received, on the contact of ' +
      'its sender.',
    object(
      'The message.',
      {
        inboundEmailId: nonEmpty('Id of the received email.'),
        contactId: nonEmpty("The sender's contact."),
        from: MAILBOX,
        to: { type: 'array', items: { type: 'string' }, description: 'Envelope recipients.' },
        subject: text('Subject.'),
        messageId: text('Message-ID without angle brackets.'),
        size: count('Size of the raw message, bytes.'),
        raw: text('The raw RFC 5322 message.'),
        receivedAt: dateTime('Time of receipt'),
      },
      ['inboundEmailId', 'contactId', 'from', 'to', 'subject', 'size', 'raw', 'receivedAt'],
    ),
  ),

  // sending: suppressions
  SuppressionAdded: v1(
    'suppression',
    "An address was put on the project's suppression list.",
    object(
      'The suppression.',
      {
        email: nonEmpty('The address, lower-cased.'),
        reason: oneOfStrings(['HARD_BOUNCE', 'COMPLAINT', 'MANUAL'], 'Why.'),
        emailId: text('The email whose bounce or complaint caused it.'),
        contactId: text('The contact the address belonged to.'),
      },
      ['email', 'reason'],
    ),
  ),
  SuppressionRemoved: v1(
    'suppression',
    "An address was taken off the project's suppression list.",
    object('The address.', { email: nonEmpty('The address, lower-cased.') }),
  ),

  // activity: webhook endpoints
  WebhookEndpointCreated: v1(
    'webhookEndpoint',
    'A webhook endpoint was created (API reference, "Webhook endpoints").',
    object(
      'The endpoint.',
      {
        projectId: nonEmpty('Project of the endpoint.'),
        url: nonEmpty('Absolute http(s) URL the deliveries are posted to.'),
        eventTypes: {
          type: 'array',
          items: { type: 'string' },
          minItems: 1,
          description: 'Webhook event types delivered, or `["*"]` for every type.',
        },
        description: text('What the endpoint is for.'),
        enabled: flag('Whether deliveries are made.'),
        secret: nonEmpty('The signing secret, sealed (AES-256-GCM) with the platform secret.'),
      },
      ['projectId', 'url', 'eventTypes', 'enabled', 'secret'],
    ),
  ),
  WebhookEndpointUpdated: v1(
    'webhookEndpoint',
    'Settings of a webhook endpoint changed; only the changed fields are present.',
    object(
      'The changed fields.',
      {
        url: nonEmpty('New URL.'),
        eventTypes: {
          type: 'array',
          items: { type: 'string' },
          minItems: 1,
          description: 'New event types.',
        },
        description: text('New description; empty removes it.'),
        enabled: flag('Whether deliveries are made.'),
      },
      [],
    ),
  ),
  WebhookEndpointDisabled: v1(
    'webhookEndpoint',
    'A webhook endpoint was disabled after every delivery failed for days.',
    object(
      'Why.',
      {
        reason: nonEmpty('Why it was disabled.'),
        failingSince: dateTime('Time of the first failure since the last success'),
      },
      ['reason', 'failingSince'],
    ),
  ),
  WebhookEndpointDeleted: v1('webhookEndpoint', 'A webhook endpoint was deleted.', empty()),

  // sending: templates
  TemplateCreated: v1(
    'template',
    'A template was created.',
    object(
      'The template.',
      {
        templateId: nonEmpty('Template id.'),
        name: text('Name.'),
        subject: text('Subject (Liquid).'),
        body: text('HTML body (Liquid).'),
        type: TEMPLATE_TYPE,
        from: text('Sender address.'),
        fromName: text('Sender display name.'),
        replyTo: text('Reply-To address.'),
        createdAt: dateTime('Time of creation'),
      },
      ['templateId', 'name', 'subject', 'body', 'type', 'createdAt'],
    ),
  ),
  TemplateUpdated: v1(
    'template',
    'Fields of a template changed.',
    object('The change.', {
      templateId: nonEmpty('Template id.'),
      patch: object(
        'The fields changed, with their new values.',
        {
          name: text('Name.'),
          subject: text('Subject (Liquid).'),
          body: text('HTML body (Liquid).'),
          type: TEMPLATE_TYPE,
          from: clearable('Sender address.'),
          fromName: clearable('Sender display name.'),
          replyTo: clearable('Reply-To address.'),
        },
        [],
      ),
      updatedAt: dateTime('Time of the change'),
    }),
  ),
  TemplateDeleted: v1(
    'template',
    'A template was deleted.',
    object('The deletion.', {
      templateId: nonEmpty('Template id.'),
      deletedAt: dateTime('Time of the deletion'),
    }),
  ),

  // segments
  SegmentCreated: v1(
    'segment',
    'A segment was created in a project.',
    object('The segment.', {
      segmentId: nonEmpty('Segment id.'),
      projectId: nonEmpty('Project id.'),
      name: nonEmpty('Name.'),
      description: clearable('Description.'),
      segmentType: oneOfStrings(['DYNAMIC', 'STATIC'], 'Segment type.'),
      condition: {
        description:
          'The condition of a DYNAMIC segment (API reference, "Filter language"); null for STATIC.',
        anyOf: [{ type: 'object' }, { type: 'null' }],
      },
      trackMembership: flag('Whether membership is tracked with entry and exit events.'),
      createdAt: dateTime('Time of the creation'),
    }),
  ),
  SegmentUpdated: v1(
    'segment',
    'Fields of a segment changed; only the changed ones are present.',
    object(
      'The change.',
      {
        name: nonEmpty('Name.'),
        description: clearable('Description.'),
        condition: { type: 'object', description: 'The new condition (DYNAMIC only).' },
        trackMembership: flag('Whether membership is tracked.'),
        updatedAt: dateTime('Time of the change'),
      },
      ['updatedAt'],
    ),
  ),
  SegmentDeleted: v1(
    'segment',
    'A segment was deleted.',
    object('The deletion.', { deletedAt: dateTime('Time of the deletion') }),
  ),
  SegmentMembersAdded: v1(
    'segment',
    'Contacts joined a STATIC segment (ids that were not members).',
    object('The members.', {
      contactIds: { type: 'array', items: nonEmpty('Contact id.'), description: 'Contact ids.' },
    }),
  ),
  SegmentMembersRemoved: v1(
    'segment',
    'Contacts left a STATIC segment (ids that were members).',
    object('The members.', {
      contactIds: { type: 'array', items: nonEmpty('Contact id.'), description: 'Contact ids.' },
    }),
  ),
  SegmentCounted: v1(
    'segment',
    "The segment's members were counted.",
    object('The count.', {
      memberCount: count('Members counted.'),
      countedAt: dateTime('Time of the count'),
    }),
  ),

  // segment memberships
  SegmentEntered: v1(
    'segmentMembership',
    'A contact entered a segment whose membership is tracked (system event `segment.<slug>.entry`).',
    object('The entry.', {
      name: nonEmpty('System event name, `segment.<slug>.entry`.'),
      segmentId: nonEmpty('Segment id.'),
      segmentName: nonEmpty('Name of the segment at the time.'),
      contactId: nonEmpty('Contact id.'),
    }),
  ),
  SegmentExited: v1(
    'segmentMembership',
    'A contact left a segment whose membership is tracked (system event `segment.<slug>.exit`).',
    object('The exit.', {
      name: nonEmpty('System event name, `segment.<slug>.exit`.'),
      segmentId: nonEmpty('Segment id.'),
      segmentName: nonEmpty('Name of the segment at the time.'),
      contactId: nonEmpty('Contact id.'),
    }),
  ),
  SegmentMembershipDue: v1(
    'segmentMembership',
    'A timer fired: the passage of time may have changed whether the contact is a member.',
    object('The timer.', {
      segmentId: nonEmpty('Segment id.'),
      contactId: nonEmpty('Contact id.'),
    }),
  ),

  // campaigns
  CampaignCreated: v1(
    'campaign',
    'A campaign was created in DRAFT.',
    object(
      'The campaign.',
      {
        campaignId: nonEmpty('Campaign id.'),
        projectId: nonEmpty('Project id.'),
        ...CAMPAIGN_FIELDS,
        createdAt: dateTime('Time of the creation'),
      },
      ['campaignId', 'projectId', ...CAMPAIGN_REQUIRED, 'createdAt'],
    ),
  ),
  CampaignUpdated: v1(
    'campaign',
    'The fields of a DRAFT or SCHEDULED campaign were replaced.',
    object('The new fields.', { ...CAMPAIGN_FIELDS, updatedAt: dateTime('Time of the change') }, [
      ...CAMPAIGN_REQUIRED,
      'updatedAt',
    ]),
  ),
  CampaignDeleted: v1(
    'campaign',
    'A campaign was deleted.',
    object('The deletion.', { deletedAt: dateTime('Time of the deletion') }),
  ),
  CampaignScheduled: v1(
    'campaign',
    'A send was scheduled; the timer appends CampaignSendDue at `scheduledFor`.',
    object('The schedule.', {
      scheduledFor: dateTime('Time of the send'),
      timerId: nonEmpty('Timer id (the id of the CampaignSendDue it appends).'),
    }),
  ),
  CampaignSendDue: v1(
    'campaign',
    'The timer of a schedule fired.',
    object('The timer.', { timerId: nonEmpty('Timer id.') }),
  ),
  CampaignSendingStarted: v1(
    'campaign',
    'The campaign started sending: its audience is fixed next.',
    object('The start.', { startedAt: dateTime('Time of the start') }),
  ),
  CampaignAudienceFixed: v1(
    'campaign',
    'The audience was recorded (stream `campaignAudience-<campaignId>`).',
    object('The audience.', {
      recipients: count('Contacts in the audience.'),
      batches: count('Batches they were recorded in.'),
    }),
  ),
  CampaignBatchQueued: v1(
    'campaign',
    'One batch of the audience was handed to delivery.',
    object('The batch.', {
      batch: count('Number of the batch (from 0).'),
      queued: count('Emails queued.'),
      existing: count('Emails queued by an earlier attempt of the batch.'),
      skipped: count('Recipients deleted or unsubscribed since the audience was fixed.'),
    }),
  ),
  CampaignCancelled: v1(
    'campaign',
    'A SCHEDULED or SENDING campaign was cancelled.',
    object('The cancellation.', {
      cancelledAt: dateTime('Time of the cancellation'),
      reason: clearable('Why the platform cancelled it; null when a user did.'),
    }),
  ),
  CampaignSent: v1(
    'campaign',
    'Every batch of the audience was handed to delivery.',
    object('The end.', {
      sentAt: dateTime('Time of the end'),
      recipients: count('Contacts in the audience.'),
    }),
  ),
  // workflows: definitions
  WorkflowCreated: v1(
    'workflow',
    'A workflow was created (trigger EVENT, disabled) with its implicit TRIGGER step.',
    object('The workflow.', {
      workflowId: nonEmpty('Workflow id.'),
      projectId: nonEmpty('Project id.'),
      name: nonEmpty('Name.'),
      eventName: nonEmpty('Event that starts an execution.'),
      enabled: flag('Whether events start executions.'),
      allowReentry: flag('Whether a contact may go through it again.'),
      trigger: anyObject('The TRIGGER step.'),
      createdAt: dateTime('Time of the creation'),
    }),
  ),
  WorkflowUpdated: v1(
    'workflow',
    'Metadata, trigger type, enabled or allowReentry changed.',
    object('The change.', {
      changes: anyObject('The changed settings.'),
      updatedAt: dateTime('Time of the change'),
    }),
  ),
  WorkflowDeleted: v1(
    'workflow',
    'A workflow without active executions was deleted.',
    object('The deletion.', { deletedAt: dateTime('Time of the deletion') }),
  ),
  WorkflowStepAdded: v1(
    'workflow',
    'A step was added.',
    object('The step.', { step: anyObject('The step.'), updatedAt: dateTime('Time') }),
  ),
  WorkflowStepUpdated: v1(
    'workflow',
    "A step's name, position or config changed.",
    object('The step.', { step: anyObject('The step as it is now.'), updatedAt: dateTime('Time') }),
  ),
  WorkflowStepRemoved: v1(
    'workflow',
    'A step and its transitions were removed; `spliced` reconnects its predecessor.',
    object('The removal.', { stepId: nonEmpty('Step id.'), updatedAt: dateTime('Time') }),
  ),
  WorkflowTransitionAdded: v1(
    'workflow',
    'A transition was added.',
    object('The transition.', {
      transition: anyObject('The transition.'),
      updatedAt: dateTime('Time'),
    }),
  ),
  WorkflowTransitionRemoved: v1(
    'workflow',
    'A transition was removed.',
    object('The removal.', {
      transitionId: nonEmpty('Transition id.'),
      updatedAt: dateTime('Time'),
    }),
  ),

  // workflows: executions and enrollments
  ExecutionStarted: v1(
    'workflowExecution',
    'An execution of a workflow began for a contact.',
    object('The execution.', {
      executionId: nonEmpty('Execution id.'),
      workflowId: nonEmpty('Workflow id.'),
      projectId: nonEmpty('Project id.'),
      contactId: nonEmpty('Contact id.'),
      context: anyObject('Per-execution variables (the trigger event data).'),
      startedAt: dateTime('Time of the start'),
    }),
  ),
  ExecutionStepCompleted: v1(
    'workflowExecution',
    'A step ran; `nextStepId` is where the execution goes on (null: the end).',
    object('The step.', {
      stepId: nonEmpty('Step id.'),
      stepType: nonEmpty('Step type.'),
      outcome: nonEmpty('Outcome.'),
      completedAt: dateTime('Time'),
    }),
  ),
  ExecutionWaiting: v1(
    'workflowExecution',
    'The execution waits at a DELAY or WAIT_FOR_EVENT step.',
    object('The wait.', { stepId: nonEmpty('Step id.'), since: dateTime('Time') }),
  ),
  ExecutionTimerDue: v1(
    'workflowExecution',
    "A wait's timer fired (event id = timer id).",
    object('The timer.', { timerId: nonEmpty('Timer id.') }),
  ),
  ExecutionCompleted: v1(
    'workflowExecution',
    'The execution reached the end of its graph.',
    object('The end.', executionEnd({})),
  ),
  ExecutionExited: v1(
    'workflowExecution',
    'The execution ended at an EXIT step, or because its contact was deleted.',
    object('The end.', executionEnd({ reason: text('Why.') })),
  ),
  ExecutionFailed: v1(
    'workflowExecution',
    'A step failed; the execution ended.',
    object('The end.', executionEnd({ error: text('The error.') })),
  ),
  ExecutionCancelled: v1(
    'workflowExecution',
    'The execution was cancelled.',
    object('The end.', executionEnd({})),
  ),
  EnrollmentStarted: v1(
    'workflowEnrollment',
    'An execution of the contact in the workflow began.',
    object('The enrollment.', {
      executionId: nonEmpty('Execution id.'),
      workflowId: nonEmpty('Workflow id.'),
      contactId: nonEmpty('Contact id.'),
    }),
  ),
  EnrollmentEnded: v1(
    'workflowEnrollment',
    'The active execution of the contact in the workflow ended.',
    object('The end.', { executionId: nonEmpty('Execution id.') }),
  ),
  CampaignAudienceRecorded: v1(
    'campaignAudience',
    'One batch of the audience fixed when a campaign started sending.',
    object('The batch.', {
      batch: count('Number of the batch (from 0; the event revision).'),
      contactIds: { type: 'array', items: nonEmpty('Contact id.'), description: 'Contact ids.' },
    }),
  ),
};

// ---------------------------------------------------------------------------------------------
// Topics.

/** A topic of the bus: one per stream category. */
export interface TopicInfo {
  /** Stream category (the topic name without prefix). */
  readonly category: string;
  /** Service that appends the events (the only writer). */
  readonly owner: string;
  readonly description: string;
  /** Event types published on the topic. */
  readonly eventTypes: readonly string[];
}

const topic = (category: string, owner: string, description: string): TopicInfo => ({
  category,
  owner,
  description,
  eventTypes: Object.entries(EVENT_SCHEMAS)
    .filter(([, schema]) => schema.category === category)
    .map(([type]) => type),
});

/** Every topic of the bus (one per stream category), with its owner and event types. */
export const TOPICS: readonly TopicInfo[] = [
  topic(
    'bootstrap',
    'accounts',
    'The claims of the default project and of its first owner (streams `bootstrap-default`, ' +
      '`bootstrap-owner`).',
  ),
  topic('user', 'accounts', 'Users (streams `user-<userId>`).'),
  topic(
    'accountToken',
    'accounts',
    'Uses of single-use links sent by email (streams `accountToken-<token id>`).',
  ),
  topic(
    'accountEmail',
    'accounts',
    'Account mail to send: verification, password reset, invitation (streams `accountEmail-<id>`).',
  ),
  topic(
    'accountEmailDelivery',
    'sending',
    'Delivery of account mail (streams `accountEmailDelivery-<id>`, the id of its request).',
  ),
  topic(
    'userEmail',
    'accounts',
    'Claims of email addresses by user accounts (streams `userEmail-<derived id of the address>`).',
  ),
  topic('project', 'accounts', 'Projects and their API keys (streams `project-<projectId>`).'),
  topic('contact', 'contacts', 'Contacts (streams `contact-<contactId>`).'),
  topic(
    'contactEmail',
    'contacts',
    'Claims of email addresses, unique per project (streams ' +
      '`contactEmail-<projectId>.<sha256 of the normalised email>`).',
  ),
  topic(
    'trackedEvent',
    'contacts',
    'Tracked events, one stream per event (streams `trackedEvent-<eventId>`).',
  ),
  topic(
    'trackedEventName',
    'contacts',
    'Deletions of tracked events by name (streams `trackedEventName-<projectId>.<sha256 of the name>`).',
  ),
  topic(
    'contactJob',
    'contacts',
    'Contact jobs: CSV imports and bulk operations (streams `contactJob-<jobId>`).',
  ),
  topic(
    'contactImportRows',
    'contacts',
    'Rows of CSV imports, deleted once the job ended (streams `contactImportRows-<jobId>`).',
  ),
  topic('domain', 'domains', 'Sender domains and their DNS checks (streams `domain-<domainId>`).'),
  topic(
    'domainclaim',
    'domains',
    'Claims of domain names within a project (streams `domainclaim-<projectId>:<domain>`).',
  ),
  topic('email', 'sending', 'Emails and their delivery (streams `email-<emailId>`).'),
  topic('template', 'sending', 'Templates (streams `template-<templateId>`).'),
  topic(
    'inboundEmail',
    'sending',
    'Emails received for verified domains (streams `inboundEmail-<id>`).',
  ),
  topic(
    'suppression',
    'sending',
    'Suppression lists (streams `suppression-<derived id>`, one per project and address).',
  ),
  topic(
    'webhookEndpoint',
    'activity',
    'Webhook endpoints of projects (streams `webhookEndpoint-<endpointId>`).',
  ),
  topic(
    'segment',
    'segments',
    'Segments: definitions, static members and counts (streams `segment-<segmentId>`).',
  ),
  topic(
    'segmentMembership',
    'segments',
    'Memberships of contacts in segments whose membership is tracked, one stream per segment ' +
      'and contact (streams `segmentMembership-<derived id of segment and contact>`).',
  ),
  topic(
    'campaign',
    'campaigns',
    'Campaigns: definitions, schedules and the progress of their sending ' +
      '(streams `campaign-<campaignId>`).',
  ),
  topic(
    'workflow',
    'workflows',
    'Workflow definitions: settings, steps and transitions (streams `workflow-<workflowId>`).',
  ),
  topic(
    'workflowExecution',
    'workflows',
    'Executions of workflows, one stream per contact and start ' +
      '(streams `workflowExecution-<executionId>`).',
  ),
  topic(
    'workflowEnrollment',
    'workflows',
    'Which executions a contact had in a workflow, for the re-entry rule ' +
      '(streams `workflowEnrollment-<derived id of workflow and contact>`).',
  ),
  topic(
    'campaignAudience',
    'campaigns',
    'Audiences fixed when campaigns start sending, one batch per event ' +
      '(streams `campaignAudience-<campaignId>`).',
  ),
];

/** Default prefix of topic names. */
export const DEFAULT_TOPIC_PREFIX = 'stamp.';

/** Suffix of the dead-letter topic (after the prefix): envelopes that failed validation. */
export const DEAD_LETTER_TOPIC = 'dead-letter';

/** Name of the Kafka topic of stream category `category`: `<prefix><category>`. */
export const topicName = (prefix: string, category: string): string => `${prefix}${category}`;

/**
 * Schema of a dead-letter message value: why the envelope was refused, the topic it was meant
 * for, and the envelope as it was read (not necessarily valid).
 */
export const DEAD_LETTER_SCHEMA: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT_07,
  title: 'Dead letter',
  type: 'object',
  required: ['reason', 'topic', 'envelope'],
  additionalProperties: true,
  properties: {
    reason: text('Why validation refused the envelope.'),
    topic: text('Topic the envelope was meant for.'),
    envelope: { type: 'object', description: 'The refused envelope, as read from the store.' },
  },
};

/**
 * The envelope schema of one event type: {@link EVENT_ENVELOPE_SCHEMA} with `type` fixed to
 * `type` and `schemaVersion` to its version, and `data` checked against the type's data schema
 * unless the event was erased (then `data` is `{}`).
 * @throws Error when `type` has no entry in {@link EVENT_SCHEMAS}.
 */
export function envelopeSchemaOf(type: string): JsonSchema {
  const schema = EVENT_SCHEMAS[type];
  if (schema === undefined) throw new Error(`no schema for event type ${type}`);
  const properties = EVENT_ENVELOPE_SCHEMA.properties ?? {};
  return {
    ...EVENT_ENVELOPE_SCHEMA,
    title: type,
    description: schema.description,
    properties: {
      ...properties,
      type: { type: 'string', const: type, description: 'Event type.' },
      schemaVersion: {
        type: 'integer',
        const: schema.schemaVersion,
        description: 'Version of the schema of `data`.',
      },
      streamId: {
        type: 'string',
        pattern: `^${schema.category}-.+$`,
        description: `Stream id \`${schema.category}-<id>\`.`,
      },
      data: {
        description: 'The event data, or `{}` when the event was erased.',
        anyOf: [schema.data, ERASED_DATA],
      },
    },
    if: ERASED,
    then: { type: 'object', properties: { data: ERASED_DATA } },
    else: { type: 'object', properties: { data: schema.data } },
  };
}
