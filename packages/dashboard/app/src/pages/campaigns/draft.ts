/** A campaign as its form holds it, and the body of the API calls that save it. */
import type { Schema } from '../../api/client';
import { emptyCondition } from '../../components/filters/FilterBuilder';

/** Who a campaign goes to. */
export type AudienceType = Schema<'Campaign'>['audienceType'];
/** A condition of the filter language. */
export type Condition = Schema<'FilterConditionInput'>;

/** The editable fields of a campaign; optional texts are empty strings when unset. */
export interface CampaignDraft {
  name: string;
  subject: string;
  from: string;
  fromName: string;
  replyTo: string;
  body: string;
  audienceType: AudienceType;
  segmentId: string | null;
  /** The filter of a FILTERED audience (kept while another audience is chosen). */
  audienceFilter: Condition;
}

/** The draft of a new campaign: to every subscribed contact. */
export function emptyDraft(): CampaignDraft {
  return {
    name: '',
    subject: '',
    from: '',
    fromName: '',
    replyTo: '',
    body: '',
    audienceType: 'ALL',
    segmentId: null,
    audienceFilter: emptyCondition(),
  };
}

/** The draft of a saved campaign. */
export function draftOf(campaign: Schema<'Campaign'>): CampaignDraft {
  return {
    name: campaign.name,
    subject: campaign.subject,
    from: campaign.from,
    fromName: campaign.fromName ?? '',
    replyTo: campaign.replyTo ?? '',
    body: campaign.body,
    audienceType: campaign.audienceType,
    segmentId: campaign.segmentId,
    audienceFilter: campaign.audienceFilter ?? emptyCondition(),
  };
}

/** The body of `POST /campaigns` and `PUT /campaigns/:id`. */
export function campaignBodyOf(draft: CampaignDraft) {
  const nullable = (value: string) => (value.trim() === '' ? null : value.trim());
  return {
    name: draft.name,
    subject: draft.subject,
    body: draft.body,
    from: draft.from.trim(),
    fromName: nullable(draft.fromName),
    replyTo: nullable(draft.replyTo),
    audienceType: draft.audienceType,
    segmentId: draft.audienceType === 'SEGMENT' ? draft.segmentId : null,
    audienceFilter: draft.audienceType === 'FILTERED' ? draft.audienceFilter : null,
  };
}

/** Whether two drafts would save the same campaign. */
export function sameDraft(a: CampaignDraft, b: CampaignDraft): boolean {
  return JSON.stringify(campaignBodyOf(a)) === JSON.stringify(campaignBodyOf(b));
}

/** The statuses in which a campaign can still be changed (`PUT /campaigns/:id`). */
export function isEditable(status: Schema<'Campaign'>['status']): boolean {
  return status === 'DRAFT' || status === 'SCHEDULED';
}
