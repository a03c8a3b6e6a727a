import { Anchor } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import { api, unwrap } from '../../../api/client';
import { useProjectId } from '../../../api/session';
import { projectPath } from '../../../shell/navigation';

/** The email address of a contact, linking to the contact's page (its id until it is loaded). */
export function ContactEmail({ contactId }: { contactId: string }) {
  const projectId = useProjectId();
  const contact = useQuery({
    queryKey: [projectId, 'contacts', contactId],
    queryFn: () => unwrap(api.GET('/contacts/{id}', { params: { path: { id: contactId } } })),
    staleTime: 60_000,
  });
  return (
    <Anchor component={Link} to={projectPath(projectId, `contacts/${contactId}`)} size="sm">
      {contact.data?.email ?? (contact.isError ? 'A deleted contact' : contactId)}
    </Anchor>
  );
}
