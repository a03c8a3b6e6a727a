import { Button, Group, Stack, Switch, TextInput } from '@mantine/core';
import { useState } from 'react';

import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import type { EventType } from './eventTypes';
import { EventTypesInput } from './EventTypesInput';

/** The fields of a webhook endpoint that a person sets. */
export interface EndpointValues {
  url: string;
  eventTypes: EventType[];
  description: string;
  enabled: boolean;
}

/** The form of a webhook endpoint's URL, events, description and state (create and edit). */
export function EndpointForm({
  initial,
  submitLabel,
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  initial: EndpointValues;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (values: EndpointValues) => void;
  onCancel?: () => void;
}) {
  const [values, setValues] = useState(initial);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(values);
      }}
    >
      <Stack>
        <ErrorAlert error={error} title="The endpoint was not saved" />
        <TextInput
          label="URL"
          description="Where Stamp posts the events (https:// in production)"
          placeholder="https://example.com/webhooks/stamp"
          type="url"
          required
          value={values.url}
          onChange={(event) => setValues({ ...values, url: event.currentTarget.value })}
          error={fieldError(error, 'url')}
        />
        <EventTypesInput
          value={values.eventTypes}
          onChange={(eventTypes) => setValues({ ...values, eventTypes })}
          error={fieldError(error, 'eventTypes')}
        />
        <TextInput
          label="Description"
          description="Optional: what this endpoint is for"
          maxLength={500}
          value={values.description}
          onChange={(event) => setValues({ ...values, description: event.currentTarget.value })}
          error={fieldError(error, 'description')}
        />
        <Switch
          label="Enabled"
          description="A disabled endpoint receives nothing"
          checked={values.enabled}
          onChange={(event) => setValues({ ...values, enabled: event.currentTarget.checked })}
        />
        <Group>
          <Button type="submit" loading={pending}>
            {submitLabel}
          </Button>
          {onCancel !== undefined && (
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}
