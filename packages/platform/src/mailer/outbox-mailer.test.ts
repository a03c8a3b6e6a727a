import { openDatabase } from '../sqlite/database.ts';
import { SqliteViewStore } from '../views/sqlite-view-store.ts';
import { mailerContract, sampleMessage } from './mailer.contract.ts';
import { OUTBOX_COLLECTION, OutboxMailer, type OutboxDocument } from './outbox-mailer.ts';

function openOutbox(): {
  views: SqliteViewStore;
  mailer: OutboxMailer;
  close: () => Promise<void>;
} {
  const db = openDatabase(':memory:');
  const views = new SqliteViewStore(db);
  const mailer = new OutboxMailer(views);
  return {
    views,
    mailer,
    close: async () => {
      await mailer.close();
      await views.close();
      db.close();
    },
  };
}

mailerContract('local capture outbox on SqliteViewStore', () => {
  const outbox = openOutbox();
  return Promise.resolve({
    mailer: outbox.mailer,
    delivered: async (emailId) =>
      (await outbox.views.collection<OutboxDocument>(OUTBOX_COLLECTION).findOne({ _id: emailId }))
        ?.raw,
    close: outbox.close,
  });
});

describe('OutboxMailer', () => {
  it('stores the captured message with its project, addresses, subject and time', async () => {
    const outbox = openOutbox();
    try {
      const message = sampleMessage();
      const before = Date.now();
      await outbox.mailer.send(message);
      const document = await outbox.views
        .collection<OutboxDocument>(OUTBOX_COLLECTION)
        .findOne({ _id: message.emailId });
      expect(document).toMatchObject({
        _id: message.emailId,
        projectId: 'project-1',
        from: 'billing@acme.example',
        to: 'ada@customer.example',
        subject: message.subject,
      });
      expect(document?.raw.toLowerCase()).toContain(`x-stamp-email-id: ${message.emailId}`);
      const capturedAt = Date.parse(document?.capturedAt ?? '');
      expect(capturedAt).toBeGreaterThanOrEqual(before - 1000);
      expect(document?.capturedAt).toBe(new Date(capturedAt).toISOString());
    } finally {
      await outbox.close();
    }
  });

  it('captures a resent message once (same email id, replaced)', async () => {
    const outbox = openOutbox();
    try {
      const message = sampleMessage();
      await outbox.mailer.send(message);
      await outbox.mailer.send({ ...message, subject: 'second try' });
      const collection = outbox.views.collection<OutboxDocument>(OUTBOX_COLLECTION);
      expect(await collection.countDocuments({ _id: message.emailId })).toBe(1);
      expect((await collection.findOne({ _id: message.emailId }))?.subject).toBe('second try');
    } finally {
      await outbox.close();
    }
  });
});

describe('OutboxMailer retention', () => {
  it('keeps the latest messages and removes the oldest', async () => {
    const views = new SqliteViewStore(openDatabase(':memory:'));
    const mailer = new OutboxMailer(views, 60);
    const ids: string[] = [];
    for (let index = 0; index < 100; index++) {
      const message = sampleMessage({ attachments: [] });
      ids.push(message.emailId);
      await mailer.send(message);
    }
    const kept = await views.collection(OUTBOX_COLLECTION).find({});
    expect(kept.length).toBeLessThanOrEqual(100);
    expect(kept.length).toBeGreaterThanOrEqual(60);
    expect(await views.collection(OUTBOX_COLLECTION).findOne({ _id: ids[0] })).toBeNull();
    expect(await views.collection(OUTBOX_COLLECTION).findOne({ _id: ids[99] })).not.toBeNull();
  });
});
