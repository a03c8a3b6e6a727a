import { Button, Modal, Stack, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type SubmitEvent, useState } from 'react';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';

/**
 * A button opening a small form that tracks an event for a contact (`POST /events/track`): the
 * contact is created when the address is new, and workflows listening for the event start.
 */
export function TrackEventButton() {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [opened, { open, close }] = useDisclosure(false);
  const [email, setEmail] = useState('');
  const [event, setEvent] = useState('');
  const track = useMutation({
    mutationFn: () => unwrap(api.POST('/events/track', { body: { email: email.trim(), event } })),
    onSuccess: async () => {
      notifications.show({ color: 'green', message: `Tracked "${event}" for ${email.trim()}` });
      close();
      setEvent('');
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: [projectId, 'activity'] }),
        queryClient.invalidateQueries({ queryKey: [projectId, 'events'] }),
        queryClient.invalidateQueries({ queryKey: [projectId, 'contacts'] }),
        queryClient.invalidateQueries({ queryKey: [projectId, 'setup-state'] }),
      ]);
    },
  });
  const submit = (formEvent: SubmitEvent) => {
    formEvent.preventDefault();
    track.mutate();
  };
  return (
    <>
      <Button
        variant="default"
        onClick={() => {
          track.reset();
          open();
        }}
      >
        Track an event
      </Button>
      <Modal opened={opened} onClose={close} title="Track an event" centered>
        <form onSubmit={submit}>
          <Stack>
            <TextInput
              label="Contact email"
              description="A new address becomes a subscribed contact."
              type="email"
              required
              value={email}
              onChange={(change) => setEmail(change.currentTarget.value)}
              error={fieldError(track.error, 'email')}
            />
            <TextInput
              label="Event name"
              description="For example signed-up or order-placed. Workflows started by this event run."
              required
              maxLength={255}
              value={event}
              onChange={(change) => setEvent(change.currentTarget.value)}
              error={fieldError(track.error, 'event')}
            />
            <ErrorAlert error={track.error} title="The event was not tracked" />
            <Button type="submit" loading={track.isPending}>
              Track event
            </Button>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
