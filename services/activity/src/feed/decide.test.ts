import { decideActivity, maskAddresses, maskUrlAddresses } from './decide.ts';
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

  it('maps opens, clicks, bounces, complaints and suppressions to outcomes without addresses', () => {
    const engagement = { emailId: 'm3', subject: 'Hi', automated: false };
    const click = emailEvent(
      'm3',
      'EmailClicked',
      { ...engagement, url: 'https://shop.example/?who=bob@example.org', clickedAt: at },
      { at, id: 'k1', revision: 2 },
    );
    expect(decideActivity(click)).toMatchObject({
      kind: 'outcome',
      type: 'email.clicked',
      data: { url: 'https://shop.example/?who=[address]', automated: false },
    });
    expect(maskUrlAddresses('https://x.example/a?e=bob%40example.org&b=1')).toBe(
      'https://x.example/a?e=[address]&b=1',
    );
    expect(maskUrlAddresses('https://x.example/p/1')).toBe('https://x.example/p/1');
    const open = emailEvent(
      'm3',
      'EmailOpened',
      { ...engagement, automated: true, automatedReason: 'privacy-proxy', openedAt: at },
      { at, id: 'o1', revision: 3 },
    );
    expect(decideActivity(open)).toMatchObject({
      type: 'email.opened',
      data: { automated: true, automatedReason: 'privacy-proxy' },
    });
    const bounce = emailEvent(
      'm3',
      'EmailBounced',
      {
        bounceType: 'hard',
        source: 'dsn',
        recipient: 'bob@example.org',
        status: '5.1.1',
        diagnostic: '550 <bob@example.org> unknown',
        bouncedAt: at,
      },
      { at, id: 'b1', revision: 4 },
    );
    expect(decideActivity(bounce)).toMatchObject({
      type: 'email.bounced',
      data: { bounceType: 'hard', error: '550 <[address]> unknown' },
    });
    const complaint = emailEvent(
      'm3',
      'EmailComplained',
      { feedbackType: 'abuse', recipient: 'bob@example.org', complainedAt: at },
      { at, id: 'c2', revision: 5 },
    );
    expect(decideActivity(complaint)).toMatchObject({
      type: 'email.complained',
      data: { feedbackType: 'abuse' },
    });
    const suppressed = emailEvent(
      'm4',
      'EmailSuppressed',
      { reason: 'COMPLAINT', suppressedAt: at },
      { at, id: 's2', revision: 1 },
    );
    expect(decideActivity(suppressed)).toMatchObject({
      type: 'email.suppressed',
      data: { reason: 'COMPLAINT' },
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
