/**
 * The segments service's routes in the OpenAPI document (spec part 4, "Segments"; API
 * reference, "Filter language").
 */
import {
  deletedSchema,
  filterConditionSchema,
  isoTimestamp,
  pageQuery,
  type RouteDoc,
} from '@stamp/http-kit';
import { z } from 'zod';

import {
  countBody,
  createBody,
  membersBody,
  removeMembersBody,
  updateBody,
} from './segments/api.ts';

/** A segment as the routes answer it (spec part 2, "Segment"). */
const segmentSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    type: z.enum(['DYNAMIC', 'STATIC']),
    condition: filterConditionSchema.nullable(),
    trackMembership: z.boolean(),
    memberCount: z.int().min(0).describe('Cached count of the members'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'Segment' });

const memberContact = z
  .object({
    id: z.string(),
    email: z.string(),
    subscribed: z.boolean(),
    data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'SegmentMember' });

const memberResult = z.object({
  email: z.string(),
  status: z.enum(['added', 'created', 'already_member', 'removed', 'not_member', 'not_found']),
});

const notFound = { 404: { description: 'SEGMENT_NOT_FOUND' } };

/** Routes of the segments service. */
export const SEGMENTS_ROUTES: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/segments',
    summary: "The project's segments, oldest first (not paginated)",
    auth: 'secret',
    responses: { 200: { description: 'The segments', schema: z.array(segmentSchema) } },
  },
  {
    method: 'post',
    path: '/segments',
    summary: 'Create a segment (DYNAMIC needs a condition, STATIC takes none)',
    auth: 'secret',
    body: createBody.extend({ condition: filterConditionSchema.nullish() }),
    responses: { 201: { description: 'The segment, its members counted', schema: segmentSchema } },
  },
  {
    method: 'get',
    path: '/segments/{id}',
    summary: 'Get a segment with its cached member count',
    auth: 'secret',
    responses: { 200: { description: 'The segment', schema: segmentSchema }, ...notFound },
  },
  {
    method: 'patch',
    path: '/segments/{id}',
    summary: 'Update name, description, condition (dynamic only) or trackMembership',
    auth: 'secret',
    body: updateBody.extend({ condition: filterConditionSchema.nullish() }),
    responses: {
      200: {
        description: 'The segment (recounted when its condition changed)',
        schema: segmentSchema,
      },
      ...notFound,
    },
  },
  {
    method: 'delete',
    path: '/segments/{id}',
    summary: 'Delete a segment',
    auth: 'secret',
    responses: {
      200: {
        description: 'Deleted',
        schema: deletedSchema,
      },
      ...notFound,
      409: { description: 'The segment is the audience of a scheduled or sending campaign' },
    },
  },
  {
    method: 'get',
    path: '/segments/{id}/contacts',
    summary: 'Members of a segment (page list; live for dynamic segments)',
    auth: 'secret',
    query: pageQuery,
    responses: {
      200: {
        description: 'A page of members, in id order (`contacts` repeats `data`)',
        schema: z.object({
          data: z.array(memberContact),
          contacts: z.array(memberContact),
          total: z.int().min(0),
          page: z.int().min(1),
          pageSize: z.int().min(1),
          totalPages: z.int().min(0),
        }),
      },
      ...notFound,
    },
  },
  {
    method: 'post',
    path: '/segments/{id}/members',
    summary: 'Add contacts to a static segment by email',
    auth: 'secret',
    body: membersBody,
    responses: {
      200: {
        description: 'The outcome of each email, in request order, and counts',
        schema: z.object({
          results: z.array(memberResult),
          added: z.int().min(0),
          created: z.int().min(0),
          alreadyMembers: z.int().min(0),
          notFound: z.int().min(0),
        }),
      },
      400: { description: 'Not a static segment, or a malformed request' },
      ...notFound,
    },
  },
  {
    method: 'delete',
    path: '/segments/{id}/members',
    summary: 'Remove contacts from a static segment by email',
    auth: 'secret',
    body: removeMembersBody,
    responses: {
      200: {
        description: 'The outcome of each email, in request order, and counts',
        schema: z.object({
          results: z.array(memberResult),
          removed: z.int().min(0),
          notMembers: z.int().min(0),
          notFound: z.int().min(0),
        }),
      },
      400: { description: 'Not a static segment, or a malformed request' },
      ...notFound,
    },
  },
  {
    method: 'post',
    path: '/segments/count',
    summary: 'Count the contacts a condition matches now, saving nothing',
    auth: 'secret',
    body: countBody.extend({ condition: filterConditionSchema }),
    responses: {
      200: { description: 'The count', schema: z.object({ count: z.int().min(0) }) },
      422: { description: 'A malformed condition (the path names the filter)' },
    },
  },
  {
    method: 'post',
    path: '/segments/{id}/refresh',
    summary: 'Count the members again (no events, no membership writes)',
    auth: 'secret',
    responses: { 200: { description: 'The segment', schema: segmentSchema }, ...notFound },
  },
  {
    method: 'post',
    path: '/segments/{id}/compute',
    summary: 'Recompute a tracked dynamic segment, firing entry and exit events',
    auth: 'secret',
    responses: {
      200: {
        description: 'The segment with the contacts that entered and exited',
        schema: segmentSchema.extend({ entered: z.int().min(0), exited: z.int().min(0) }),
      },
      ...notFound,
    },
  },
];
