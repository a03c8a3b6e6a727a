import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createLogger } from '@stamp/platform';

import { startStamp } from './app.ts';
import { readConfig } from './config.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;

/** Every byte of the data directory's database files (database, WAL, shared memory). */
function rawStore(dataDir: string): string {
  return readdirSync(dataDir)
    .filter((name) => name.startsWith('stamp.db'))
    .map((name) => readFileSync(join(dataDir, name)).toString('latin1'))
    .join('\n');
}

describe('deleting a contact erases its personal data', () => {
  it('leaves nothing readable in the views or the raw event log, and frees the address', async () => {
    const stamp = await startTestStamp();
    const email = 'erase.me.please@example.org';
    const secretValue = 'Lovelace-Unique-Surname-7781';
    const created = await call(stamp.url, sk, 'POST', '/contacts', {
      email,
      data: { surname: secretValue },
    });
    expect(created.status).toBe(201);
    const contactId = (created.body as { id: string }).id;
    const tracked = await call(stamp.url, sk, 'POST', '/v1/track', {
      event: 'viewed-pricing',
      email,
      data: { note: secretValue },
    });
    expect(tracked.status).toBe(200);
    const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
      to: email,
      from: 'hello@sandbox.stamp.localhost',
      subject: `For ${secretValue}`,
      body: `<p>Hello ${secretValue}</p>`,
    });
    expect(sent.status).toBe(200);
    const emailId = (sent.body as { data: { emails: { email: string }[] } }).data.emails[0]!.email;
    // The sandbox delivery reached the outbox before the deletion (within 10 s).
    for (let attempt = 0; attempt < 500; attempt += 1) {
      const outbox = await call(stamp.url, sk, 'GET', `/outbox/${emailId}`);
      if (outbox.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    const deleted = await call(stamp.url, sk, 'DELETE', `/contacts/${contactId}`);
    expect(deleted.status).toBe(204);
    expect((await call(stamp.url, sk, 'GET', `/contacts/${contactId}`)).status).toBe(404);
    expect((await call(stamp.url, sk, 'GET', `/emails/${emailId}`)).status).toBe(404);
    expect((await call(stamp.url, sk, 'GET', `/outbox/${emailId}`)).status).toBe(404);

    // The log still holds the events, with their data unreadable.
    const events = await stamp.platform.store.readAll({ after: 0, limit: 10_000 });
    const about = events.filter(
      (event) => event.metadata.subjectId === contactId || event.streamId.endsWith(contactId),
    );
    expect(about.map((event) => event.type)).toEqual(
      expect.arrayContaining(['ContactCreated', 'EventTracked', 'EmailQueued', 'ContactDeleted']),
    );
    for (const event of about.filter((event) => event.type !== 'ContactDeleted')) {
      expect(event).toMatchObject({ erased: true, data: {} });
    }
    expect(JSON.stringify(events)).not.toContain(email);

    // The address can sign up again, as a new contact.
    const again = await call(stamp.url, sk, 'POST', '/contacts', { email });
    expect(again.status).toBe(201);
    expect((again.body as { id: string }).id).not.toBe(contactId);
    const againId = (again.body as { id: string }).id;
    expect((await call(stamp.url, sk, 'DELETE', `/contacts/${againId}`)).status).toBe(204);

    await stamp.close();
    const raw = rawStore(stamp.dataDir);
    expect(raw).toContain('ContactDeleted');
    expect(raw).not.toContain(email);
    expect(raw).not.toContain(secretValue);

    // After a restart nothing comes back from the log.
    const config = readConfig({
      STAMP_PORT: '0',
      STAMP_DATA_DIR: stamp.dataDir,
      STAMP_LOG_LEVEL: 'silent',
      STAMP_INBOUND_SMTP_PORT: '0',
    });
    const restarted = await startStamp(config, createLogger({ level: 'silent' }));
    try {
      const list = await call(restarted.url, sk, 'GET', `/contacts?search=erase.me`);
      expect(list.body).toMatchObject({ data: [], total: 0 });
    } finally {
      await restarted.close();
    }
  });
});
