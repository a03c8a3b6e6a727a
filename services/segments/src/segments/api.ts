/**
 * Routes of segments (spec part 4 "Segments"; secret key, mounted by the gateway behind auth):
 * GET/POST /segments, GET/PATCH/DELETE /segments/:id, GET /segments/:id/contacts,
 * POST/DELETE /segments/:id/members, POST /segments/:id/refresh, POST /segments/:id/compute.
 */
import {
  type AwaitViews,
  CAMPAIGNS_VIEW,
  type CampaignViewDocument,
  type ContactsApi,
} from '@stamp/contracts';
import { assertEmailAddress, caller, conflict, notFound, pageQuery, parse } from '@stamp/http-kit';
import { newId, type ViewDocument, type ViewStore } from '@stamp/platform';
import { Router } from 'express';
import { z } from 'zod';

import { audienceView, liveContacts } from '../audience/projection.ts';
import { decodePathKey } from '../condition/index.ts';
import type { SegmentCommands } from './commands.ts';
import {
  decideAddMembers,
  decideCount,
  decideCreate,
  decideDelete,
  decideRemoveMembers,
  decideUpdate,
  requireSegment,
  requireStatic,
} from './decide.ts';
import type { KnownSegment } from './events.ts';
import type { MembershipTracker } from '../membership/tracker.ts';
import type { SegmentMembership } from './membership.ts';
import { LIVE, segmentsView, toResource } from './views.ts';

/** Most emails of one members request. */
export const MAX_MEMBER_EMAILS = 1000;

/** Dependencies of {@link segmentsRouter}. */
export interface SegmentsRouterDeps {
  commands: SegmentCommands;
  membership: SegmentMembership;
  tracker: Pick<MembershipTracker, 'compute'>;
  contacts: Pick<ContactsApi, 'upsertRecipient'>;
  views: ViewStore;
  awaitViews: AwaitViews;
}

const text = (max: number) => z.string().trim().min(1).max(max);

/** Body of POST /segments (the condition is checked by `membership.validate`). */
export const createBody = z.object({
  name: text(255),
  description: z.string().max(1000).nullish(),
  type: z.enum(['DYNAMIC', 'STATIC']).default('DYNAMIC'),
  condition: z.unknown().optional(),
  trackMembership: z.boolean().default(false),
});

/** Body of PATCH /segments/:id. */
export const updateBody = z.object({
  name: text(255).optional(),
  description: z.string().max(1000).nullish(),
  condition: z.unknown().optional(),
  trackMembership: z.boolean().optional(),
});

/** Body of POST /segments/count. */
export const countBody = z.object({ condition: z.unknown() });

/** Body of POST /segments/:id/members. */
export const membersBody = z.object({
  emails: z.array(z.string().max(320)).min(1).max(MAX_MEMBER_EMAILS),
  createMissing: z.boolean().default(false),
  subscribed: z.boolean().optional(),
});

/** Body of DELETE /segments/:id/members. */
export const removeMembersBody = z.object({
  emails: z.array(z.string().max(320)).min(1).max(MAX_MEMBER_EMAILS),
});

/** Outcome of one email of a members request. */
export type MemberOutcome =
  'added' | 'created' | 'already_member' | 'removed' | 'not_member' | 'not_found';

/** Per-email results in request order, and a count of one outcome among them. */
function tallied(emails: readonly string[], outcomes: ReadonlyMap<string, MemberOutcome>) {
  const results = emails.map((email) => ({ email, status: outcomes.get(email) ?? 'not_found' }));
  const tally = (status: MemberOutcome): number =>
    results.filter((entry) => entry.status === status).length;
  return { results, tally };
}

/**
 * The segments router.
 * - GET /segments → 200 array of the project's segments, oldest first (not paginated).
 * - POST /segments → 201 the segment (members counted); 422 for a bad body or condition
 *   (field path such as `condition.groups.0.filters.1.operator`).
 * - POST /segments/count `{condition}` → 200 `{count}`: the contacts the condition matches now,
 *   nothing saved (the live count of a segment or an audience filter being edited); 422 as for
 *   POST /segments.
 * - GET /segments/:id → 200 the segment with its cached `memberCount`; 404 SEGMENT_NOT_FOUND.
 * - PATCH /segments/:id → 200 the segment (recounted when its condition changed).
 * - DELETE /segments/:id → 200 `{success: true, id}`.
 * - GET /segments/:id/contacts → 200 `{data, contacts, total, page, pageSize, totalPages}`,
 *   contacts in id order (live: a dynamic segment's condition is evaluated now).
 * - POST /segments/:id/members → 200 `{results: [{email, status}], added, created,
 *   alreadyMembers, notFound}` (STATIC only, else 400).
 * - DELETE /segments/:id/members → 200 `{results, removed, notMembers, notFound}`.
 * - POST /segments/:id/refresh → 200 the segment with its members counted again (no events
 *   about members, no membership writes).
 * - POST /segments/:id/compute → 200 the segment counted again, with `entered` and `exited`: for
 *   a tracked dynamic segment, a full pass appends `segment.<slug>.entry` for each contact that
 *   matches and is not a member and `segment.<slug>.exit` for each member that no longer matches
 *   (both 0 for other segments, whose membership is not tracked). Its events are in the views
 *   when it answers.
 */
export function segmentsRouter(deps: SegmentsRouterDeps): Router {
  const router = Router();
  const segments = segmentsView(deps.views);
  const audience = audienceView(deps.views);
  const { commands, membership } = deps;
  const clock = (): Date => new Date();

  async function view(projectId: string, id: string) {
    const found = await segments.findOne({ _id: id, projectId, ...LIVE });
    if (found === null) throw notFound('SEGMENT_NOT_FOUND', 'Segment not found');
    return found;
  }

  /**
   * Counts the members of `segment` (unless `counted` gives the count) and records the count when
   * it changed.
   */
  async function recount(
    segment: KnownSegment,
    correlationId: string,
    counted?: number,
  ): Promise<number> {
    const memberCount = counted ?? (await membership.count(segment));
    const cached = (await segments.findOne({ _id: segment.id }))?.memberCount ?? null;
    const result = await commands.execute(segment.id, segment.projectId, correlationId, (loaded) =>
      decideCount(loaded.state, segment.projectId, memberCount, cached, clock()),
    );
    return result.position;
  }

  router.get('/segments', async (_req, res) => {
    const { projectId } = caller(res);
    const found = await segments.find({ projectId, ...LIVE }, { sort: { createdAt: 1, _id: 1 } });
    res.json(found.map(toResource));
  });

  router.post('/segments', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const body = parse(createBody, req.body ?? {});
    const segmentId = newId();
    const condition =
      body.condition === undefined || body.condition === null
        ? null
        : await membership.validate(projectId, body.condition, segmentId);
    const created = await commands.execute(segmentId, projectId, requestId, () =>
      decideCreate(
        {
          segmentId,
          projectId,
          name: body.name,
          description: body.description ?? null,
          type: body.type,
          condition,
          trackMembership: body.trackMembership,
        },
        clock(),
      ),
    );
    await deps.awaitViews(created.position);
    const position = await recount(requireSegment(created.state, projectId), requestId);
    await deps.awaitViews(Math.max(created.position, position));
    res.status(201).json(toResource(await view(projectId, segmentId)));
  });

  router.get('/segments/:id', async (req, res) => {
    const { projectId } = caller(res);
    res.json(toResource(await view(projectId, req.params.id)));
  });

  router.patch('/segments/:id', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const body = parse(updateBody, req.body ?? {});
    const id = req.params.id;
    await view(projectId, id);
    const condition =
      body.condition === undefined || body.condition === null
        ? undefined
        : await membership.validate(projectId, body.condition, id);
    const updated = await commands.execute(id, projectId, requestId, (loaded) =>
      decideUpdate(
        loaded.state,
        projectId,
        {
          name: body.name,
          description: body.description,
          condition,
          trackMembership: body.trackMembership,
        },
        clock(),
      ),
    );
    let position = updated.position;
    if (updated.events.some((event) => event.type === 'SegmentUpdated' && event.data.condition)) {
      await deps.awaitViews(position);
      position = Math.max(
        position,
        await recount(requireSegment(updated.state, projectId), requestId),
      );
    }
    await deps.awaitViews(position);
    res.json(toResource(await view(projectId, id)));
  });

  router.delete('/segments/:id', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const id = req.params.id;
    const user = await deps.views
      .collection<CampaignViewDocument & ViewDocument>(CAMPAIGNS_VIEW)
      .findOne({ projectId, segmentId: id, status: { $in: ['SCHEDULED', 'SENDING'] } });
    if (user !== null) {
      throw conflict(
        `The segment is the audience of campaign ${user._id}, which is ${user.status}`,
      );
    }
    const result = await commands.execute(id, projectId, requestId, (loaded) =>
      decideDelete(loaded.state, projectId, clock()),
    );
    await deps.awaitViews(result.position);
    res.json({ success: true, id });
  });

  router.get('/segments/:id/contacts', async (req, res) => {
    const { projectId } = caller(res);
    const { page, pageSize } = parse(pageQuery, req.query);
    const segment = requireSegment((await commands.load(req.params.id)).state, projectId);
    const filter = await membership.filter(segment);
    const [total, found] = await Promise.all([
      audience.countDocuments(filter),
      audience.find(filter, { sort: { _id: 1 }, skip: (page - 1) * pageSize, limit: pageSize }),
    ]);
    const data = found.map((document) => ({
      id: document._id,
      email: document.email,
      subscribed: document.subscribed,
      data: Object.fromEntries(
        Object.entries(document.data ?? {}).map(([key, value]) => [decodePathKey(key), value]),
      ),
      createdAt: document.createdAt,
      updatedAt: document.updatedAt,
    }));
    res.json({
      data,
      contacts: data,
      total,
      page,
      pageSize,
      totalPages: Math.ceil(total / pageSize),
    });
  });

  /** The contacts of `emails` (normalised) in the project, by email. */
  async function contactsByEmail(projectId: string, emails: readonly string[]) {
    const found = await audience.find({ ...liveContacts(projectId), email: { $in: [...emails] } });
    return new Map(found.map((document) => [document.email, document._id]));
  }

  const normalised = (emails: readonly string[]): string[] => [
    ...new Set(
      emails.map((email, index) =>
        assertEmailAddress(email.trim().toLowerCase(), `emails.${index}`),
      ),
    ),
  ];

  router.post('/segments/:id/members', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const body = parse(membersBody, req.body ?? {});
    const id = req.params.id;
    requireStatic((await commands.load(id)).state, projectId);
    const emails = normalised(body.emails);
    const known = await contactsByEmail(projectId, emails);
    const outcomes = new Map<string, MemberOutcome>();
    let position = 0;
    if (body.createMissing) {
      for (const email of emails) {
        if (known.has(email)) continue;
        const created = await deps.contacts.upsertRecipient({
          projectId,
          email,
          subscribed: body.subscribed,
          defaultSubscribed: true,
          correlationId: requestId,
        });
        known.set(email, created.contactId);
        if (created.isNew) outcomes.set(email, 'created');
        position = Math.max(position, created.position);
      }
    }
    const result = await commands.execute(id, projectId, requestId, (loaded) => {
      for (const email of emails) {
        const contactId = known.get(email);
        if (contactId === undefined) outcomes.set(email, 'not_found');
        else if (loaded.members.has(contactId)) outcomes.set(email, 'already_member');
        else if (!outcomes.has(email)) outcomes.set(email, 'added');
      }
      return decideAddMembers(loaded.state, projectId, [...known.values()], loaded.members);
    });
    await deps.awaitViews(Math.max(position, result.position));
    const { results, tally } = tallied(emails, outcomes);
    res.json({
      results,
      added: tally('added') + tally('created'),
      created: tally('created'),
      alreadyMembers: tally('already_member'),
      notFound: tally('not_found'),
    });
  });

  router.delete('/segments/:id/members', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const body = parse(removeMembersBody, req.body ?? {});
    const id = req.params.id;
    requireStatic((await commands.load(id)).state, projectId);
    const emails = normalised(body.emails);
    const known = await contactsByEmail(projectId, emails);
    const outcomes = new Map<string, MemberOutcome>();
    const result = await commands.execute(id, projectId, requestId, (loaded) => {
      for (const email of emails) {
        const contactId = known.get(email);
        outcomes.set(
          email,
          contactId === undefined
            ? 'not_found'
            : loaded.members.has(contactId)
              ? 'removed'
              : 'not_member',
        );
      }
      return decideRemoveMembers(loaded.state, projectId, [...known.values()], loaded.members);
    });
    await deps.awaitViews(result.position);
    const { results, tally } = tallied(emails, outcomes);
    res.json({
      results,
      removed: tally('removed'),
      notMembers: tally('not_member'),
      notFound: tally('not_found'),
    });
  });

  router.post('/segments/count', async (req, res) => {
    const { projectId } = caller(res);
    const body = parse(countBody, req.body ?? {});
    const condition = await membership.validate(projectId, body.condition);
    res.json({ count: await membership.countMatching(projectId, condition) });
  });

  router.post('/segments/:id/refresh', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const id = req.params.id;
    const segment = requireSegment((await commands.load(id)).state, projectId);
    await deps.awaitViews(await recount(segment, requestId));
    res.json(toResource(await view(projectId, id)));
  });

  router.post('/segments/:id/compute', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const id = req.params.id;
    const segment = requireSegment((await commands.load(id)).state, projectId);
    const pass = await deps.tracker.compute(segment);
    // A full pass of a tracked segment counted its members; other segments are counted.
    const counted = pass.tracked ? pass.members : undefined;
    await deps.awaitViews(Math.max(pass.position, await recount(segment, requestId, counted)));
    const { entered, exited } = pass;
    res.json({ ...toResource(await view(projectId, id)), entered, exited });
  });

  return router;
}
