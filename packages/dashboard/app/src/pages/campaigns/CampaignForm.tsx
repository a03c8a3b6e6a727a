import { Card, Grid, Stack, Text, TextInput } from '@mantine/core';
import { type ReactNode, useState } from 'react';

import { fieldError } from '../../components/ErrorAlert';
import { EmailPreview } from '../templates/EmailPreview';
import { type PreviewRecipient, SAMPLE_RECIPIENT } from '../templates/previewScope';
import { PreviewRecipientSelect } from '../templates/PreviewRecipientSelect';
import { SenderFields } from '../templates/SenderFields';
import { useTemplateVariables } from '../templates/useTemplateVariables';
import { AudienceInput } from './AudienceInput';
import { ContentInput, type ContentSource } from './ContentInput';
import type { CampaignDraft } from './draft';

/** A titled card of the form. */
function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card withBorder>
      <Text fw={600} component="h2" mb="sm">
        {title}
      </Text>
      {children}
    </Card>
  );
}

/**
 * The fields of a campaign (name, sender, subject and email, audience) with the live preview of
 * its email beside them. The form element and its buttons belong to the page (`formId`).
 */
export function CampaignForm({
  formId,
  draft,
  onChange,
  onSubmit,
  error,
  initialSource,
}: {
  formId: string;
  draft: CampaignDraft;
  onChange: (patch: Partial<CampaignDraft>) => void;
  onSubmit: () => void;
  /** The error of the last save or send, whose field messages show at their inputs. */
  error: unknown;
  initialSource: ContentSource;
}) {
  const [recipient, setRecipient] = useState<PreviewRecipient>(SAMPLE_RECIPIENT);
  const variables = useTemplateVariables();
  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, lg: 6 }}>
        <form
          id={formId}
          onSubmit={(event) => {
            event.preventDefault();
            onSubmit();
          }}
        >
          <Stack>
            <Section title="Campaign">
              <TextInput
                label="Name"
                description="For you and your team; recipients never see it."
                required
                maxLength={255}
                value={draft.name}
                onChange={(event) => onChange({ name: event.currentTarget.value })}
                error={fieldError(error, 'name')}
              />
            </Section>
            <Section title="Sender">
              <SenderFields value={draft} onChange={onChange} error={error} required />
            </Section>
            <Section title="Email">
              <Stack>
                <ContentInput
                  draft={draft}
                  onChange={onChange}
                  error={error}
                  initialSource={initialSource}
                  completions={variables.completions}
                />
                <TextInput
                  label="Subject"
                  description="Liquid works here too, for example {{ data.firstName }}."
                  required
                  maxLength={998}
                  value={draft.subject}
                  onChange={(event) => onChange({ subject: event.currentTarget.value })}
                  error={fieldError(error, 'subject')}
                />
              </Stack>
            </Section>
            <Section title="Audience">
              <AudienceInput draft={draft} onChange={onChange} error={error} />
            </Section>
          </Stack>
        </form>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 6 }}>
        <Section title="Preview">
          <Stack gap="sm">
            <PreviewRecipientSelect value={recipient} onChange={setRecipient} />
            {draft.body.trim() === '' ? (
              <Text size="sm" c="dimmed">
                Choose a template or write the email to see it here.
              </Text>
            ) : (
              <EmailPreview subject={draft.subject} body={draft.body} recipient={recipient} />
            )}
          </Stack>
        </Section>
      </Grid.Col>
    </Grid>
  );
}
