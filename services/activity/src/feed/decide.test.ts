import { decideActivity, maskAddresses } from './decide.ts';
import { contactEvent, emailEvent, executionEvent, queuedData, trackedEvent } from './fixtures.ts';

const at = '2025-03-01T10:00:00.000Z';

describe('decideActivity', () => {
  it('maps a tracked event to event.triggered with its name and data, no email address', () => {
    const event = trackedEvent(
      { name: 'signed-up', contactId: 'c1', data: { plan: 'pro' } },
      { at, id: 't1' },
    );
    expect(decideActivity(event)).toEqual({
      kind: 'add',
      item: {
        id: 't1',
        projectId: 'p1',
        type: 'event.triggered',
        contactId: 'c1',
        at,
        data: { name: 'signed-up', data: { plan: 'pro' } },
      },
    });
  });

  it('maps EmailQueued to email.sent with subject and template only', () => {
    const event = emailEvent('m1', 'EmailQueued', queuedData('m1', 'c1', 'Hi', 'tpl'), {
      at,
      id: 'q1',
    });
    expect(decideActivity(event)).toEqual({
      kind: 'add',
      item: {
        id: 'q1',
        projectId: 'p1',
        type: 'email.sent',
        contactId: 'c1',
        emailId: 'm1',
        at,
        data: { subject: 'Hi', templateId: 'tpl' },
      },
    });
  });

  it('maps EmailSent and EmailFailed to outcomes of the email; the error loses addresses', () => {
    const sent = emailEvent(
      'm1',
      'EmailSent',
      { messageId: '<x@y>', response: '250 OK', transport: 'smtp', sentAt: at },
      { at, id: 's1', revision: 1 },
    );
    expect(decideActivity(sent)).toEqual({
      kind: 'outcome',
      id: 's1',
      projectId: 'p1',
      type: 'email.delivered',
      emailId: 'm1',
      at,
      data: {},
    });
    const failed = emailEvent(
      'm2',
      'EmailFailed',
      { error: '550 5.1.1 <bob@example.org>: user unknown', failedAt: at },
      { at, id: 'f1', revision: 1 },
    );
    expect(decideActivity(failed)).toMatchObject({
      kind: 'outcome',
      type: 'email.bounced',
      emailId: 'm2',
      data: { error: '550 5.1.1 <[address]>: user unknown' },
    });
  });

  it('maps subscription flips and contact deletion; ignores other contact events', () => {
    expect(decideActivity(contactEvent('c1', 'ContactSubscribed', { at, id: 'a' }))).toMatchObject({
      kind: 'add',
      item: { type: 'contact.subscribed', contactId: 'c1', data: {} },
    });
    expect(
      decideActivity(contactEvent('c1', 'ContactUnsubscribed', { at, id: 'b' })),
    ).toMatchObject({ kind: 'add', item: { type: 'contact.unsubscribed' } });
    expect(decideActivity(contactEvent('c1', 'ContactDeleted', { at }))).toEqual({
      kind: 'forgetContact',
      projectId: 'p1',
      contactId: 'c1',
    });
    const created = contactEvent(
      'c1',
      'ContactCreated',
      { at },
      {
        email: 'a@example.org',
        subscribed: true,
        data: {},
      },
    );
    expect(decideActivity(created)).toEqual({ kind: 'none' });
    expect(
      decideActivity(
        emailEvent('m1', 'EmailDeferred', { attempt: 1, error: 'x', retryAt: at }, { at }),
      ),
    ).toEqual({ kind: 'none' });
  });

  it('skips erased events, but still forgets a deleted contact; skips events without project', () => {
    const erased = { at, erased: true };
    expect(decideActivity(contactEvent('c1', 'ContactSubscribed', erased))).toEqual({
      kind: 'none',
    });
    expect(decideActivity(trackedEvent({ name: 'x', contactId: 'c1' }, erased))).toEqual({
      kind: 'none',
    });
    expect(
      decideActivity(emailEvent('m1', 'EmailQueued', queuedData('m1', 'c1', 's'), erased)),
    ).toEqual({ kind: 'none' });
    expect(decideActivity(contactEvent('c1', 'ContactDeleted', erased))).toMatchObject({
      kind: 'forgetContact',
    });
    expect(decideActivity(contactEvent('c1', 'ContactSubscribed', { at, projectId: '' }))).toEqual({
      kind: 'none',
    });
  });

  it('maps the start of an execution to workflow.started and each end to workflow.completed', () => {
    const started = executionEvent(
      'x1',
      'ExecutionStarted',
      { executionId: 'x1', workflowId: 'w1', projectId: 'p1', contactId: 'c1', startedAt: at },
      { at, id: 'e1' },
    );
    expect(decideActivity(started)).toEqual({
      kind: 'add',
      item: {
        id: 'e1',
        projectId: 'p1',
        type: 'workflow.started',
        contactId: 'c1',
        at,
        data: { workflowId: 'w1', executionId: 'x1' },
      },
    });
    const end = { workflowId: 'w1', contactId: 'c1', completedAt: at };
    const completed = executionEvent('x1', 'ExecutionCompleted', end, { at, id: 'e2' });
    expect(decideActivity(completed)).toEqual({
      kind: 'add',
      item: {
        id: 'e2',
        projectId: 'p1',
        type: 'workflow.completed',
        contactId: 'c1',
        at,
        data: { workflowId: 'w1', executionId: 'x1', status: 'COMPLETED' },
      },
    });
    const exited = executionEvent(
      'x1',
      'ExecutionExited',
      { ...end, stepId: 's9', reason: 'Upgraded' },
      { at },
    );
    expect(decideActivity(exited)).toMatchObject({
      item: { data: { status: 'EXITED', reason: 'Upgraded' } },
    });
    const failed = executionEvent(
      'x1',
      'ExecutionFailed',
      { ...end, stepId: 's2', error: 'Template not found' },
      { at },
    );
    expect(decideActivity(failed)).toMatchObject({
      item: { data: { status: 'FAILED', reason: 'Template not found' } },
    });
    const cancelled = executionEvent('x1', 'ExecutionCancelled', end, { at });
    expect(decideActivity(cancelled)).toMatchObject({
      item: { type: 'workflow.completed', data: { status: 'CANCELLED' } },
    });
  });

  it('adds nothing for the steps and waits of an execution', () => {
    const waiting = recordedExecution('ExecutionWaiting', { stepId: 's1', since: at });
    expect(decideActivity(waiting)).toEqual({ kind: 'none' });
  });

  it('masks every address in a text', () => {
    expect(maskAddresses('to a.b+c@x.org, d@y.co failed')).toBe('to [address], [address] failed');
  });
});

/** An execution event of a type other services do not read. */
function recordedExecution(type: string, data: Record<string, unknown>) {
  return {
    ...executionEvent(
      'x1',
      'ExecutionCompleted',
      {
        workflowId: 'w1',
        contactId: 'c1',
        completedAt: at,
      },
      { at },
    ),
    type,
    data,
  };
}
