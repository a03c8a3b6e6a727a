/**
 * Routes of campaigns (spec part 4 "Campaigns", secret key): CRUD, duplicate, send (now or at
 * `scheduledFor`), cancel, test and stats.
 */
import {
  type Audience,
  type AwaitViews,
  type CampaignContent,
  type CampaignEmailsApi,
  DELIVERED_STATUSES,
  EMAILS_VIEW,
  type EmailViewDocument,
  type SegmentsApi,
} from '@stamp/contracts';
import { caller, emailAddress, notFound, parse } from '@stamp/http-kit';
import { newId, type ViewDocument, type ViewStore } from '@stamp/platform';
import { Router } from 'express';
import { z } from 'zod';

import type { CampaignCommands } from './commands.ts';
import {
  decideCancel,
  decideCreate,
  decideDelete,
  decideSend,
  decideUpdate,
  requireCampaign,
} from './decide.ts';
import type { CampaignFields } from './events.ts';
import { campaignBody, fieldsOf } from './schema.ts';
import { type CampaignView, campaignsView, LIVE, toResource } from './views.ts';

/** Dependencies of {@link campaignsRouter}. */
export interface CampaignsRouterDeps {
  commands: CampaignCommands;
  views: ViewStore;
  segments: SegmentsApi;
  sending: CampaignEmailsApi;
  awaitViews: AwaitViews;
  /** The clock (tests set it). */
  now?: () => Date;
}

/** Body of POST /campaigns/:id/send. */
export const sendBody = z.object({ scheduledFor: z.iso.datetime({ offset: true }).nullish() });
/** Body of POST /campaigns/:id/test. */
export const testBody = z.object({ email: emailAddress });

/** The audience of a campaign's fields. */
export function audienceOf(fields: CampaignFields): Audience {
  switch (fields.audienceType) {
    case 'ALL':
      return { audienceType: 'ALL' };
    case 'SEGMENT':
      return { audienceType: 'SEGMENT', segmentId: fields.segmentId ?? '' };
    case 'FILTERED':
      return { audienceType: 'FILTERED', audienceFilter: fields.audienceFilter };
  }
}

/** The content of a campaign's emails, as the sending service takes it. */
export function contentOf(fields: CampaignFields): CampaignContent {
  return {
    subject: fields.subject,
    body: fields.body,
    from: fields.from,
    ...(fields.fromName === null ? {} : { fromName: fields.fromName }),
    ...(fields.replyTo === null ? {} : { replyTo: fields.replyTo }),
  };
}

/** `part / whole`, 0 when `whole` is 0, rounded to 4 decimals. */
const rate = (part: number, whole: number): number =>
  whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;

/** Builds the router. */
export function campaignsRouter(deps: CampaignsRouterDeps): Router {
  const { commands } = deps;
  const clock = deps.now ?? (() => new Date());
  const campaigns = campaignsView(deps.views);
  const emails = deps.views.collection<EmailViewDocument & ViewDocument>(EMAILS_VIEW);
  const router = Router();

  async function view(projectId: string, id: string): Promise<CampaignView> {
    const found = await campaigns.findOne({ _id: id, projectId, ...LIVE });
    if (found === null) throw notFound('CAMPAIGN_NOT_FOUND', 'Campaign not found');
    return found;
  }

  /**
   * The fields of a body, checked against the project: the sender (403) and the audience (404
   * for an unknown segment, 422 for a bad filter, kept as parsed).
   */
  async function checkedFields(projectId: string, input: unknown): Promise<CampaignFields> {
    const fields = fieldsOf(parse(campaignBody, input ?? {}));
    const audienceFilter = await deps.segments.checkAudience(projectId, audienceOf(fields));
    await deps.sending.checkSender(projectId, fields.from);
    return fields.audienceType === 'FILTERED' ? { ...fields, audienceFilter } : fields;
  }

  router.get('/campaigns', async (_req, res) => {
    const { projectId } = caller(res);
    const found = await campaigns.find(
      { projectId, ...LIVE },
      { sort: { createdAt: -1, _id: -1 } },
    );
    res.json(found.map(toResource));
  });

  router.post('/campaigns', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const fields = await checkedFields(projectId, req.body);
    const campaignId = newId();
    const created = await commands.execute(campaignId, projectId, requestId, () =>
      decideCreate({ campaignId, projectId, fields }, clock()),
    );
    await deps.awaitViews(created.position);
    res.status(201).json({ success: true, data: toResource(await view(projectId, campaignId)) });
  });

  router.get('/campaigns/:id', async (req, res) => {
    const { projectId } = caller(res);
    res.json(toResource(await view(projectId, req.params.id)));
  });

  router.put('/campaigns/:id', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const id = req.params.id;
    requireCampaign((await commands.load(id)).state, projectId);
    const fields = await checkedFields(projectId, req.body);
    const result = await commands.execute(id, projectId, requestId, (loaded) =>
      decideUpdate(loaded.state, projectId, fields, clock()),
    );
    await deps.awaitViews(result.position);
    res.json(toResource(await view(projectId, id)));
  });

  router.delete('/campaigns/:id', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const id = req.params.id;
    const result = await commands.execute(id, projectId, requestId, (loaded) =>
      decideDelete(loaded.state, projectId, clock()),
    );
    await deps.awaitViews(result.position);
    res.json({ success: true, id });
  });

  router.post('/campaigns/:id/duplicate', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const source = requireCampaign((await commands.load(req.params.id)).state, projectId);
    const campaignId = newId();
    const fields = { ...source.fields, name: `${source.fields.name} (copy)`.slice(0, 255) };
    const created = await commands.execute(campaignId, projectId, requestId, () =>
      decideCreate({ campaignId, projectId, fields }, clock()),
    );
    await deps.awaitViews(created.position);
    res.status(201).json(toResource(await view(projectId, campaignId)));
  });

  router.post('/campaigns/:id/send', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const id = req.params.id;
    const body = parse(sendBody, req.body ?? {});
    const loaded = requireCampaign((await commands.load(id)).state, projectId);
    // The audience and the sender are checked again: the segment or the domain may be gone.
    await deps.segments.checkAudience(projectId, audienceOf(loaded.fields));
    await deps.sending.checkSender(projectId, loaded.fields.from);
    const scheduledFor = body.scheduledFor == null ? null : new Date(body.scheduledFor);
    const result = await commands.execute(id, projectId, requestId, (current) =>
      decideSend(current.state, projectId, { scheduledFor, timerId: newId() }, clock()),
    );
    await deps.awaitViews(result.position);
    res.json(toResource(await view(projectId, id)));
  });

  router.post('/campaigns/:id/cancel', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const id = req.params.id;
    const result = await commands.execute(id, projectId, requestId, (loaded) =>
      decideCancel(loaded.state, projectId, clock()),
    );
    await deps.awaitViews(result.position);
    res.json(toResource(await view(projectId, id)));
  });

  router.post('/campaigns/:id/test', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const { email } = parse(testBody, req.body ?? {});
    const campaign = requireCampaign((await commands.load(req.params.id)).state, projectId);
    const { emailId } = await deps.sending.sendCampaignTest({
      projectId,
      campaignId: campaign.id,
      correlationId: requestId,
      email,
      content: contentOf(campaign.fields),
    });
    res.json({ success: true, emailId });
  });

  /**
   * Opens or clicks of a campaign's emails: unique (emails with at least one) and total, in all
   * and a person's and automated ones apart.
   */
  async function engagement(campaignId: string, kind: 'Opens' | 'Clicks') {
    const human = `human${kind}`;
    const automated = `automated${kind}`;
    const some = (field: string) => ({ campaignId, [field]: { $gt: 0 } });
    const [unique, humanUnique, automatedUnique, totals] = await Promise.all([
      emails.countDocuments({ campaignId, $or: [some(human), some(automated)] }),
      emails.countDocuments(some(human)),
      emails.countDocuments(some(automated)),
      emails.aggregate<{ human: number; automated: number }>([
        { $match: { campaignId, $or: [some(human), some(automated)] } },
        {
          $group: { _id: null, human: { $sum: `$${human}` }, automated: { $sum: `$${automated}` } },
        },
      ]),
    ]);
    const humanTotal = totals[0]?.human ?? 0;
    const automatedTotal = totals[0]?.automated ?? 0;
    return {
      unique,
      total: humanTotal + automatedTotal,
      human: { unique: humanUnique, total: humanTotal },
      automated: { unique: automatedUnique, total: automatedTotal },
    };
  }

  router.get('/campaigns/:id/stats', async (req, res) => {
    const { projectId } = caller(res);
    const campaign = await view(projectId, req.params.id);
    const campaignId = campaign._id;
    const [sent, queued, delivered, failed, bounced, complained, opens, clicks] = await Promise.all(
      [
        emails.countDocuments({ campaignId }),
        emails.countDocuments({ campaignId, status: 'QUEUED' }),
        emails.countDocuments({ campaignId, status: { $in: [...DELIVERED_STATUSES] } }),
        emails.countDocuments({ campaignId, status: 'FAILED' }),
        emails.countDocuments({ campaignId, status: 'BOUNCED' }),
        emails.countDocuments({ campaignId, status: 'COMPLAINED' }),
        engagement(campaignId, 'Opens'),
        engagement(campaignId, 'Clicks'),
      ],
    );
    // Opened and clicked count people: automated opens and clicks are apart in `opens`/`clicks`.
    const opened = opens.human.unique;
    const clicked = clicks.human.unique;
    const unsubscribed = 0;
    res.json({
      campaignId,
      status: campaign.status,
      recipients: campaign.recipients ?? 0,
      queued,
      sent,
      delivered,
      failed,
      bounced,
      complained,
      opened,
      clicked,
      unsubscribed,
      opens,
      clicks,
      rates: {
        delivery: rate(delivered, sent),
        failure: rate(failed, sent),
        bounce: rate(bounced, sent),
        complaint: rate(complained, delivered),
        open: rate(opened, delivered),
        click: rate(clicked, delivered),
        unsubscribe: rate(unsubscribed, delivered),
      },
    });
  });

  return router;
}
