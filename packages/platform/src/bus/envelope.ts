import { EVENT_ENVELOPE_SCHEMA, EVENT_SCHEMAS } from '@stamp/contracts';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

import type { RecordedEvent } from '../event-store/event-store.ts';

/** Outcome of {@link EnvelopeValidator.check}: the event, or why the envelope is refused. */
export type EnvelopeCheck = { ok: true; event: RecordedEvent } | { ok: false; reason: string };

/**
 * Validates event envelopes where they enter and leave the bus (architecture brief, "Contracts"):
 * the envelope against `EVENT_ENVELOPE_SCHEMA`, and the data of a known event type, unless erased,
 * against its JSON Schema in `EVENT_SCHEMAS` when the schema versions match. Types without a
 * schema pass on the envelope alone; a newer schema version than the contracts know passes too
 * (its consumers upcast or ignore it).
 */
export class EnvelopeValidator {
  private readonly envelope: ValidateFunction;
  private readonly data = new Map<string, { schemaVersion: number; validate: ValidateFunction }>();

  constructor() {
    const ajv = new Ajv({ allErrors: false, strict: false });
    addFormats.default(ajv);
    this.envelope = ajv.compile(EVENT_ENVELOPE_SCHEMA);
    for (const [type, schema] of Object.entries(EVENT_SCHEMAS)) {
      this.data.set(type, {
        schemaVersion: schema.schemaVersion,
        validate: ajv.compile(schema.data),
      });
    }
  }

  /** Checks a decoded envelope (a parsed Kafka value or an event read from the store). */
  check(value: unknown): EnvelopeCheck {
    if (!this.envelope(value)) {
      return { ok: false, reason: `envelope: ${describe(this.envelope)}` };
    }
    const event = value as RecordedEvent;
    const known = this.data.get(event.type);
    if (
      known !== undefined &&
      event.erased !== true &&
      known.schemaVersion === event.schemaVersion
    ) {
      if (!known.validate(event.data)) {
        return { ok: false, reason: `${event.type} data: ${describe(known.validate)}` };
      }
    }
    return { ok: true, event };
  }

  /** Parses and checks a Kafka message value (JSON text). */
  parse(text: string): EnvelopeCheck {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, reason: 'value is not JSON' };
    }
    return this.check(value);
  }
}

function describe(validate: ValidateFunction): string {
  const error = validate.errors?.[0];
  if (error === undefined) return 'invalid';
  return `${error.instancePath === '' ? '/' : error.instancePath} ${error.message ?? 'is invalid'}`;
}
