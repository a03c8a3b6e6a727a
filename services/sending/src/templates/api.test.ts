import {
  CAMPAIGNS_VIEW,
  type ContactsApi,
  type DomainsApi,
  type SenderDomain,
  WORKFLOWS_VIEW,
} from '@stamp/contracts';
import {
  createLogger,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  Secrets,
} from '@stamp/platform';
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';

import { createSendingService } from '../index.ts';
import { copyName } from './commands.ts';

/**
 * DomainsApi over a table of verified domains per project: `verified.get(project)` holds the
 * verified domains; `pending.test` exists unverified in every project.
 */
class TableDomains implements DomainsApi {
  readonly verified = new Map<string, Set<string>>([
    ['p1', new Set(['example.test'])],
    ['p2', new Set(['example.test', 'other.test'])],
  ]);

  receivingDomain(): Promise<{ projectId: string } | null> {
    return Promise.resolve(null);
  }

  senderDomain(projectId: string, address: string): Promise<SenderDomain | null> {
    const domain = (address.split('@')[1] ?? '').toLowerCase();
    const dkim = { domainName: domain, keySelector: 'stamp', privateKey: '' };
    if (this.verified.get(projectId)?.has(domain) === true) {
      return Promise.resolve({ domain, verified: true, returnPath: `bounce.${domain}`, dkim });
    }
    if (domain === 'pending.test') {
      return Promise.resolve({ domain, verified: false, returnPath: 'bounce.pending.test', dkim });
    }
    return Promise.resolve(null);
  }
}

/** Templates never upsert contacts; a send in these tests is a bug. */
const noContacts: ContactsApi = {
  upsertRecipient: () => Promise.reject(new Error('no contacts in template tests')),
};

interface Harness {
  platform: EmbeddedPlatform;
  domains: TableDomains;
  /** The API as a secret-key caller of the project. */
  as(projectId: string): Promise<ServedRouter>;
  stop(): Promise<void>;
}

async function setup(): Promise<Harness> {
  const logger = createLogger({ level: 'silent' });
  const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
  const domains = new TableDomains();
  const service = createSendingService({
    store: platform.store,
    bus: platform.bus,
    views: platform.views,
    leases: platform.leases,
    logger,
    awaitViews: async (position) => {
      await Promise.all(service.projections?.().map((c) => c.waitFor(position, 2000)) ?? []);
    },
    contacts: noContacts,
    domains,
    publicUrl: 'https://stamp.test',
    secrets: new Secrets(Buffer.alloc(32, 7)),
    timers: { enabled: false },
  });
  await service.start();
  const served = new Map<string, ServedRouter>();
  return {
    platform,
    domains,
    async as(projectId) {
      let api = served.get(projectId);
      if (api === undefined) {
        api = await serveRouter(service.router ?? (undefined as never), {
          projectId,
          keyKind: 'secret',
        });
        served.set(projectId, api);
      }
      return api;
    },
    async stop() {
      for (const api of served.values()) await api.close();
      await service.stop();
      await platform.close();
    },
  };
}

interface Template {
  id: string;
  name: string;
  subject: string;
  body: string;
  type: string;
  from: string | null;
  fromName: string | null;
  replyTo: string | null;
  createdAt: string;
  updatedAt: string;
}

interface TemplateList {
  data: Template[];
  templates: Template[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
  cursor: string;
  hasMore: boolean;
}

interface ErrorBody {
  error: {
    code: string;
    statusCode: number;
    message: string;
    errors?: { field: string; message: string; code: string }[];
  };
}

const errorOf = (body: unknown): ErrorBody['error'] => (body as ErrorBody).error;
const fieldsOf = (body: unknown): string[] =>
  (errorOf(body).errors ?? []).map((issue) => issue.field);

const draft = {
  name: 'Welcome',
  subject: 'Welcome {{ name ?? friend }}',
  body: '<p>Hello {{ name }}</p>',
  type: 'TRANSACTIONAL',
  from: 'hello@example.test',
  fromName: 'Team',
  replyTo: 'support@example.test',
};

async function create(api: ServedRouter, fields: Record<string, unknown>): Promise<Template> {
  const response = await api.request('POST', '/templates', { ...draft, ...fields });
  expect(response.status).toBe(201);
  return response.body as Template;
}

describe('templates API over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup();
  });
  afterAll(async () => {
    await h.stop();
  });

  describe('POST /templates and PATCH /templates/:id', () => {
    it('creates a template with its sender and reads it back', async () => {
      const api = await h.as('p1');
      const created = await create(api, {});
      expect(created).toMatchObject({ ...draft, id: expect.any(String) as string });
      expect((await api.request('GET', `/templates/${created.id}`)).body).toEqual(created);
    });

    it('refuses a from that is not on a verified domain of the project with 403', async () => {
      const api = await h.as('p1');
      for (const from of ['a@pending.test', 'a@unknown.test', 'a@other.test']) {
        const refused = await api.request('POST', '/templates', { ...draft, from });
        expect([refused.status, errorOf(refused.body).code]).toEqual([403, 'DOMAIN_NOT_VERIFIED']);
      }
      // other.test is verified in p2 only
      const p2 = await h.as('p2');
      expect(
        (await p2.request('POST', '/templates', { ...draft, from: 'a@other.test' })).status,
      ).toBe(201);
    });

    it('accepts the sandbox domain and a template without from', async () => {
      const api = await h.as('p1');
      const sandbox = await create(api, { from: 'test@sandbox.stamp.localhost' });
      expect(sandbox.from).toBe('test@sandbox.stamp.localhost');
      const response = await api.request('POST', '/templates', {
        name: 'No sender',
        subject: 'Hi',
        body: '<p>Hi</p>',
      });
      expect(response.status).toBe(201);
      // Plunk's published default type.
      expect(response.body).toMatchObject({ from: null, type: 'MARKETING' });
    });

    it('refuses a changed from on an unverified domain with 403 and keeps the template', async () => {
      const api = await h.as('p1');
      const created = await create(api, {});
      for (const from of ['a@pending.test', 'a@other.test']) {
        const refused = await api.request('PATCH', `/templates/${created.id}`, { from });
        expect([refused.status, errorOf(refused.body).code]).toEqual([403, 'DOMAIN_NOT_VERIFIED']);
      }
      expect((await api.request('GET', `/templates/${created.id}`)).body).toMatchObject({
        from: 'hello@example.test',
      });
      const moved = await api.request('PATCH', `/templates/${created.id}`, {
        from: 'news@EXAMPLE.test',
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ from: 'news@EXAMPLE.test' });
    });

    it('answers a Liquid syntax error with 422 naming the field and the line', async () => {
      const api = await h.as('p1');
      const body = '<p>Hello</p>\n<p>\n{% if %}</p>';
      const bad = await api.request('POST', '/templates', { ...draft, body });
      expect([bad.status, errorOf(bad.body).code]).toEqual([422, 'VALIDATION_ERROR']);
      expect(errorOf(bad.body).errors).toEqual([
        {
          field: 'body',
          message: expect.stringMatching(/^Liquid syntax error on line 3: /) as string,
          code: 'invalid_template',
        },
      ]);

      const both = await api.request('POST', '/templates', {
        ...draft,
        subject: 'Hi {{ name | nosuchfilter }}',
        body: '{{ name ??\n there }}\n\n{% for x in list %}',
      });
      expect(both.status).toBe(422);
      expect(errorOf(both.body).errors?.map((issue) => [issue.field, issue.message])).toEqual([
        ['subject', 'Liquid syntax error on line 1: undefined filter: nosuchfilter'],
        ['body', expect.stringMatching(/^Liquid syntax error on line 4: /) as string],
      ]);

      const refusedTag = await api.request('POST', '/templates', {
        ...draft,
        body: "<p>one</p>\n{% include 'secret' %}",
      });
      expect(errorOf(refusedTag.body).errors?.[0]?.message).toBe(
        'Liquid syntax error on line 2: the {% include %} tag is not allowed',
      );
    });

    it('answers a Liquid syntax error on update with 422 and leaves the template as it was', async () => {
      const api = await h.as('p1');
      const created = await create(api, {});
      const bad = await api.request('PATCH', `/templates/${created.id}`, {
        subject: 'Fine',
        body: '<p>a</p>\n{% endif %}',
      });
      expect(bad.status).toBe(422);
      expect(errorOf(bad.body).errors).toEqual([
        {
          field: 'body',
          message: 'Liquid syntax error on line 2: tag "endif" not found',
          code: 'invalid_template',
        },
      ]);
      const badSubject = await api.request('PATCH', `/templates/${created.id}`, {
        subject: '{{ a',
      });
      expect(fieldsOf(badSubject.body)).toEqual(['subject']);
      expect(errorOf(badSubject.body).errors?.[0]?.message).toMatch(
        /^Liquid syntax error on line 1: /,
      );
      expect((await api.request('GET', `/templates/${created.id}`)).body).toEqual(created);
    });

    it('answers bad fields with 422 and an unknown id with 404', async () => {
      const api = await h.as('p1');
      const bad = await api.request('POST', '/templates', {
        ...draft,
        name: ' ',
        type: 'NEWSLETTER',
        subject: 'a\nb',
        from: 'not-an-email',
      });
      expect(bad.status).toBe(422);
      expect(fieldsOf(bad.body).sort()).toEqual(['from', 'name', 'subject', 'type']);
      const missing = await api.request(
        'PATCH',
        '/templates/0193a000-0000-7000-8000-000000000000',
        {
          name: 'x',
        },
      );
      expect([missing.status, errorOf(missing.body).code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
      const foreign = await create(await h.as('p2'), {});
      expect((await api.request('GET', `/templates/${foreign.id}`)).status).toBe(404);
      expect((await api.request('PATCH', `/templates/${foreign.id}`, { name: 'x' })).status).toBe(
        404,
      );
      expect((await api.request('DELETE', `/templates/${foreign.id}`)).status).toBe(404);
    });
  });

  describe('GET /templates', () => {
    let api: ServedRouter;
    /** Ids of the project's live templates, newest first. */
    let ids: string[];

    beforeAll(async () => {
      api = await h.as('lists');
      h.domains.verified.set('lists', new Set(['example.test']));
      const made: Template[] = [];
      for (const [name, subject, type] of [
        ['Alpha news', 'Weekly digest (1)', 'MARKETING'],
        ['Receipt', 'Your order', 'TRANSACTIONAL'],
        ['Beta NEWS', 'Monthly', 'MARKETING'],
        ['Reset password', 'Reset your NEWS password', 'TRANSACTIONAL'],
        ['abc', 'plain', 'TRANSACTIONAL'],
      ] as const) {
        made.push(await create(api, { name, subject, type }));
      }
      const deleted = await create(api, { name: 'Deleted news', type: 'MARKETING' });
      expect((await api.request('DELETE', `/templates/${deleted.id}`)).status).toBe(200);
      await create(await h.as('p2'), { name: 'Foreign news' });
      ids = made.map((template) => template.id).sort((a, b) => (a < b ? 1 : -1));
    });

    const list = async (query: string): Promise<TemplateList> => {
      const response = await api.request('GET', `/templates${query}`);
      expect(response.status).toBe(200);
      return response.body as TemplateList;
    };
    const idsOf = (page: TemplateList): string[] => page.templates.map((template) => template.id);

    it('lists the project live templates newest first with the page fields', async () => {
      const page = await list('');
      expect(idsOf(page)).toEqual(ids);
      expect(page).toMatchObject({
        total: 5,
        page: 1,
        pageSize: 20,
        totalPages: 1,
        hasMore: false,
      });
      expect(page.data).toEqual(page.templates);
      expect(page.templates[0]).toMatchObject({ from: 'hello@example.test', fromName: 'Team' });
    });

    it('follows cursors to the end', async () => {
      const first = await list('?limit=2');
      expect(idsOf(first)).toEqual(ids.slice(0, 2));
      expect(first).toMatchObject({ total: 5, page: 1, pageSize: 2, totalPages: 3, hasMore: true });
      const second = await list(`?limit=2&cursor=${first.cursor}`);
      expect(idsOf(second)).toEqual(ids.slice(2, 4));
      expect(second).toMatchObject({ total: 5, page: 2, hasMore: true });
      const third = await list(`?limit=2&cursor=${second.cursor}`);
      expect(idsOf(third)).toEqual(ids.slice(4));
      expect(third).toMatchObject({ page: 3, hasMore: false });
      const after = await list(`?limit=2&cursor=${third.cursor}`);
      expect(after).toMatchObject({ templates: [], hasMore: false, cursor: '', page: 3 });
      expect(idsOf(await list('?limit=2&cursor='))).toEqual(ids.slice(0, 2));
    });

    it('serves page and pageSize', async () => {
      const second = await list('?page=2&pageSize=2');
      expect(idsOf(second)).toEqual(ids.slice(2, 4));
      expect(second).toMatchObject({
        total: 5,
        page: 2,
        pageSize: 2,
        totalPages: 3,
        hasMore: true,
      });
      expect(idsOf(await list(`?limit=2&cursor=${second.cursor}`))).toEqual(ids.slice(4));
      const beyond = await list('?page=9&pageSize=2');
      expect(beyond).toMatchObject({ templates: [], page: 9, hasMore: false, cursor: '' });
      expect((await list('?page=2&limit=4')).pageSize).toBe(4);
    });

    it('filters by type', async () => {
      const marketing = await list('?type=MARKETING');
      expect(marketing.templates.map((template) => template.name).sort()).toEqual([
        'Alpha news',
        'Beta NEWS',
      ]);
      expect(marketing).toMatchObject({ total: 2, totalPages: 1 });
      expect((await list('?type=TRANSACTIONAL')).total).toBe(3);
    });

    it('searches name and subject case-insensitively, taking the text literally', async () => {
      const news = await list('?search=news');
      expect(news.templates.map((template) => template.name).sort()).toEqual([
        'Alpha news',
        'Beta NEWS',
        'Reset password',
      ]);
      const marketingNews = await list('?search=NeWs&type=MARKETING&limit=1');
      expect(marketingNews).toMatchObject({ total: 2, pageSize: 1, totalPages: 2, hasMore: true });
      expect((await list(`?search=${encodeURIComponent('(1)')}`)).templates).toMatchObject([
        { name: 'Alpha news' },
      ]);
      expect((await list('?search=a.c')).total).toBe(0);
      expect((await list(`?search=${encodeURIComponent('.*')}`)).total).toBe(0);
      expect((await list('?search=')).total).toBe(5);
    });

    it('answers a bad query with 422 naming the parameter', async () => {
      for (const [query, field] of [
        ['?type=marketing', 'type'],
        ['?type=', 'type'],
        ['?type=MARKETING&type=TRANSACTIONAL', 'type'],
        ['?limit=0', 'limit'],
        ['?limit=abc', 'limit'],
        ['?limit=1.5', 'limit'],
        ['?pageSize=0', 'pageSize'],
        ['?page=0', 'page'],
        ['?sort=subject', 'sort'],
        ['?dir=up', 'dir'],
        ['?cursor=not-a-cursor', 'cursor'],
        [`?search=${'x'.repeat(201)}`, 'search'],
      ] as const) {
        const response = await api.request('GET', `/templates${query}`);
        expect([query, response.status, errorOf(response.body).code]).toEqual([
          query,
          422,
          'VALIDATION_ERROR',
        ]);
        expect(fieldsOf(response.body)).toEqual([field]);
      }
    });
  });

  describe('POST /templates/:id/duplicate', () => {
    it('creates a new template stream with the fields copied and the name marked', async () => {
      const api = await h.as('p1');
      const source = await create(api, { name: 'Invoice', type: 'MARKETING' });
      const response = await api.request('POST', `/templates/${source.id}/duplicate`);
      expect(response.status).toBe(201);
      const copy = response.body as Template;
      expect(copy.id).not.toBe(source.id);
      expect(copy).toEqual({
        ...source,
        id: copy.id,
        name: 'Invoice (copy)',
        createdAt: copy.createdAt,
        updatedAt: copy.updatedAt,
      });
      expect((await api.request('GET', `/templates/${copy.id}`)).body).toEqual(copy);
      expect((await api.request('GET', `/templates/${source.id}`)).body).toEqual(source);
      const events = await h.platform.store.readStream(`template-${copy.id}`);
      expect(events.map((event) => [event.type, event.metadata.projectId])).toEqual([
        ['TemplateCreated', 'p1'],
      ]);

      const again = await api.request('POST', `/templates/${copy.id}/duplicate`);
      expect(again.body).toMatchObject({ name: 'Invoice (copy) (copy)' });
    });

    it('keeps the name of a copy within 255 characters', async () => {
      const api = await h.as('p1');
      const source = await create(api, { name: 'n'.repeat(255) });
      const copy = await api.request('POST', `/templates/${source.id}/duplicate`);
      expect(copy.status).toBe(201);
      expect((copy.body as Template).name).toBe(`${'n'.repeat(248)} (copy)`);
    });

    it('answers 404 for an unknown, deleted or foreign template', async () => {
      const api = await h.as('p1');
      const unknown = await api.request(
        'POST',
        '/templates/0193a000-0000-7000-8000-000000000000/duplicate',
      );
      expect([unknown.status, errorOf(unknown.body).code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
      expect((await api.request('POST', '/templates/not%20an%20id/duplicate')).status).toBe(404);
      const deleted = await create(api, {});
      await api.request('DELETE', `/templates/${deleted.id}`);
      const gone = await api.request('POST', `/templates/${deleted.id}/duplicate`);
      expect([gone.status, errorOf(gone.body).code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
      const foreign = await create(await h.as('p2'), {});
      const refused = await api.request('POST', `/templates/${foreign.id}/duplicate`);
      expect([refused.status, errorOf(refused.body).code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
    });

    it('refuses a copy whose from is no longer on a verified domain with 403', async () => {
      const api = await h.as('lapsed');
      h.domains.verified.set('lapsed', new Set(['example.test']));
      const source = await create(api, {});
      h.domains.verified.set('lapsed', new Set());
      const refused = await api.request('POST', `/templates/${source.id}/duplicate`);
      expect([refused.status, errorOf(refused.body).code]).toEqual([403, 'DOMAIN_NOT_VERIFIED']);
      expect((await api.request('GET', '/templates')).body).toMatchObject({ total: 1 });
    });
  });

  describe('GET /templates/:id/usage', () => {
    it('is empty for a template nothing references', async () => {
      const api = await h.as('p1');
      const template = await create(api, {});
      const usage = await api.request('GET', `/templates/${template.id}/usage`);
      expect(usage.status).toBe(200);
      expect(usage.body).toEqual({ campaigns: [], workflows: [] });
    });

    it('lists the project campaigns and workflow SEND_EMAIL steps that reference it', async () => {
      const api = await h.as('p1');
      const template = await create(api, {});
      const other = await create(api, { name: 'Other' });
      const campaigns = h.platform.views.collection(CAMPAIGNS_VIEW);
      for (const document of [
        { _id: 'c1', projectId: 'p1', name: 'Spring', status: 'DRAFT', templateId: template.id },
        { _id: 'c2', projectId: 'p1', name: 'Summer', status: 'SENT', templateId: other.id },
        { _id: 'c3', projectId: 'p1', name: 'Inline', status: 'DRAFT', templateId: null },
        { _id: 'c4', projectId: 'p2', name: 'Foreign', status: 'DRAFT', templateId: template.id },
        {
          _id: 'c5',
          projectId: 'p1',
          name: 'Autumn',
          status: 'SCHEDULED',
          templateId: template.id,
        },
      ]) {
        await campaigns.insertOne(document);
      }
      const send = (id: string, templateId: string) => ({
        id,
        type: 'SEND_EMAIL',
        config: { templateId },
      });
      const workflows = h.platform.views.collection(WORKFLOWS_VIEW);
      await workflows.insertOne({
        _id: 'w1',
        projectId: 'p1',
        name: 'Onboarding',
        eventName: 'signup',
        steps: [
          { id: 's0', type: 'TRIGGER', config: {} },
          send('s1', template.id),
          { id: 's2', type: 'DELAY', config: { amount: 1, unit: 'days' } },
          send('s3', other.id),
          send('s4', template.id),
        ],
      });
      await workflows.insertOne({
        _id: 'w2',
        projectId: 'p1',
        name: 'Other flow',
        steps: [send('s1', other.id)],
      });
      await workflows.insertOne({
        _id: 'w3',
        projectId: 'p2',
        name: 'Foreign flow',
        steps: [send('s1', template.id)],
      });
      await workflows.insertOne({
        _id: 'w4',
        projectId: 'p1',
        name: 'Webhook flow',
        steps: [
          { id: 's1', type: 'WEBHOOK', config: { url: 'https://x.test', templateId: template.id } },
        ],
      });

      const usage = await api.request('GET', `/templates/${template.id}/usage`);
      expect(usage.status).toBe(200);
      expect(usage.body).toEqual({
        campaigns: [
          { id: 'c5', name: 'Autumn', status: 'SCHEDULED' },
          { id: 'c1', name: 'Spring', status: 'DRAFT' },
        ],
        workflows: [
          {
            id: 'w1',
            name: 'Onboarding',
            steps: [
              { id: 's1', type: 'SEND_EMAIL' },
              { id: 's4', type: 'SEND_EMAIL' },
            ],
          },
        ],
      });
      expect((await api.request('GET', `/templates/${other.id}/usage`)).body).toEqual({
        campaigns: [{ id: 'c2', name: 'Summer', status: 'SENT' }],
        workflows: [
          { id: 'w2', name: 'Other flow', steps: [{ id: 's1', type: 'SEND_EMAIL' }] },
          { id: 'w1', name: 'Onboarding', steps: [{ id: 's3', type: 'SEND_EMAIL' }] },
        ],
      });
    });

    it('answers 404 for an unknown, deleted or foreign template', async () => {
      const api = await h.as('p1');
      const unknown = await api.request(
        'GET',
        '/templates/0193a000-0000-7000-8000-000000000000/usage',
      );
      expect([unknown.status, errorOf(unknown.body).code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
      const deleted = await create(api, {});
      await api.request('DELETE', `/templates/${deleted.id}`);
      expect((await api.request('GET', `/templates/${deleted.id}/usage`)).status).toBe(404);
      const foreign = await create(await h.as('p2'), {});
      const refused = await api.request('GET', `/templates/${foreign.id}/usage`);
      expect([refused.status, errorOf(refused.body).code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
    });
  });
});

describe('copyName', () => {
  it('appends " (copy)" and shortens long names to 255 characters', () => {
    expect(copyName('Welcome')).toBe('Welcome (copy)');
    expect(copyName('x'.repeat(248))).toBe(`${'x'.repeat(248)} (copy)`);
    expect(copyName('x'.repeat(250))).toHaveLength(255);
  });

  it('never splits a surrogate pair', () => {
    const name = `${'x'.repeat(247)}😀😀`;
    expect(copyName(name)).toBe(`${'x'.repeat(247)} (copy)`);
  });
});
