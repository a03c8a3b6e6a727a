import { openDatabase } from '../sqlite/database.ts';
import { SqliteViewStore } from '../views/sqlite-view-store.ts';
import { mailerContract, sampleMessage } from './mailer.contract.ts';
import {
  OUTBOX_COLLECTION,
  OUTBOX_PART_CHARACTERS,
  OUTBOX_PARTS_COLLECTION,
  OutboxMailer,
  type OutboxDocument,
  readOutboxMessage,
  splitRawMessage,
} from './outbox-mailer.ts';

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
    delivered: async (emailId) => (await readOutboxMessage(outbox.views, emailId)) ?? undefined,
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
      expect(document).not.toHaveProperty('raw');
      const raw = await readOutboxMessage(outbox.views, message.emailId);
      expect(raw?.toLowerCase()).toContain(`x-stamp-email-id: ${message.emailId}`);
      expect(document?.size).toBe(raw?.length);
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

describe('OutboxMailer message parts', () => {
  const bigAttachment = (bytes: number) => ({
    filename: 'big.bin',
    content: Buffer.alloc(bytes, 7).toString('base64'),
    contentType: 'application/octet-stream',
  });

  it('keeps a large message in parts of at most 1 Mi characters, outside the list document', async () => {
    const outbox = openOutbox();
    try {
      const message = sampleMessage({ attachments: [bigAttachment(3 * 1024 * 1024)] });
      await outbox.mailer.send(message);
      const listed = await outbox.views
        .collection<OutboxDocument>(OUTBOX_COLLECTION)
        .findOne({ _id: message.emailId });
      expect(listed).not.toHaveProperty('raw');
      expect(JSON.stringify(listed).length).toBeLessThan(1000);
      const parts = await outbox.views
        .collection(OUTBOX_PARTS_COLLECTION)
        .find({ emailId: message.emailId }, { sort: { n: 1 } });
      expect(parts.length).toBe(listed?.parts);
      expect(parts.length).toBeGreaterThanOrEqual(4);
      for (const [n, part] of parts.entries()) {
        expect(part).toMatchObject({ _id: `${message.emailId}:${n}`, n });
        expect((part.data as string).length).toBeLessThanOrEqual(OUTBOX_PART_CHARACTERS);
      }
      const raw = await readOutboxMessage(outbox.views, message.emailId);
      expect(raw?.length).toBe(listed?.size);
      expect(raw).toContain('filename=big.bin');

      // A later capture of the same email with a smaller message leaves no stale parts.
      await outbox.mailer.send({ ...message, attachments: [] });
      const after = await outbox.views
        .collection(OUTBOX_PARTS_COLLECTION)
        .countDocuments({ emailId: message.emailId });
      expect(after).toBe(1);
      expect(await readOutboxMessage(outbox.views, message.emailId)).not.toContain('big.bin');
    } finally {
      await outbox.close();
    }
  });

  it('never splits a surrogate pair', () => {
    const raw = `${'a'.repeat(OUTBOX_PART_CHARACTERS - 1)}\u{1f4e8}tail`;
    const parts = splitRawMessage(raw);
    expect(parts.join('')).toBe(raw);
    expect(parts[0]?.length).toBe(OUTBOX_PART_CHARACTERS - 1);
    expect(splitRawMessage('')).toEqual(['']);
  });

  it('moves the content of list documents written by an earlier version into parts', async () => {
    const outbox = openOutbox();
    try {
      const legacy = { _id: 'legacy-1', projectId: 'p', from: 'a@x.example', to: 'b@y.example' };
      await outbox.views.collection(OUTBOX_COLLECTION).insertOne({
        ...legacy,
        subject: 's',
        raw: 'Subject: s\r\n\r\nold body',
        capturedAt: new Date().toISOString(),
      });
      expect(await readOutboxMessage(outbox.views, 'legacy-1')).toBe('Subject: s\r\n\r\nold body');
      await outbox.mailer.upgrade();
      const listed = await outbox.views.collection(OUTBOX_COLLECTION).findOne({ _id: 'legacy-1' });
      expect(listed).not.toHaveProperty('raw');
      expect(listed).toMatchObject({ parts: 1, size: 22 });
      expect(await readOutboxMessage(outbox.views, 'legacy-1')).toBe('Subject: s\r\n\r\nold body');
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
    // Pruned messages take their parts with them.
    const parts = await views.collection(OUTBOX_PARTS_COLLECTION).distinct('emailId', {});
    expect(parts.sort()).toEqual(kept.map((message) => message._id).sort());
  });
});
