import type { DomainsApi } from '@stamp/contracts';
import { forbidden, notFound } from '@stamp/http-kit';
import { decisionAppend, type EventStore, newId, withRevisionRetry } from '@stamp/platform';

import { domainOf } from '../deps.ts';
import { decide, type TemplateCommand } from './decide.ts';
import {
  evolve,
  type TemplateEvent,
  type TemplateFields,
  type TemplatePatch,
  type TemplateState,
} from './events.ts';

/** Stream id of a template. */
export const templateStream = (id: string): string => `template-${id}`;

/** What the template commands need. */
export interface TemplateCommandDeps {
  store: EventStore;
  domains: DomainsApi;
  sandboxDomain: string;
}

/** Who runs a command: the project and the request id (correlation id). */
export interface CommandContext {
  projectId: string;
  requestId: string;
}

/**
 * Checks that `from` is on a verified domain of the project or on the sandbox domain.
 * @throws ApiError 403 DOMAIN_NOT_VERIFIED.
 */
export async function assertSenderAllowed(
  deps: { domains: DomainsApi; sandboxDomain: string },
  projectId: string,
  from: string,
): Promise<void> {
  if (domainOf(from) === deps.sandboxDomain.toLowerCase()) return;
  const domain = await deps.domains.senderDomain(projectId, from);
  if (domain?.verified !== true) {
    throw forbidden(
      `The domain ${domainOf(from)} is not a verified domain of this project`,
      'DOMAIN_NOT_VERIFIED',
    );
  }
}

/** Loads a template's state; a template of another project reads as absent. */
async function load(
  store: EventStore,
  projectId: string,
  id: string,
): Promise<{ state: TemplateState; revision: number }> {
  const events = await store.readStream(templateStream(id));
  let state: TemplateState = null;
  for (const event of events) {
    if (event.metadata.projectId !== projectId) return { state: null, revision: -1 };
    state = evolve(state, { type: event.type, data: event.data } as TemplateEvent);
  }
  return { state, revision: events.length - 1 };
}

async function run(
  deps: TemplateCommandDeps,
  context: CommandContext,
  id: string,
  command: TemplateCommand,
): Promise<{ id: string; position: number }> {
  return withRevisionRetry(async () => {
    const { state, revision } = await load(deps.store, context.projectId, id);
    const events = decide(state, command);
    if (events.length === 0) return { id, position: 0 };
    const result = await deps.store.append([
      decisionAppend(templateStream(id), revision, events, {
        projectId: context.projectId,
        correlationId: context.requestId,
      }),
    ]);
    return { id, position: result.position };
  });
}

/**
 * Creates a template. Returns its id and the log position of the append. A `from` must be on a
 * verified domain of the project (or the sandbox domain).
 * @throws ApiError 403 DOMAIN_NOT_VERIFIED, 422 for invalid Liquid.
 */
export async function createTemplate(
  deps: TemplateCommandDeps,
  context: CommandContext,
  fields: TemplateFields,
): Promise<{ id: string; position: number }> {
  if (fields.from !== undefined) await assertSenderAllowed(deps, context.projectId, fields.from);
  const id = newId();
  return run(deps, context, id, {
    type: 'CreateTemplate',
    templateId: id,
    fields,
    now: new Date().toISOString(),
  });
}

/**
 * Updates a template (patch semantics; `null` clears from/fromName/replyTo). A `from` given in the
 * patch must be on a verified domain of the project (or the sandbox domain); an unchanged stored
 * from is not checked again here (POST /v1/send checks it at every send).
 * @throws ApiError 404 TEMPLATE_NOT_FOUND, 403 DOMAIN_NOT_VERIFIED, 422 for invalid Liquid.
 */
export async function updateTemplate(
  deps: TemplateCommandDeps,
  context: CommandContext,
  id: string,
  patch: TemplatePatch,
): Promise<{ id: string; position: number }> {
  if (typeof patch.from === 'string')
    await assertSenderAllowed(deps, context.projectId, patch.from);
  return run(deps, context, id, { type: 'UpdateTemplate', patch, now: new Date().toISOString() });
}

/** Longest template name (characters), as POST /templates accepts. */
export const MAX_TEMPLATE_NAME = 255;

const COPY_SUFFIX = ' (copy)';

/**
 * Name of a duplicate: `<name> (copy)`, the source name shortened so that the result stays within
 * {@link MAX_TEMPLATE_NAME} characters (never splitting a surrogate pair).
 */
export function copyName(name: string): string {
  const room = MAX_TEMPLATE_NAME - COPY_SUFFIX.length;
  if (name.length <= room) return name + COPY_SUFFIX;
  const cut = /[\uD800-\uDBFF]/.test(name.charAt(room - 1)) ? room - 1 : room;
  return name.slice(0, cut) + COPY_SUFFIX;
}

/** The editable fields of a template state (what a duplicate copies). */
function fieldsOf(state: NonNullable<TemplateState>): TemplateFields {
  return {
    name: state.name,
    subject: state.subject,
    body: state.body,
    type: state.type,
    ...(state.from === undefined ? {} : { from: state.from }),
    ...(state.fromName === undefined ? {} : { fromName: state.fromName }),
    ...(state.replyTo === undefined ? {} : { replyTo: state.replyTo }),
  };
}

/**
 * Duplicates a template of the project (POST /templates/:id/duplicate): a new template stream
 * with every field of the source and the name {@link copyName}. Returns the new id and the log
 * position of the append. The copy is a creation, so its from must be on a verified domain.
 * @throws ApiError 404 TEMPLATE_NOT_FOUND for a missing, deleted or foreign source,
 * 403 DOMAIN_NOT_VERIFIED.
 */
export async function duplicateTemplate(
  deps: TemplateCommandDeps,
  context: CommandContext,
  sourceId: string,
): Promise<{ id: string; position: number }> {
  const { state } = await load(deps.store, context.projectId, sourceId);
  if (state === null || state.deleted) {
    throw notFound('TEMPLATE_NOT_FOUND', `Template ${sourceId} not found`);
  }
  const fields = fieldsOf(state);
  return createTemplate(deps, context, { ...fields, name: copyName(fields.name) });
}

/**
 * Deletes a template.
 * @throws ApiError 404 TEMPLATE_NOT_FOUND.
 */
export async function deleteTemplate(
  deps: TemplateCommandDeps,
  context: CommandContext,
  id: string,
): Promise<{ id: string; position: number }> {
  return run(deps, context, id, { type: 'DeleteTemplate', now: new Date().toISOString() });
}
