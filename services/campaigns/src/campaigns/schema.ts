/**
 * The body of POST /campaigns and PUT /campaigns/:id (spec part 2 "Campaign"), with Plunk's
 * `audienceCondition` accepted for the spec's `audienceFilter`.
 */
import { AUDIENCE_TYPES } from '@stamp/contracts';
import { emailAddress, validationError } from '@stamp/http-kit';
import { z } from 'zod';

import type { CampaignFields } from './events.ts';

/** Largest body (HTML) of a campaign, characters. */
export const MAX_BODY_CHARACTERS = 1_000_000;

const text = (max: number) => z.string().trim().min(1).max(max);

/** RFC 5322 header text: no line breaks or other control characters. */
const headerText = (max: number) =>
  text(max).regex(/^[^\p{Cc}]*$/u, { message: 'Control characters are not allowed' });

/** The fields of a campaign as a client sends them. */
export const campaignBody = z.object({
  name: text(255),
  description: z.string().max(1000).nullish(),
  subject: headerText(998),
  body: z.string().min(1).max(MAX_BODY_CHARACTERS),
  from: emailAddress,
  fromName: z
    .string()
    .max(255)
    .regex(/^[^\p{Cc}]*$/u, { message: 'Control characters are not allowed' })
    .nullish(),
  replyTo: emailAddress.nullish(),
  audienceType: z.enum(AUDIENCE_TYPES),
  segmentId: z.string().min(1).max(100).nullish(),
  audienceFilter: z.unknown().optional(),
  audienceCondition: z.unknown().optional(),
});

/** A parsed campaign body. */
export type CampaignBody = z.infer<typeof campaignBody>;

/**
 * The stored fields of a body: the audience field its type needs, the others cleared.
 * @throws ApiError 422 VALIDATION_ERROR: `segmentId` missing for SEGMENT, `audienceFilter`
 *   missing for FILTERED.
 */
export function fieldsOf(body: CampaignBody): CampaignFields {
  const filter = body.audienceFilter ?? body.audienceCondition ?? null;
  if (body.audienceType === 'SEGMENT' && (body.segmentId ?? null) === null) {
    throw validationError([
      { field: 'segmentId', message: 'A SEGMENT audience needs a segmentId', code: 'required' },
    ]);
  }
  if (body.audienceType === 'FILTERED' && filter === null) {
    throw validationError([
      {
        field: 'audienceFilter',
        message: 'A FILTERED audience needs an audienceFilter',
        code: 'required',
      },
    ]);
  }
  return {
    name: body.name,
    description: body.description ?? null,
    subject: body.subject,
    body: body.body,
    from: body.from,
    fromName: body.fromName ?? null,
    replyTo: body.replyTo ?? null,
    audienceType: body.audienceType,
    segmentId: body.audienceType === 'SEGMENT' ? (body.segmentId ?? null) : null,
    audienceFilter: body.audienceType === 'FILTERED' ? filter : null,
  };
}
