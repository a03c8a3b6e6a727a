import { Badge } from '@mantine/core';

import type { Schema } from '../../api/client';

/** A template's type. */
export type TemplateType = Schema<'Template'>['type'];

/** The template types in words, for badges and choices. */
export const TEMPLATE_TYPES: readonly { value: TemplateType; label: string; hint: string }[] = [
  {
    value: 'MARKETING',
    label: 'Marketing',
    hint: 'Newsletters and announcements: never sent to unsubscribed contacts, with an unsubscribe header.',
  },
  {
    value: 'TRANSACTIONAL',
    label: 'Transactional',
    hint: 'Receipts, password resets and other mail a person asked for: sent even to unsubscribed contacts.',
  },
];

/** A template's type as a coloured word. */
export function TemplateTypeBadge({ type }: { type: TemplateType }) {
  return (
    <Badge variant="light" color={type === 'MARKETING' ? 'blue' : 'grape'}>
      {type === 'MARKETING' ? 'Marketing' : 'Transactional'}
    </Badge>
  );
}
