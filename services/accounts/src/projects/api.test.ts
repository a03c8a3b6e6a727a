import { randomBytes } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';

import type { AwaitViews } from '@stamp/contracts';
import {
  createLogger,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  Secrets,
} from '@stamp/platform';
import { serveRouter } from '@stamp/testkit/http.ts';

import { createAccountsService } from '../index.ts';
import {
  API_KEYS_VIEW,
  PROJECTS_VIEW,
  projectsProjection,
  type ProjectView,
} from './projection.ts';

type Service = ReturnType<typeof createAccountsService>;

interface Harness {
  platform: EmbeddedPlatform;
  service: Service;
}

const logger = createLogger({ level: 'silent' });
const open: Harness[] = [];

async function start(platform?: EmbeddedPlatform): Promise<Harness> {
  const p = platform ?? openEmbeddedPlatform({ dataDir: ':memory:', logger });
  const holder: { service?: Service } = {};
  const awaitViews: AwaitViews = async (position) => {
    await Promise.all(
      (holder.service?.projections?.() ?? []).map((c) => c.waitFor(position, 2000)),
    );
  };
  const service = createAccountsService({
    store: p.store,
    secrets: new Secrets(randomBytes(32)),
    publicUrl: 'http://localhost',
    signupOpen: false,
    bus: p.bus,
    views: p.views,
    logger,
    awaitViews,
  });
  holder.service = service;
  await service.start();
  const harness = { platform: p, service };
  open.push(harness);
  return harness;
}

afterEach(async () => {
  for (const { platform, service } of open.splice(0).reverse()) {
    await service.stop();
    if (!open.some((h) => h.platform === platform)) await platform.close().catch(() => undefined);
  }
});

function rawEvents(db: DatabaseSync): string {
  const rows = db.prepare('SELECT data, metadata FROM events').all() as {
    data: string;
    metadata: string;
  }[];
  return rows.map((row) => `${row.data}\n${row.metadata}`).join('\n');
}

describe('accounts service', () => {
  it('bootstraps, resolves both keys, and regenerates keys via the route (old keys fail at once)', async () => {
    const { platform, service } = await start();
    const boot = await service.api.bootstrap();
    expect(boot.created).toBe(true);
    expect(boot.publicKey).toMatch(/^pk_[A-Za-z0-9]{32}$/);
    expect(boot.secretKey).toMatch(/^sk_[A-Za-z0-9]{32}$/);
    const { projectId } = boot;
    expect(await service.api.defaultProjectId()).toBe(projectId);
    expect(await service.api.resolveKey(boot.publicKey!)).toEqual({ projectId, kind: 'public' });
    expect(await service.api.resolveKey(boot.secretKey!)).toEqual({ projectId, kind: 'secret' });
    expect(await service.api.resolveKey('sk_unknownunknownunknown')).toBeNull();
    expect(await service.api.resolveKey('garbage')).toBeNull();

    const view = await platform.views
      .collection<ProjectView>(PROJECTS_VIEW)
      .findOne({ _id: projectId });
    expect(view).toMatchObject({
      name: 'Default project',
      publicKeyHint: `pk_…${boot.publicKey!.slice(-4)}`,
      secretKeyHint: `sk_…${boot.secretKey!.slice(-4)}`,
    });

    const http = await serveRouter(service.router!, { projectId, keyKind: 'secret' });
    try {
      const res = await http.request('POST', `/users/@me/projects/${projectId}/regenerate-keys`);
      expect(res.status).toBe(200);
      const body = res.body as { id: string; name: string; publicKey: string; secretKey: string };
      expect(body).toMatchObject({ id: projectId, name: 'Default project' });
      expect(body.publicKey).toMatch(/^pk_[A-Za-z0-9]{32}$/);
      expect(body.secretKey).toMatch(/^sk_[A-Za-z0-9]{32}$/);
      // no wait: the route already awaited the views
      expect(await service.api.resolveKey(boot.publicKey!)).toBeNull();
      expect(await service.api.resolveKey(boot.secretKey!)).toBeNull();
      expect(await service.api.resolveKey(body.publicKey)).toEqual({ projectId, kind: 'public' });
      expect(await service.api.resolveKey(body.secretKey)).toEqual({ projectId, kind: 'secret' });
      expect(await platform.views.collection(API_KEYS_VIEW).countDocuments({})).toBe(2);

      // keys are never stored in plaintext, neither in events nor in views
      const raw = rawEvents(platform.db);
      for (const key of [boot.publicKey!, boot.secretKey!, body.publicKey, body.secretKey]) {
        expect(raw).not.toContain(key);
        expect(raw).not.toContain(key.slice(3));
      }
      const viewDump = JSON.stringify([
        await platform.views.collection(API_KEYS_VIEW).find({}),
        await platform.views.collection(PROJECTS_VIEW).find({}),
      ]);
      expect(viewDump).not.toContain(body.secretKey.slice(3));
    } finally {
      await http.close();
    }
  });

  it('refuses another project (403), an unknown project of the caller (404) and a public key (401)', async () => {
    const { service } = await start();
    const { projectId } = await service.api.bootstrap();
    const other = await serveRouter(service.router!, { projectId: 'another', keyKind: 'secret' });
    const pub = await serveRouter(service.router!, { projectId, keyKind: 'public' });
    try {
      const denied = await other.request(
        'POST',
        `/users/@me/projects/${projectId}/regenerate-keys`,
      );
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({
        success: false,
        error: { code: 'PROJECT_ACCESS_DENIED', statusCode: 403 },
      });
      // another project's id and an unknown id answer alike: nothing tells whether it exists
      const unknown = await other.request('POST', '/users/@me/projects/nope/regenerate-keys');
      expect(unknown.status).toBe(403);
      const ghost = await serveRouter(service.router!, { projectId: 'nope', keyKind: 'secret' });
      const missing = await ghost.request('POST', '/users/@me/projects/nope/regenerate-keys');
      await ghost.close();
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ error: { code: 'RESOURCE_NOT_FOUND' } });
      const publicKey = await pub.request(
        'POST',
        `/users/@me/projects/${projectId}/regenerate-keys`,
      );
      expect(publicKey.status).toBe(401);
    } finally {
      await other.close();
      await pub.close();
    }
  });

  it('bootstrap is idempotent and takes fixed keys from input, also across restarts', async () => {
    const fixed = {
      publicKey: 'pk_' + 'P'.repeat(20),
      secretKey: 'sk_' + 'S'.repeat(20),
    };
    const first = await start();
    const boot = await first.service.api.bootstrap({ ...fixed, ownerEmail: 'owner@example.com' });
    expect(boot).toEqual({ created: true, projectId: boot.projectId, ...fixed });
    expect(await first.service.api.bootstrap(fixed)).toEqual({
      created: false,
      projectId: boot.projectId,
    });
    expect(await first.service.api.bootstrap()).toEqual({
      created: false,
      projectId: boot.projectId,
    });

    // restart on the same database: a new service instance sees the existing project
    await first.service.stop();
    const second = await start(first.platform);
    expect(await second.service.api.bootstrap(fixed)).toEqual({
      created: false,
      projectId: boot.projectId,
    });
    expect(await second.service.api.resolveKey(fixed.secretKey)).toEqual({
      projectId: boot.projectId,
      kind: 'secret',
    });

    // different configured keys on an existing project are not applied: they only seed a new
    // one, so keys regenerated since never come back (spec part 5, rule 6)
    const next = { publicKey: 'pk_' + 'Q'.repeat(24), secretKey: 'sk_' + 'T'.repeat(24) };
    expect(await second.service.api.bootstrap(next)).toEqual({
      created: false,
      projectId: boot.projectId,
    });
    expect(await second.service.api.resolveKey(next.secretKey)).toBeNull();
    expect(await second.service.api.resolveKey(fixed.secretKey)).toEqual({
      projectId: boot.projectId,
      kind: 'secret',
    });

    // concurrent bootstraps on a fresh platform create one project
    const third = await start();
    const results = await Promise.all([
      third.service.api.bootstrap(),
      third.service.api.bootstrap(),
      third.service.api.bootstrap(),
    ]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.projectId)).size).toBe(1);

    // malformed configured keys are refused
    await expect(
      third.service.api.bootstrap({ publicKey: 'pk_short', secretKey: 'sk_' + 'x'.repeat(20) }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it('the projection is idempotent: replaying every event, in any order, changes nothing', async () => {
    const { platform, service } = await start();
    const { projectId } = await service.api.bootstrap();
    const second = await service.api.issueKeys(projectId);
    const third = await service.api.issueKeys(projectId);
    const again = await service.api.issueKeys(projectId, {
      publicKey: third.publicKey,
      secretKey: third.secretKey,
    });
    expect(again.position).toBe(0); // the current pair again: nothing appended
    const [consumer] = service.projections!();
    expect(await consumer!.waitFor(third.position, 2000)).toBe(true);
    await service.stop();
    const keys = platform.views.collection(API_KEYS_VIEW);
    const projects = platform.views.collection(PROJECTS_VIEW);
    const before = JSON.stringify([await keys.find({}), await projects.find({})]);

    const handle = projectsProjection(platform.views);
    const events = await platform.store.readAll({ after: 0 });
    for (const event of events) await handle(event);
    for (const event of [...events].reverse()) await handle(event);
    expect(JSON.stringify([await keys.find({}), await projects.find({})])).toBe(before);
    expect(await service.api.resolveKey(second.secretKey)).toBeNull();
    expect(await service.api.resolveKey(third.secretKey)).toEqual({ projectId, kind: 'secret' });

    // a rebuilt view (dropped, replayed from the log) equals the live one
    await platform.views.drop(API_KEYS_VIEW);
    await platform.views.drop(PROJECTS_VIEW);
    for (const event of events) await handle(event);
    expect(JSON.stringify([await keys.find({}), await projects.find({})])).toBe(before);
  });

  it('issueKeys refuses an unknown project with 404', async () => {
    const { service } = await start();
    await expect(service.api.issueKeys('missing')).rejects.toMatchObject({
      status: 404,
      code: 'RESOURCE_NOT_FOUND',
    });
  });
});
