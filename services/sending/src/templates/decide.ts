import { conflict, notFound, validationError, type FieldError } from '@stamp/http-kit';
import { describeSyntaxError, parseTemplate, TemplateSyntaxError } from '@stamp/platform';

import type { TemplateEvent, TemplateFields, TemplatePatch, TemplateState } from './events.ts';

/** Commands on one template. */
export type TemplateCommand =
  | { type: 'CreateTemplate'; templateId: string; fields: TemplateFields; now: string }
  | { type: 'UpdateTemplate'; patch: TemplatePatch; now: string }
  | { type: 'DeleteTemplate'; now: string };

/**
 * Checks that `subject` and `body` (when present) are valid Liquid without refused tags.
 * @throws ApiError 422 VALIDATION_ERROR naming each bad field (code `invalid_template`), with a
 * message naming the line, for example `Liquid syntax error on line 3: tag "endif" not found`.
 */
export function assertValidLiquid(texts: { subject?: string; body?: string }): void {
  const errors: FieldError[] = [];
  for (const [field, kind] of [
    ['subject', 'text'],
    ['body', 'html'],
  ] as const) {
    const source = texts[field];
    if (source === undefined) continue;
    try {
      parseTemplate(source, kind);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      errors.push({
        field,
        message: describeSyntaxError(error),
        code: 'invalid_template',
      });
    }
  }
  if (errors.length > 0) throw validationError(errors);
}

/**
 * Decides the events of a template command (spec part 4 "Templates"). Pure.
 * @throws ApiError 404 TEMPLATE_NOT_FOUND for an update/delete of a missing or deleted template,
 * 409 CONFLICT when creating an existing one, 422 for invalid Liquid.
 */
export function decide(state: TemplateState, command: TemplateCommand): TemplateEvent[] {
  switch (command.type) {
    case 'CreateTemplate':
      if (state !== null) throw conflict('Template already exists');
      assertValidLiquid(command.fields);
      return [
        {
          type: 'TemplateCreated',
          data: { templateId: command.templateId, ...command.fields, createdAt: command.now },
        },
      ];
    case 'UpdateTemplate': {
      if (state === null || state.deleted)
        throw notFound('TEMPLATE_NOT_FOUND', 'Template not found');
      assertValidLiquid({ subject: command.patch.subject, body: command.patch.body });
      const changed = Object.entries(command.patch).filter(
        ([key, value]) =>
          value !== undefined &&
          (state as unknown as Record<string, unknown>)[key] !== (value ?? undefined),
      );
      if (changed.length === 0) return [];
      return [
        {
          type: 'TemplateUpdated',
          data: {
            templateId: state.id,
            patch: Object.fromEntries(changed),
            updatedAt: command.now,
          },
        },
      ];
    }
    case 'DeleteTemplate':
      if (state === null || state.deleted)
        throw notFound('TEMPLATE_NOT_FOUND', 'Template not found');
      return [{ type: 'TemplateDeleted', data: { templateId: state.id, deletedAt: command.now } }];
  }
}
