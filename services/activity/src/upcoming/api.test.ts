/** GET /activity/upcoming over a real socket, on documents written into the views it reads. */
import {
  CAMPAIGNS_VIEW,
  type CampaignViewDocument,
  CONTACTS_VIEW,
  type ContactViewDocument,
  WORKFLOW_EXECUTIONS_VIEW,
  type WorkflowExecutionViewDocument,
  WORKFLOWS_VIEW,
  type WorkflowViewDocument,
} from '@stamp/contracts';
import {
  createLogger,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  type ViewDocument,
} from '@stamp/platform';
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';

import { createUpcomingIndexes, upcomingRouter } from './api.ts';

const NOW = new Date('2025-06-01T12:00:00.000Z');

let platform: EmbeddedPlatform;
let p1: ServedRouter;
let p2: ServedRouter;

const campaign = (
  id: string,
  status: CampaignViewDocument['status'],
  scheduledAt: string | null,
  projectId = 'p1',
): CampaignViewDocument & ViewDocument => ({
  _id: id,
  projectId,
  name: `Campaign ${id}`,
  status,
  scheduledAt,
});

const execution = (
  id: string,
  status: WorkflowExecutionViewDocument['status'],
  nextRunAt: string | null,
  projectId = 'p1',
): WorkflowExecutionViewDocument & ViewDocument => ({
  _id: id,
  projectId,
  workflowId: 'w1',
  contactId: 'c1',
  status,
  startedAt: `2025-05-01T00:00:0${id.length % 10}.000Z`,
  nextRunAt,
});

beforeAll(async () => {
  platform = openEmbeddedPlatform({
    dataDir: ':memory:',
    logger: createLogger({ level: 'silent' }),
  });
  await createUpcomingIndexes(platform.views);
  const campaigns = platform.views.collection<CampaignViewDocument & ViewDocument>(CAMPAIGNS_VIEW);
  for (const document of [
    campaign('later', 'SCHEDULED', '2025-06-03T09:00:00.000Z'),
    campaign('soon', 'SCHEDULED', '2025-06-01T12:30:00.000Z'),
    campaign('past', 'SCHEDULED', '2025-06-01T11:59:59.999Z'),
    campaign('draft', 'DRAFT', null),
    campaign('sent', 'SENT', '2025-06-02T00:00:00.000Z'),
    campaign('other', 'SCHEDULED', '2025-06-02T00:00:00.000Z', 'p2'),
  ]) {
    await campaigns.insertOne(document);
  }
  const executions = platform.views.collection<WorkflowExecutionViewDocument & ViewDocument>(
    WORKFLOW_EXECUTIONS_VIEW,
  );
  for (const document of [
    execution('running', 'RUNNING', null),
    execution('wait-2', 'WAITING', '2025-06-05T00:00:00.000Z'),
    execution('wait-1', 'WAITING', '2025-06-02T00:00:00.000Z'),
    execution('done', 'COMPLETED', null),
    execution('cancelled', 'CANCELLED', null),
    execution('foreign', 'RUNNING', null, 'p2'),
  ]) {
    await executions.insertOne(document);
  }
  const workflow: WorkflowViewDocument & ViewDocument = {
    _id: 'w1',
    projectId: 'p1',
    name: 'Onboarding',
    steps: [],
  };
  await platform.views
    .collection<WorkflowViewDocument & ViewDocument>(WORKFLOWS_VIEW)
    .insertOne(workflow);
  const contact: ContactViewDocument & ViewDocument = {
    _id: 'c1',
    projectId: 'p1',
    email: 'ada@example.org',
    subscribed: true,
    data: {},
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
  };
  await platform.views
    .collection<ContactViewDocument & ViewDocument>(CONTACTS_VIEW)
    .insertOne(contact);
  const router = upcomingRouter({ views: platform.views, now: () => NOW });
  p1 = await serveRouter(router, { projectId: 'p1', keyKind: 'secret' });
  p2 = await serveRouter(router, { projectId: 'p2', keyKind: 'secret' });
});

afterAll(async () => {
  await p1.close();
  await p2.close();
  await platform.close();
});

describe('GET /activity/upcoming', () => {
  it('lists future scheduled campaigns soonest first and active executions', async () => {
    const response = await p1.request('GET', '/activity/upcoming');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      campaigns: [
        {
          id: 'soon',
          name: 'Campaign soon',
          status: 'SCHEDULED',
          scheduledAt: '2025-06-01T12:30:00.000Z',
        },
        {
          id: 'later',
          name: 'Campaign later',
          status: 'SCHEDULED',
          scheduledAt: '2025-06-03T09:00:00.000Z',
        },
      ],
      executions: [
        {
          id: 'wait-1',
          workflowId: 'w1',
          workflowName: 'Onboarding',
          contact: { id: 'c1', email: 'ada@example.org' },
          status: 'WAITING',
          startedAt: '2025-05-01T00:00:06.000Z',
          nextRunAt: '2025-06-02T00:00:00.000Z',
        },
        expect.objectContaining({ id: 'wait-2', status: 'WAITING' }),
        expect.objectContaining({ id: 'running', status: 'RUNNING', nextRunAt: null }),
      ],
    });
  });

  it('limits each list and keeps projects apart', async () => {
    const limited = (await p1.request('GET', '/activity/upcoming?limit=1')).body as {
      campaigns: { id: string }[];
      executions: { id: string }[];
    };
    expect(limited.campaigns.map((item) => item.id)).toEqual(['soon']);
    expect(limited.executions.map((item) => item.id)).toEqual(['wait-1']);
    expect((await p2.request('GET', '/activity/upcoming')).body).toEqual({
      campaigns: [expect.objectContaining({ id: 'other' })],
      executions: [expect.objectContaining({ id: 'foreign', workflowName: null, contact: null })],
    });
  });

  it('answers 422 for a limit out of 1..100', async () => {
    for (const limit of ['0', '101', 'x']) {
      const response = await p1.request('GET', `/activity/upcoming?limit=${limit}`);
      expect([limit, response.status]).toEqual([limit, 422]);
      expect(response.body).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_ERROR', errors: [{ field: 'limit' }] },
      });
    }
  });
});
