import { Group, Loader, Text } from '@mantine/core';
import { useMemo } from 'react';

import { emptyCondition } from '../../components/filters/FilterBuilder';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useConditionCount } from '../../components/filters/useConditionCount';
import { recipientsCondition } from './audience';
import type { CampaignDraft } from './draft';
import { useSubscribedCount } from './queries';

/** "N contacts will get it", in words. */
function recipientsText(count: number): string {
  return `${count.toLocaleString()} ${count === 1 ? 'subscribed contact' : 'subscribed contacts'} will get it`;
}

/**
 * How many contacts the audience of `draft` reaches now, counted live as it is edited: the
 * project's subscribed contacts for ALL (`GET /contacts?subscribed=true`, its total), and for a
 * segment or filters the subscribed contacts matching them (the filters' live count).
 */
export function RecipientCount({
  draft,
}: {
  draft: Pick<CampaignDraft, 'audienceType' | 'segmentId' | 'audienceFilter'>;
}) {
  const { audienceType, segmentId, audienceFilter } = draft;
  const condition = useMemo(
    () => recipientsCondition(audienceType, segmentId, audienceFilter),
    [audienceType, segmentId, audienceFilter],
  );
  // One counting hook for every audience, so that the count of a condition lives on.
  const fallback = useMemo(() => emptyCondition(), []);
  const all = useSubscribedCount(audienceType === 'ALL');
  const matching = useConditionCount(condition ?? fallback, condition !== undefined);

  let text: string;
  let busy = false;
  let error: unknown = null;
  if (audienceType === 'ALL') {
    busy = all.isFetching;
    error = all.error;
    text = all.data === undefined ? 'Counting your subscribed contacts…' : recipientsText(all.data);
  } else if (condition === undefined) {
    text = 'Choose a segment to see how many contacts will get it.';
  } else {
    busy = matching.counting;
    error = matching.error;
    text = matching.incomplete
      ? 'Finish every filter to see how many contacts will get it.'
      : matching.count === undefined
        ? 'Counting the contacts…'
        : recipientsText(matching.count);
  }
  return (
    <div>
      <Group gap="xs" role="status" aria-live="polite" aria-label="Recipients">
        {busy && <Loader size="xs" aria-hidden />}
        <Text size="sm" fw={600}>
          {text}
        </Text>
      </Group>
      <ErrorAlert error={error} title="The recipients could not be counted" />
    </div>
  );
}
