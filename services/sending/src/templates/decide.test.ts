import { decide } from './decide.ts';
import { evolve, type TemplateEvent, type TemplateState } from './events.ts';
import { thrownApiError } from '@stamp/testkit/api-error.ts';

const fields = {
  name: 'Welcome',
  subject: 'Hi {{ name }}',
  body: '<p>Hello</p>',
  type: 'TRANSACTIONAL' as const,
  from: 'hello@example.test',
};
const now = '2025-01-01T00:00:00.000Z';
const given = (events: TemplateEvent[]): TemplateState =>
  events.reduce<TemplateState>(evolve, null);
const created: TemplateEvent = {
  type: 'TemplateCreated',
  data: { templateId: 't1', ...fields, createdAt: now },
};

const apiError = thrownApiError;

describe('template decider', () => {
  it('creates a template', () => {
    expect(decide(given([]), { type: 'CreateTemplate', templateId: 't1', fields, now })).toEqual([
      created,
    ]);
  });

  it('refuses invalid Liquid naming the field', () => {
    const error = apiError(() =>
      decide(null, {
        type: 'CreateTemplate',
        templateId: 't1',
        fields: { ...fields, body: "{% include 'x' %}" },
        now,
      }),
    );
    expect(error.status).toBe(422);
    expect(error.options.errors).toEqual([
      {
        field: 'body',
        message: 'Liquid syntax error on line 1: the {% include %} tag is not allowed',
        code: 'invalid_template',
      },
    ]);
  });

  it('names the line of a Liquid error in the subject and in an updated body', () => {
    const error = apiError(() =>
      decide(given([created]), {
        type: 'UpdateTemplate',
        patch: { subject: '{{ a', body: '<p>\n\n{% endfor %}' },
        now,
      }),
    );
    expect(error.options.errors?.map((issue) => [issue.field, issue.message])).toEqual([
      ['subject', 'Liquid syntax error on line 1: output "{{ a" not closed'],
      ['body', 'Liquid syntax error on line 3: tag "endfor" not found'],
    ]);
  });

  it('updates only changed fields and clears with null', () => {
    const events = decide(given([created]), {
      type: 'UpdateTemplate',
      patch: { name: 'Welcome', subject: 'New', from: null },
      now,
    });
    expect(events).toEqual([
      {
        type: 'TemplateUpdated',
        data: { templateId: 't1', patch: { subject: 'New', from: null }, updatedAt: now },
      },
    ]);
    const state = given([created, ...events]);
    expect(state?.subject).toBe('New');
    expect(state && 'from' in state).toBe(false);
  });

  it('a no-op update gives no events', () => {
    expect(
      decide(given([created]), { type: 'UpdateTemplate', patch: { name: 'Welcome' }, now }),
    ).toEqual([]);
  });

  it('deletes, then refuses updates with 404 TEMPLATE_NOT_FOUND', () => {
    const deleted = decide(given([created]), { type: 'DeleteTemplate', now });
    expect(deleted).toEqual([
      { type: 'TemplateDeleted', data: { templateId: 't1', deletedAt: now } },
    ]);
    const error = apiError(() =>
      decide(given([created, ...deleted]), { type: 'UpdateTemplate', patch: { name: 'x' }, now }),
    );
    expect([error.status, error.code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
    expect(apiError(() => decide(null, { type: 'DeleteTemplate', now })).status).toBe(404);
  });
});
