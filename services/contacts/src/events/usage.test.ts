import { referencesEvent, workflowUsesEvent } from './usage.ts';

describe('event name references', () => {
  const condition = {
    logic: 'OR',
    groups: [
      { filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] },
      {
        filters: [],
        conditions: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'event.order.paid', operator: 'triggeredWithin' }] }],
        },
      },
    ],
  };

  it('finds a filter on event.<name> at any depth', () => {
    expect(referencesEvent(condition, 'order.paid')).toBe(true);
    expect(referencesEvent(condition, 'order')).toBe(false);
    expect(referencesEvent(condition, 'plan')).toBe(false);
  });

  it('ignores values that are not filters', () => {
    expect(referencesEvent(undefined, 'x')).toBe(false);
    expect(referencesEvent('event.x', 'x')).toBe(false);
    expect(referencesEvent([{ value: 'event.x' }], 'x')).toBe(false);
  });

  it('matches workflow triggers and WAIT_FOR_EVENT steps only', () => {
    const workflow = {
      _id: 'w',
      projectId: 'p',
      name: 'W',
      eventName: 'signup',
      steps: [
        { id: 'a', type: 'WAIT_FOR_EVENT', config: { eventName: 'paid' } },
        { id: 'b', type: 'CONDITION', config: { field: 'event.clicked' } },
      ],
    };
    expect(workflowUsesEvent(workflow, 'signup')).toBe(true);
    expect(workflowUsesEvent(workflow, 'paid')).toBe(true);
    expect(workflowUsesEvent(workflow, 'clicked')).toBe(false);
  });
});
