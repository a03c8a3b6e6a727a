import type { DomainsApi } from '@stamp/contracts';
import { forbidden } from '@stamp/http-kit';
import { type EventStore, newId, withRevisionRetry } from '@stamp/platform';

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
      {
        streamId: templateStream(id),
        expectedRevision: revision === -1 ? 'no_stream' : revision,
        events: events.map((event) => ({
          type: event.type,
          data: event.data,
          metadata: { projectId: context.projectId, correlationId: context.requestId },
        })),
      },
    ]);
    return { id, position: result.position };
  });
}

/**
 * Creates a template. Returns its id and the log position of the append.
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
 * Updates a template (patch semantics; `null` clears from/fromName/replyTo).
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
