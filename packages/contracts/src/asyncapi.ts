/**
 * The AsyncAPI 3.0.0 document of the bus, generated from the event schemas (architecture brief,
 * "Contracts"): one channel per topic with a message per event type, the dead-letter channel, and
 * a `receive` operation per channel for subscribers. Served and committed as
 * `docs/asyncapi.yaml` (`./pnpmw -s stamp asyncapi > docs/asyncapi.yaml`).
 */
import {
  DEAD_LETTER_SCHEMA,
  DEAD_LETTER_TOPIC,
  DEFAULT_TOPIC_PREFIX,
  EVENT_ENVELOPE_SCHEMA,
  EVENT_SCHEMAS,
  type JsonSchema,
  TOPICS,
  TRACEPARENT_PATTERN,
  envelopeSchemaOf,
  topicName,
} from './event-schemas.ts';

/** Version of the event contracts described by the document (`info.version`). */
export const EVENTS_API_VERSION = '1.0.0';

/** Version of the AsyncAPI Kafka bindings used (kafka bindings 0.5.0). */
const KAFKA_BINDING_VERSION = '0.5.0';

/** Options of {@link asyncApiDocument}. */
export interface AsyncApiOptions {
  /** Prefix of every topic name, `stamp.` by default: topic = prefix + stream category. */
  topicPrefix?: string;
}

/** A JSON value of the document. */
export type AsyncApiValue =
  | string
  | number
  | boolean
  | null
  | readonly AsyncApiValue[]
  | { readonly [key: string]: AsyncApiValue };

/** An AsyncAPI document as plain JSON-compatible objects. */
export type AsyncApiDocument = { readonly [key: string]: AsyncApiValue };

const reference = (path: string): AsyncApiValue => ({ $ref: path });

/**
 * A schema as a document value, without `$schema` (AsyncAPI schema objects are JSON Schema
 * draft-07 supersets); a sub-schema found in `shared` (by identity) becomes a `$ref` to its
 * component instead of a copy.
 */
function schemaValue(
  schema: JsonSchema,
  shared: ReadonlyMap<JsonSchema, string> = new Map(),
  root = true,
): AsyncApiValue {
  const name = root ? undefined : shared.get(schema);
  if (name !== undefined) return reference(`#/components/schemas/${pointer(name)}`);
  const value: Record<string, AsyncApiValue> = {};
  for (const [key, field] of Object.entries(schema) as [string, unknown][]) {
    if (key === '$schema') continue;
    value[key] = valueOf(field, shared);
  }
  return value;
}

/** A field of a schema: sub-schemas, maps and lists of sub-schemas, or plain values. */
function valueOf(field: unknown, shared: ReadonlyMap<JsonSchema, string>): AsyncApiValue {
  if (Array.isArray(field)) return field.map((item: unknown) => valueOf(item, shared));
  if (typeof field === 'object' && field !== null) {
    if (shared.has(field)) return schemaValue(field, shared, false);
    const value: Record<string, AsyncApiValue> = {};
    for (const [key, item] of Object.entries(field)) value[key] = valueOf(item, shared);
    return value;
  }
  if (typeof field === 'string' || typeof field === 'number' || typeof field === 'boolean') {
    return field;
  }
  return null;
}

/** `#/...` pointer segment escaping (RFC 6901). */
const pointer = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Payload schema of the messages of `type`: the envelope (component `EventEnvelope`) refined as
 * in {@link envelopeSchemaOf}: `streamId` of the type's category, `type` and `schemaVersion`
 * fixed, and `data` matching the type's data schema unless the event was erased.
 */
function payloadOf(type: string, shared: ReadonlyMap<JsonSchema, string>): AsyncApiValue {
  const full = envelopeSchemaOf(type);
  const properties = full.properties ?? {};
  const pick = (name: string): Record<string, JsonSchema> => {
    const property = properties[name];
    return property === undefined ? {} : { [name]: property };
  };
  const refinement: JsonSchema = {
    type: 'object',
    properties: {
      ...pick('streamId'),
      ...pick('type'),
      ...pick('schemaVersion'),
      ...pick('data'),
    },
    ...(full.if === undefined ? {} : { if: full.if }),
    ...(full.else === undefined ? {} : { else: full.else }),
  };
  return {
    title: type,
    description: full.description ?? type,
    allOf: [reference('#/components/schemas/EventEnvelope'), schemaValue(refinement, shared)],
  };
}

/** Headers of every event message (the relay sets them). */
function headersOf(type: string): AsyncApiValue {
  return {
    type: 'object',
    properties: {
      traceparent: {
        type: 'string',
        pattern: TRACEPARENT_PATTERN,
        description: 'W3C trace context of the event, when it has one (`metadata.traceparent`).',
      },
      'stamp-event-type': { type: 'string', const: type, description: 'The event type.' },
    },
    required: ['stamp-event-type'],
  };
}

const KEY_BINDING: AsyncApiValue = {
  kafka: {
    key: {
      type: 'string',
      description: 'The stream id (`<category>-<id>`): events of one stream keep their order.',
    },
    bindingVersion: KAFKA_BINDING_VERSION,
  },
};

/**
 * The AsyncAPI 3.0.0 document of the events on the bus: server `kafka` (host placeholder
 * `{brokers}`), one channel per topic of {@link TOPICS} (address `<topicPrefix><category>`) whose
 * messages are the topic's event types (payload = the envelope schema of the type, Kafka key =
 * stream id, headers `traceparent` and `stamp-event-type`), the dead-letter channel, and one
 * `receive` operation per channel. Deterministic: the same options give the same document.
 * @throws Error when two event types share one data schema object (a contracts bug).
 */
export function asyncApiDocument(options: AsyncApiOptions = {}): AsyncApiDocument {
  const prefix = options.topicPrefix ?? DEFAULT_TOPIC_PREFIX;
  const channels: Record<string, AsyncApiValue> = {};
  const operations: Record<string, AsyncApiValue> = {};
  const messages: Record<string, AsyncApiValue> = {};
  // Schemas shared by several messages live once in components/schemas.
  const shared = new Map<JsonSchema, string>();
  const metadata = EVENT_ENVELOPE_SCHEMA.properties?.metadata;
  if (metadata !== undefined) shared.set(metadata, 'EventMetadata');
  const erasedData = EVENT_ENVELOPE_SCHEMA.then?.properties?.data;
  if (erasedData !== undefined) shared.set(erasedData, 'ErasedData');
  for (const [type, schema] of Object.entries(EVENT_SCHEMAS)) {
    // One data schema object per type, so that each message refers to its own component.
    const other = shared.get(schema.data);
    if (other !== undefined) throw new Error(`${type} shares its data schema with ${other}`);
    shared.set(schema.data, `${type}Data`);
  }
  const schemas: Record<string, AsyncApiValue> = {
    EventEnvelope: schemaValue(EVENT_ENVELOPE_SCHEMA, shared),
  };
  for (const [schema, name] of shared) schemas[name] = schemaValue(schema, shared);

  for (const topic of TOPICS) {
    const channelMessages: Record<string, AsyncApiValue> = {};
    for (const type of topic.eventTypes) {
      const schema = EVENT_SCHEMAS[type];
      if (schema === undefined) continue;
      messages[type] = {
        name: type,
        title: type,
        summary: schema.description,
        contentType: 'application/json',
        headers: headersOf(type),
        payload: payloadOf(type, shared),
        bindings: KEY_BINDING,
      };
      channelMessages[type] = reference(`#/components/messages/${pointer(type)}`);
    }
    channels[topic.category] = {
      address: topicName(prefix, topic.category),
      title: topic.category,
      description: `${topic.description} Owner: the ${topic.owner} service.`,
      servers: [reference('#/servers/kafka')],
      messages: channelMessages,
    };
    operations[`receive-${topic.category}`] = {
      action: 'receive',
      title: `Receive ${topic.category} events`,
      summary: `Consume the events of the ${topic.category} topic (owner: ${topic.owner}).`,
      channel: reference(`#/channels/${pointer(topic.category)}`),
      messages: topic.eventTypes.map((type) =>
        reference(`#/channels/${pointer(topic.category)}/messages/${pointer(type)}`),
      ),
    };
  }

  messages.DeadLetter = {
    name: 'DeadLetter',
    title: 'Dead letter',
    summary: 'An envelope that failed validation, with the reason and its intended topic.',
    contentType: 'application/json',
    headers: {
      type: 'object',
      properties: {
        traceparent: { type: 'string', pattern: TRACEPARENT_PATTERN },
        'stamp-event-type': { type: 'string', description: 'Type of the refused event.' },
      },
    },
    payload: schemaValue(DEAD_LETTER_SCHEMA),
    bindings: KEY_BINDING,
  };
  channels.deadLetter = {
    address: topicName(prefix, DEAD_LETTER_TOPIC),
    title: DEAD_LETTER_TOPIC,
    description:
      'Envelopes the relay refused (they failed validation against their schema) instead of ' +
      'publishing them on their topic.',
    servers: [reference('#/servers/kafka')],
    messages: { DeadLetter: reference('#/components/messages/DeadLetter') },
  };
  operations['receive-deadLetter'] = {
    action: 'receive',
    title: 'Receive dead letters',
    summary: 'Consume the envelopes refused by validation (operators, alerting).',
    channel: reference('#/channels/deadLetter'),
    messages: [reference('#/channels/deadLetter/messages/DeadLetter')],
  };

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Stamp events',
      version: EVENTS_API_VERSION,
      description:
        'Domain events of Stamp as published on Kafka in distributed mode. A relay reads every ' +
        'event of the event store and publishes it on the topic of its stream category ' +
        `(\`${prefix}<category>\`), keyed by stream id, so the events of one stream keep their ` +
        'order. The value is the JSON envelope of the event. Delivery is at least once: ' +
        'consumers deduplicate by event id or stream revision. Consumers ignore event types ' +
        'and fields they do not know; changes are additive, and a breaking change takes a new ' +
        '`schemaVersion`. An erased event (its contact was deleted) carries `erased: true` and ' +
        'empty `data`.',
    },
    defaultContentType: 'application/json',
    servers: {
      kafka: {
        host: '{brokers}',
        protocol: 'kafka',
        description: 'The Kafka cluster of the installation.',
        variables: {
          brokers: {
            default: 'localhost:9092',
            description: 'Bootstrap broker `host:port` of the installation.',
          },
        },
      },
    },
    channels,
    operations,
    components: { schemas, messages },
  };
}
