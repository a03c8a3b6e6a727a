import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { type PreviewRecipient, SAMPLE_RECIPIENT } from './previewScope';

/**
 * "Preview as": picks the contact a preview renders for, searching the project's contacts by
 * email. Until one is picked it chooses the newest contact, or the sample recipient when the
 * project has none.
 */
export function PreviewRecipientSelect({
  value,
  onChange,
}: {
  value: PreviewRecipient;
  onChange: (recipient: PreviewRecipient) => void;
}) {
  const projectId = useProjectId();
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search.trim(), 250);
  const [touched, setTouched] = useState(false);
  const label = (recipient: PreviewRecipient) =>
    recipient.id === SAMPLE_RECIPIENT.id
      ? `Sample recipient (${recipient.email})`
      : recipient.email;
  // The select shows the chosen contact's label in its search box: that is no search.
  const query = debouncedSearch === label(value) ? '' : debouncedSearch;
  const contacts = useQuery({
    queryKey: [projectId, 'contacts', 'preview-recipients', query],
    queryFn: () =>
      unwrap(
        api.GET('/contacts', {
          params: {
            query: {
              limit: 20,
              ...(query === '' ? {} : { search: query }),
            },
          },
        }),
      ),
    // The options stay while the next search loads: a click on one of them picks it.
    placeholderData: keepPreviousData,
  });
  const found = contacts.data?.data ?? [];
  const first = found[0];
  useEffect(() => {
    if (!touched && first !== undefined && value.id === SAMPLE_RECIPIENT.id) onChange(first);
  }, [touched, first, value.id, onChange]);

  const options = [
    ...(found.some((contact) => contact.id === value.id) ? [] : [value]),
    ...found,
  ].map((contact) => ({ value: contact.id, label: label(contact) }));
  return (
    <Select
      label="Preview as"
      description={
        contacts.data?.total === 0 && query === ''
          ? 'Add contacts to preview with their data.'
          : 'A contact whose data fills the variables.'
      }
      data={options}
      value={value.id}
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      nothingFoundMessage="No contact matches"
      allowDeselect={false}
      onChange={(id) => {
        const contact = found.find((item) => item.id === id);
        if (contact === undefined) return;
        setTouched(true);
        onChange(contact);
      }}
    />
  );
}
