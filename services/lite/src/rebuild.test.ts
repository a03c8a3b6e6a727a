import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';

import { createLogger } from '@stamp/platform';

import { readConfig } from './config.ts';
import { rebuildViews } from './rebuild.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;

/** Every stored view document, by collection and id, read from the raw database. */
function snapshot(dataDir: string): Map<string, unknown> {
  const db = new DatabaseSync(join(dataDir, 'stamp.db'), { readOnly: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'view:%' AND name NOT LIKE '%:substring:%' ORDER BY name",
      )
      .all() as { name: string }[];
    const documents = new Map<string, unknown>();
    for (const { name } of tables) {
      const rows = db.prepare(`SELECT id, doc FROM "${name}" ORDER BY id`).all() as {
        id: string;
        doc: string;
      }[];
      for (const row of rows) documents.set(`${name}/${row.id}`, JSON.parse(row.doc));
    }
    return documents;
  } finally {
    db.close();
  }
}

describe('views:rebuild', () => {
  it('drops the projected views and rebuilds them equal to the live ones', async () => {
    const stamp = await startTestStamp();
    const { url, dataDir } = stamp;
    for (let index = 0; index < 20; index += 1) {
      await call(url, sk, 'POST', '/contacts', {
        email: `person${index}@example.com`,
        subscribed: index % 3 !== 0,
        data: { plan: index % 2 === 0 ? 'pro' : 'free', seats: index },
      });
    }
    const list = await call(url, sk, 'GET', '/contacts?limit=100');
    const contacts = (list.body as { data: { id: string }[] }).data;
    await call(url, sk, 'PATCH', `/contacts/${contacts[0]!.id}`, {
      email: 'renamed@example.com',
      subscribed: false,
      data: { plan: null, city: 'Lyon' },
    });
    await call(url, sk, 'DELETE', `/contacts/${contacts[1]!.id}`);
    for (let index = 0; index < 5; index += 1) {
      await call(url, sk, 'POST', '/v1/track', {
        event: index % 2 === 0 ? 'signed-up' : 'upgraded',
        email: `person${index + 2}@example.com`,
        data: { step: index },
      });
    }
    const template = await call(url, sk, 'POST', '/templates', {
      name: 'Welcome',
      subject: 'Hi {{ name ?? there }}',
      body: '<p>Welcome</p>',
      type: 'TRANSACTIONAL',
    });
    expect(template.status).toBe(201);
    const sent = await call(url, sk, 'POST', '/v1/send', {
      to: ['person5@example.com', 'new.one@example.com'],
      from: 'hello@sandbox.stamp.localhost',
      template: (template.body as { id: string }).id,
    });
    expect(sent.status).toBe(200);
    await call(url, sk, 'POST', '/domains', { domain: 'rebuild.test' });
    // Let the sandbox deliveries finish so the live views are final.
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const emails = (sent.body as { data: { emails: { email: string }[] } }).data.emails;
      const statuses = await Promise.all(
        emails.map(
          async ({ email }) =>
            ((await call(url, sk, 'GET', `/emails/${email}`)).body as { status?: string }).status,
        ),
      );
      if (statuses.every((status) => status === 'SENT')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await stamp.close();

    const live = snapshot(dataDir);
    expect(live.size).toBeGreaterThan(30);
    // Damage the stored views: the rebuild must not depend on anything they hold.
    const db = new DatabaseSync(join(dataDir, 'stamp.db'));
    db.exec(`UPDATE "view:contacts" SET doc = '{"_id":"damaged"}';
      DELETE FROM "view:emails";
      DELETE FROM "view:contactFields";
      INSERT INTO "view:templates" (id, doc) VALUES ('stray', '{"_id":"stray"}');`);
    db.close();
    expect(snapshot(dataDir)).not.toEqual(live);
    const config = readConfig({
      STAMP_PORT: '0',
      STAMP_DATA_DIR: dataDir,
      STAMP_LOG_LEVEL: 'silent',
      STAMP_INBOUND_SMTP_PORT: '0',
    });
    const report = await rebuildViews(config, createLogger({ level: 'silent' }));
    expect(report.collections).toEqual(expect.arrayContaining(['contacts', 'emails', 'templates']));
    expect(report.events).toBeGreaterThan(50);
    const rebuilt = snapshot(dataDir);
    expect(rebuilt).toEqual(live);
  });
});
