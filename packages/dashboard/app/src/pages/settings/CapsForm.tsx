import {
  Button,
  Card,
  Center,
  Loader,
  NumberInput,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { CATEGORIES, CATEGORY_WORDS, type Caps, type Category } from './billingCategories';
import type { Guard } from './RoleNote';

type Draft = Record<Category, string | number>;

/** The draft of the form from the caps a person set (empty: no cap). */
function draftOf(limits: Schema<'BillingLimits'>): Draft {
  const draft: Draft = { transactional: '', campaigns: '', workflows: '', inbound: '' };
  for (const category of CATEGORIES) draft[category] = limits.manualLimits[category] ?? '';
  return draft;
}

/** The caps of a draft: a whole number, or null for an empty field. */
function capsOf(draft: Draft): Caps {
  const caps: Caps = {};
  for (const category of CATEGORIES) {
    const value = draft[category];
    caps[category] = value === '' ? null : Number(value);
  }
  return caps;
}

/** The form of the monthly caps, once loaded. */
function CapsFields({ limits, manage }: { limits: Schema<'BillingLimits'>; manage: Guard }) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(limits));
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/users/@me/projects/{id}/billing-limits', {
          params: { path: { id: projectId } },
          body: capsOf(draft),
        }),
      ),
    onSuccess: (saved) => {
      queryClient.setQueryData([projectId, 'billing-limits'], saved);
      void queryClient.invalidateQueries({ queryKey: [projectId, 'billing-consumption'] });
    },
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <Stack gap="sm">
        <ErrorAlert error={save.error} title="The caps were not saved" />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {CATEGORIES.map((category) => {
            const plan = limits.planLimits?.[category];
            return (
              <NumberInput
                key={category}
                label={`${CATEGORY_WORDS[category]} per month`}
                description={
                  plan === undefined || plan === null
                    ? 'Leave empty for no cap'
                    : `Your plan allows ${plan.toLocaleString()}; leave empty for the plan's cap`
                }
                placeholder="No cap"
                hideControls
                min={0}
                allowDecimal={false}
                allowNegative={false}
                thousandSeparator=","
                value={draft[category]}
                onChange={(value) => setDraft({ ...draft, [category]: value })}
                error={fieldError(save.error, category)}
                disabled={!manage.allowed}
                aria-describedby={manage.describedBy}
              />
            );
          })}
        </SimpleGrid>
        <div>
          <Button type="submit" loading={save.isPending} disabled={!manage.allowed}>
            Save caps
          </Button>
        </div>
        {save.isSuccess && (
          <Text size="sm" role="status">
            The caps are saved: a send that would pass one is refused until next month.
          </Text>
        )}
      </Stack>
    </form>
  );
}

/**
 * The project's monthly caps per category (`billing-limits`), edited when the role allows
 * (`billing.manage`); without `billing.read` only the disabled form and the note show.
 */
export function CapsForm({ read, manage }: { read: Guard; manage: Guard }) {
  const projectId = useProjectId();
  const limits = useQuery({
    queryKey: [projectId, 'billing-limits'],
    queryFn: () =>
      unwrap(
        api.GET('/users/@me/projects/{id}/billing-limits', { params: { path: { id: projectId } } }),
      ),
    enabled: read.allowed,
  });
  return (
    <Card withBorder component="section" aria-labelledby="caps-title">
      <Title order={2} size="h4" mb="xs" id="caps-title">
        Monthly caps
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        The most emails of each kind the project may send in a calendar month (UTC). A send beyond a
        cap is refused.
      </Text>
      {!read.allowed && (
        <Stack gap="xs">
          <Button disabled aria-describedby={read.describedBy} w="fit-content">
            Save caps
          </Button>
          {read.note}
        </Stack>
      )}
      {read.allowed && limits.isPending && (
        <Center p="md">
          <Loader size="sm" aria-label="Loading the caps" />
        </Center>
      )}
      <ErrorAlert error={limits.error} title="The caps could not be loaded" />
      {limits.data !== undefined && (
        <>
          {limits.data.subscription !== null && (
            <Text size="sm" mb="sm">
              Subscription: {limits.data.subscription.status}
              {limits.data.subscription.active ? ' (active)' : ' (not active)'}
            </Text>
          )}
          <CapsFields limits={limits.data} manage={manage} />
          {manage.note}
        </>
      )}
    </Card>
  );
}
