/**
 * Steps as the routes take them: the config of each step type (API reference, "Workflow step
 * config"), validated with the path of each problem (`config.amount`).
 */
import { COMPARISON_OPERATORS } from '@stamp/contracts';
import { emailAddress } from '@stamp/http-kit';
import { z } from 'zod';

/** Longest event name a workflow listens for. */
export const MAX_EVENT_NAME = 255;
/** Longest DELAY and WAIT_FOR_EVENT timeout: 365 days, in seconds. */
export const MAX_WAIT_SECONDS = 365 * 24 * 3600;

/** Seconds per DELAY unit. */
export const UNIT_SECONDS = { minutes: 60, hours: 3600, days: 86_400 } as const;

const eventName = z.string().trim().min(1).max(MAX_EVENT_NAME);

/** Fields a CONDITION step reads: `contact.<field>`, `data.<key>`, `event.<key>` (the context). */
export const CONDITION_FIELD =
  /^(contact\.(id|email|subscribed|createdAt|updatedAt)|data\.[^.]+|event\..+)$/;

/** Operators of a CONDITION step. */
export const CONDITION_OPERATORS = COMPARISON_OPERATORS;

/** A CONDITION operator. */
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

const scalar = z.union([z.string().max(10_000), z.number(), z.boolean()]);
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const configs = {
  SEND_EMAIL: z.object({
    templateId: z.string().trim().min(1).max(255),
    recipient: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('CONTACT') }),
        z.object({ type: z.literal('CUSTOM'), customEmail: emailAddress }),
      ])
      .optional(),
  }),
  DELAY: z
    .object({
      amount: z.number().positive(),
      unit: z.enum(['minutes', 'hours', 'days']),
    })
    .refine((delay) => delay.amount * UNIT_SECONDS[delay.unit] <= MAX_WAIT_SECONDS, {
      message: 'A delay is at most 365 days',
      path: ['amount'],
    }),
  WAIT_FOR_EVENT: z.object({
    eventName,
    timeout: z.number().int().positive().max(MAX_WAIT_SECONDS).optional(),
  }),
  CONDITION: z
    .object({
      field: z
        .string()
        .regex(CONDITION_FIELD, 'A field is contact.<field>, data.<key> or event.<key>'),
      operator: z.enum(CONDITION_OPERATORS),
      value: scalar.optional(),
    })
    .refine(
      (condition) =>
        condition.operator === 'exists' ||
        condition.operator === 'notExists' ||
        condition.value !== undefined,
      { message: 'This operator needs a value', path: ['value'] },
    ),
  WEBHOOK: z.object({
    url: z.url({ protocol: /^https?$/ }).max(2048),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
    headers: z.record(z.string().regex(headerName).max(256), z.string().max(8192)).optional(),
    body: z.union([z.string().max(1_000_000), z.record(z.string(), z.unknown())]).optional(),
  }),
  UPDATE_CONTACT: z.object({
    updates: z.record(z.string().min(1).max(255), scalar.nullable()).optional(),
    subscriptionAction: z.enum(['none', 'subscribe', 'unsubscribe']).optional(),
  }),
  EXIT: z.object({ reason: z.string().max(1000).optional() }),
} as const;

/** The step types a request may add (TRIGGER is implicit). */
export type AddableStepType = keyof typeof configs;

const position = z.object({ x: z.number(), y: z.number() }).nullish();
const name = z.string().trim().min(1).max(255).optional();

/** Body of POST /workflows/:id/steps. */
export const stepBody = z.discriminatedUnion('type', [
  z.object({ type: z.literal('SEND_EMAIL'), name, position, config: configs.SEND_EMAIL }),
  z.object({ type: z.literal('DELAY'), name, position, config: configs.DELAY }),
  z.object({ type: z.literal('WAIT_FOR_EVENT'), name, position, config: configs.WAIT_FOR_EVENT }),
  z.object({ type: z.literal('CONDITION'), name, position, config: configs.CONDITION }),
  z.object({ type: z.literal('WEBHOOK'), name, position, config: configs.WEBHOOK }),
  z.object({ type: z.literal('UPDATE_CONTACT'), name, position, config: configs.UPDATE_CONTACT }),
  z.object({ type: z.literal('EXIT'), name, position, config: configs.EXIT.default({}) }),
]);

/** Body of PATCH /workflows/:id/steps/:stepId: name, position or config, each optional. */
export const stepPatchBody = z.object({
  name,
  position,
  config: z.record(z.string(), z.unknown()).optional(),
});

/** The schema of a config of `type`. */
export const configSchema = (type: AddableStepType): z.ZodType<Record<string, unknown>> =>
  configs[type];

/** Body of POST /workflows/:id/transitions. */
export const transitionBody = z.object({
  fromStepId: z.string().min(1).max(255),
  toStepId: z.string().min(1).max(255),
  branch: z.enum(['yes', 'no']).nullish(),
  waitOutcome: z.enum(['EVENT', 'TIMEOUT']).nullish(),
});

/** Body of POST /workflows (API reference: `{name, description?, eventName, allowReentry?}`). */
export const createBody = z.object({
  name: z.string().trim().min(1).max(255),
  description: z.string().max(10_000).nullish(),
  eventName,
  allowReentry: z.boolean().optional(),
});

/** Body of PATCH /workflows/:id. */
export const patchBody = z.object({
  name: z.string().trim().min(1).max(255).optional(),
  description: z.string().max(10_000).nullish(),
  eventName: eventName.optional(),
  triggerType: z.enum(['EVENT', 'MANUAL', 'SCHEDULE']).optional(),
  enabled: z.boolean().optional(),
  allowReentry: z.boolean().optional(),
});
