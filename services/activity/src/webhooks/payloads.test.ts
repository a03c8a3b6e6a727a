import type { RecordedEvent } from '@stamp/platform';

import { wants, webhookPayloadOf } from './payloads.ts';

let position = 0;
/** A recorded event of `streamId` for project p1 about contact c1. */
function recorded(
  streamId: string,
  type: string,
  data: Record<string, unknown>,
  extra: Partial<RecordedEvent> = {},
): RecordedEvent {
  position += 1;
  return {
    id: `e${position}`,
    streamId,
    type,
    data,
    metadata: { projectId: 'p1', correlationId: 'r', subjectId: 'c1' },
    revision: 0,
    position,
    createdAt: '2026-01-02T03:04:05.000Z',
    ...extra,
  } as RecordedEvent;
}

it('posts email.sent without the rendered body, headers or attachments', () => {
  const payload = webhookPayloadOf(
    recorded('email-m1', 'EmailQueued', {
      emailId: 'm1',
      contactId: 'c1',
      to: { email: 'ada@example.org' },
      from: { email: 'hi@example.test' },
      subject: 'Welcome',
      html: '<p>secret body</p>',
      headers: { 'X-A': '1' },
      attachments: [{ filename: 'a.txt', content: 'QQ==' }],
      campaignId: 'k1',
      sandbox: false,
    }),
  );
  expect(payload).toEqual({
    projectId: 'p1',
    type: 'email.sent',
    subjectId: 'c1',
    data: {
      eventId: expect.any(String) as string,
      emailId: 'm1',
      contactId: 'c1',
      to: { email: 'ada@example.org' },
      from: { email: 'hi@example.test' },
      subject: 'Welcome',
      campaignId: 'k1',
      sandbox: false,
    },
  });
});

it('names the outcome of an email and the end of an execution', () => {
  expect(
    webhookPayloadOf(recorded('email-m1', 'EmailFailed', { error: 'x', failedAt: 't' }))?.type,
  ).toBe('email.bounced');
  expect(webhookPayloadOf(recorded('email-m1', 'EmailDeferred', { attempt: 1 }))).toBeNull();
  const ended = webhookPayloadOf(
    recorded('workflowExecution-x1', 'ExecutionFailed', {
      workflowId: 'w1',
      contactId: 'c1',
      completedAt: 't',
      stepId: null,
      error: 'boom',
    }),
  );
  expect(ended).toMatchObject({
    type: 'workflow.completed',
    data: { executionId: 'x1', workflowId: 'w1', status: 'FAILED', error: 'boom' },
  });
  expect(
    webhookPayloadOf(recorded('campaign-k1', 'CampaignSent', { sentAt: 't', recipients: 3 })),
  ).toMatchObject({ type: 'campaign.sent', data: { campaignId: 'k1', recipients: 3 } });
  expect(webhookPayloadOf(recorded('campaign-k1', 'CampaignScheduled', {}))).toBeNull();
});

it('posts nothing erased but the deletion, and nothing without a project', () => {
  const erased = { erased: true } as Partial<RecordedEvent>;
  expect(webhookPayloadOf(recorded('contact-c1', 'ContactCreated', {}, erased))).toBeNull();
  expect(webhookPayloadOf(recorded('email-m1', 'EmailSent', {}, erased))).toBeNull();
  expect(webhookPayloadOf(recorded('contact-c1', 'ContactDeleted', {}, erased))).toMatchObject({
    type: 'contact.deleted',
    data: { contactId: 'c1' },
  });
  const orphan = recorded(
    'contact-c1',
    'ContactSubscribed',
    {},
    {
      metadata: { correlationId: 'r' },
    },
  );
  expect(webhookPayloadOf(orphan)).toBeNull();
  expect(webhookPayloadOf(recorded('domain-d1', 'DomainAdded', {}))).toBeNull();
});

it('matches event types, * for every one', () => {
  expect(wants(['*'], 'email.sent')).toBe(true);
  expect(wants(['email.sent'], 'email.sent')).toBe(true);
  expect(wants(['email.sent'], 'email.opened')).toBe(false);
});
