import { applyAtRevision, type RecordedEvent, type Update, type ViewStore } from '@stamp/platform';

import { TEMPLATES } from '../views.ts';
import type { TemplateEvent } from './events.ts';

/**
 * Projects template events into the `templates` view, idempotently by stream revision
 * (a deleted template stays as a tombstone with `deleted: true`).
 */
export async function projectTemplate(views: ViewStore, event: RecordedEvent): Promise<void> {
  const templates = views.collection(TEMPLATES);
  const typed = { type: event.type, data: event.data } as TemplateEvent;
  switch (typed.type) {
    case 'TemplateCreated': {
      const { templateId, ...fields } = typed.data;
      await applyAtRevision(
        templates,
        templateId,
        event.revision,
        {
          $set: {
            ...fields,
            projectId: event.metadata.projectId ?? '',
            updatedAt: fields.createdAt,
            deleted: false,
          },
        },
        true,
      );
      return;
    }
    case 'TemplateUpdated': {
      const set: Record<string, unknown> = { updatedAt: typed.data.updatedAt };
      const unset: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(typed.data.patch)) {
        if (value === null) unset[key] = '';
        else if (value !== undefined) set[key] = value;
      }
      const update: Update = { $set: set };
      if (Object.keys(unset).length > 0) update.$unset = unset;
      await applyAtRevision(templates, typed.data.templateId, event.revision, update, false);
      return;
    }
    case 'TemplateDeleted':
      await applyAtRevision(
        templates,
        typed.data.templateId,
        event.revision,
        { $set: { deleted: true, updatedAt: typed.data.deletedAt } },
        false,
      );
      return;
    default:
      return;
  }
}
