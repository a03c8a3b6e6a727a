import { Anchor, Radio, Select, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';

import { useProjectId } from '../../api/session';
import { fieldError } from '../../components/ErrorAlert';
import { FilterBuilder } from '../../components/filters/FilterBuilder';
import { projectPath } from '../../shell/navigation';
import { AUDIENCE_LABELS } from './audience';
import type { AudienceType, CampaignDraft } from './draft';
import { useSegmentChoices } from './queries';
import { RecipientCount } from './RecipientCount';

const AUDIENCES: readonly { value: AudienceType; description: string }[] = [
  { value: 'ALL', description: 'Everyone who is subscribed.' },
  { value: 'SEGMENT', description: 'The subscribed members of a segment when it goes out.' },
  { value: 'FILTERED', description: 'Subscribed contacts matching conditions you set here.' },
];

/**
 * Who gets a campaign: every subscribed contact, a segment's, or those matching filters, with
 * the live count of recipients.
 */
export function AudienceInput({
  draft,
  onChange,
  error,
}: {
  draft: CampaignDraft;
  onChange: (patch: Partial<CampaignDraft>) => void;
  error: unknown;
}) {
  const projectId = useProjectId();
  const segments = useSegmentChoices();
  const segmentError = fieldError(error, 'segmentId');
  return (
    <Stack>
      <Radio.Group
        label="Send to"
        value={draft.audienceType}
        onChange={(value) => {
          const audience = AUDIENCES.find((item) => item.value === value);
          if (audience !== undefined) onChange({ audienceType: audience.value });
        }}
        error={fieldError(error, 'audienceType')}
      >
        <Stack gap="xs" mt={4}>
          {AUDIENCES.map((audience) => (
            <Radio
              key={audience.value}
              value={audience.value}
              label={AUDIENCE_LABELS[audience.value]}
              description={audience.description}
            />
          ))}
        </Stack>
      </Radio.Group>
      {draft.audienceType === 'SEGMENT' && (
        <Select
          label="Segment"
          placeholder="Choose a segment"
          required
          searchable
          data={(segments.data ?? []).map((segment) => ({
            value: segment.id,
            label: `${segment.name} (${segment.memberCount.toLocaleString()} members)`,
          }))}
          value={draft.segmentId}
          onChange={(segmentId) => onChange({ segmentId })}
          nothingFoundMessage="No segment has that name"
          error={
            segmentError ??
            (segments.error instanceof Error
              ? `The segments could not be loaded: ${segments.error.message}`
              : undefined)
          }
          description={
            segments.data?.length === 0 ? (
              <Text span size="xs">
                This project has no segment yet.{' '}
                <Anchor component={Link} to={projectPath(projectId, 'segments/new')} size="xs">
                  Create one
                </Anchor>
                .
              </Text>
            ) : undefined
          }
        />
      )}
      {draft.audienceType === 'FILTERED' && (
        <>
          <FilterBuilder
            label="Contacts who match"
            value={draft.audienceFilter}
            onChange={(audienceFilter) => onChange({ audienceFilter })}
          />
          {fieldError(error, 'audienceFilter') !== undefined && (
            <Text size="sm" c="red.8" role="alert">
              {fieldError(error, 'audienceFilter')}
            </Text>
          )}
        </>
      )}
      <RecipientCount draft={draft} />
    </Stack>
  );
}
