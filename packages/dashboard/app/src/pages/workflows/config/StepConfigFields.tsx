import type { StepDraft } from '../steps';
import { ConditionFields } from './ConditionFields';
import { DelayFields } from './DelayFields';
import { ExitFields } from './ExitFields';
import { SendEmailFields } from './SendEmailFields';
import { UpdateContactFields } from './UpdateContactFields';
import { WaitForEventFields } from './WaitForEventFields';
import { WebhookFields } from './WebhookFields';

/** The form of a step's config, by its type. */
export function StepConfigFields({
  draft,
  onChange,
  error,
}: {
  draft: StepDraft;
  onChange: (draft: StepDraft) => void;
  error: unknown;
}) {
  switch (draft.type) {
    case 'SEND_EMAIL':
      return <SendEmailFields draft={draft} onChange={onChange} error={error} />;
    case 'DELAY':
      return <DelayFields draft={draft} onChange={onChange} error={error} />;
    case 'WAIT_FOR_EVENT':
      return <WaitForEventFields draft={draft} onChange={onChange} error={error} />;
    case 'CONDITION':
      return <ConditionFields draft={draft} onChange={onChange} error={error} />;
    case 'WEBHOOK':
      return <WebhookFields draft={draft} onChange={onChange} error={error} />;
    case 'UPDATE_CONTACT':
      return <UpdateContactFields draft={draft} onChange={onChange} error={error} />;
    case 'EXIT':
      return <ExitFields draft={draft} onChange={onChange} error={error} />;
  }
}
