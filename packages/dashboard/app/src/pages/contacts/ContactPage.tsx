import { Anchor, Loader, SimpleGrid, Stack } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { formatDateTime } from '../activity/format';
import { ContactDataCard } from './ContactDataCard';
import { ContactEmailForm } from './ContactEmailForm';
import { ContactSubscription } from './ContactSubscription';
import { ContactTimeline } from './ContactTimeline';
import { useContact } from './useContact';

/**
 * `/p/:projectId/contacts/:contactId`: one contact: its address, subscription and custom fields
 * (each editable), its timeline of events and activity, and its deletion (which erases its data).
 */
export default function ContactPage() {
  const projectId = useProjectId();
  const contactId = useParams().contactId ?? '';
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const contact = useContact(contactId);
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/contacts/{id}', { params: { path: { id: contactId } } })),
    onSuccess: async () => {
      notifications.show({
        color: 'green',
        message: `${contact.data?.email ?? 'The contact'} is deleted`,
      });
      await navigate(projectPath(projectId, 'contacts'));
      queryClient.removeQueries({ queryKey: [projectId, 'contacts', 'detail', contactId] });
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: [projectId, 'contacts'] }),
        queryClient.invalidateQueries({ queryKey: [projectId, 'activity'] }),
        queryClient.invalidateQueries({ queryKey: [projectId, 'outbox'] }),
      ]);
    },
  });
  const back = (
    <Anchor component={Link} to={projectPath(projectId, 'contacts')}>
      Back to the contacts
    </Anchor>
  );
  if (contact.isPending) {
    return (
      <>
        <PageHeader title="Contact" actions={back} />
        <Loader aria-label="Loading the contact" />
      </>
    );
  }
  if (contact.isError) {
    return (
      <>
        <PageHeader title="Contact" actions={back} />
        <ErrorAlert error={contact.error} title="This contact could not be loaded" />
      </>
    );
  }
  const { data } = contact;
  return (
    <>
      <PageHeader
        title={data.email}
        description={`Added ${formatDateTime(data.createdAt)}, last changed ${formatDateTime(data.updatedAt)}`}
        actions={
          <>
            {back}
            <ConfirmButton
              color="red"
              variant="light"
              loading={remove.isPending}
              title="Delete this contact?"
              message={`${data.email} and everything about it (its data, events, activity and captured emails) are erased. This cannot be undone.`}
              confirmLabel="Delete contact"
              onConfirm={() => remove.mutate()}
            >
              Delete contact
            </ConfirmButton>
          </>
        }
      />
      <ErrorAlert error={remove.error} title="The contact was not deleted" />
      <Stack>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <ContactEmailForm key={data.email} contact={data} />
          <ContactSubscription contact={data} />
        </SimpleGrid>
        <ContactDataCard contact={data} />
        <ContactTimeline contactId={data.id} />
      </Stack>
    </>
  );
}
