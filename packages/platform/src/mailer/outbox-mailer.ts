import type { ViewCollection, ViewStore } from '../views/view-store.ts';
import { type MessageComposer, sharedComposer } from './composer.ts';
import type { Commit, DeliveryReceipt, Mailer, OutgoingMessage } from './mailer.ts';

/** Name of the view collection that lists captured messages (without their content). */
export const OUTBOX_COLLECTION = 'outbox';
/** Name of the view collection that holds the raw captured messages, in parts. */
export const OUTBOX_PARTS_COLLECTION = 'outboxParts';
/**
 * Most characters of one part of a raw message (1 MiB of UTF-16 code units; the raw message is
 * MIME, mostly ASCII): a 40 MB message is about 40 parts, each far below MongoDB's 16 MiB
 * document limit.
 */
export const OUTBOX_PART_CHARACTERS = 1024 * 1024;

/** A captured message as the outbox lists it. */
export interface OutboxDocument {
  /** The email id. */
  _id: string;
  projectId: string;
  from: string;
  to: string;
  subject: string;
  /** ISO 8601 capture time. */
  capturedAt: string;
  /** Parts of the raw message in `outboxParts`. */
  parts: number;
  /** Length of the raw message, characters. */
  size: number;
  [field: string]: unknown;
}

/** One part of a raw captured message (`_id` = `<emailId>:<n>`). */
export interface OutboxPartDocument {
  _id: string;
  emailId: string;
  /** 0-based position of the part. */
  n: number;
  /** The characters of the part. */
  data: string;
  [field: string]: unknown;
}

/**
 * `raw` cut into parts of at most {@link OUTBOX_PART_CHARACTERS} characters, never between the
 * two halves of a surrogate pair; an empty message is one empty part.
 */
export function splitRawMessage(raw: string): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < raw.length) {
    let end = Math.min(start + OUTBOX_PART_CHARACTERS, raw.length);
    const last = raw.charCodeAt(end - 1);
    if (end < raw.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    parts.push(raw.slice(start, end));
    start = end;
  }
  return parts.length === 0 ? [''] : parts;
}

const partsOf = (views: ViewStore): ViewCollection<OutboxPartDocument> =>
  views.collection<OutboxPartDocument>(OUTBOX_PARTS_COLLECTION);

/**
 * The whole raw RFC 5322 message captured for `emailId` (its parts joined in order), or null
 * when the outbox holds none. Reads only that message's parts, each by its `_id`.
 */
export async function readOutboxMessage(views: ViewStore, emailId: string): Promise<string | null> {
  const listed = await views
    .collection<OutboxDocument>(OUTBOX_COLLECTION)
    .findOne({ _id: emailId });
  if (listed === null) return null;
  // Captured before messages were kept in parts: the list document holds it.
  if (typeof listed.raw === 'string') return listed.raw;
  const parts = partsOf(views);
  const data: string[] = [];
  for (let n = 0; n < listed.parts; n++) {
    const part = await parts.findOne({ _id: `${emailId}:${n}` });
    if (part === null) return null;
    data.push(part.data);
  }
  return data.join('');
}

/**
 * Removes the captured copy of `emailId`: its list document first (so it is never listed
 * without its content), then its parts. Idempotent.
 */
export async function deleteOutboxMessage(views: ViewStore, emailId: string): Promise<void> {
  await views.collection<OutboxDocument>(OUTBOX_COLLECTION).deleteOne({ _id: emailId });
  await partsOf(views).deleteMany({ emailId });
}

/**
 * The local capture outbox: builds the exact MIME message (same composer and DKIM signing as
 * SMTP) and stores it instead of sending it, keeping the latest `maxMessages`. Used when no relay
 * is set, and always for the sandbox sender. The raw message goes to the `outboxParts` view in
 * parts of at most 1 Mi characters, written before its small `outbox` list document, so listing
 * the outbox never reads message content; {@link readOutboxMessage} reads one message back.
 */
export class OutboxMailer implements Mailer {
  private readonly views: ViewStore;
  private readonly maxMessages: number;
  private captures = 0;
  private indexed: Promise<void> | undefined;
  private readonly composer: MessageComposer;

  /**
   * @param maxMessages captured messages kept (default 1,000); the oldest go first.
   * @param composer where messages are composed and signed (default: the process's composer
   *   threads).
   */
  constructor(views: ViewStore, maxMessages = 1000, composer: MessageComposer = sharedComposer()) {
    this.views = views;
    this.maxMessages = maxMessages;
    this.composer = composer;
  }

  /** Creates the index of the parts ({emailId}) once. */
  private ensureIndexes(): Promise<void> {
    this.indexed ??= partsOf(this.views).createIndex({ emailId: 1 });
    return this.indexed;
  }

  /** Removes the oldest captured messages beyond `maxMessages`, with their parts. */
  private async prune(): Promise<void> {
    const outbox = this.views.collection<OutboxDocument>(OUTBOX_COLLECTION);
    const excess = (await outbox.countDocuments({})) - this.maxMessages;
    if (excess <= 0) return;
    const oldest = await outbox.find({}, { sort: { capturedAt: 1, _id: 1 }, limit: excess });
    for (const message of oldest) await deleteOutboxMessage(this.views, message._id);
  }

  /**
   * Moves the raw messages of list documents written before messages were kept in parts into
   * parts, so the list holds no content any more. Idempotent; call before serving the outbox.
   * Reads no part when there is nothing to move.
   */
  async upgrade(): Promise<void> {
    const outbox = this.views.collection<OutboxDocument>(OUTBOX_COLLECTION);
    const legacy = await outbox.find({ raw: { $exists: true } });
    if (legacy.length === 0) return;
    await this.ensureIndexes();
    for (const listed of legacy) {
      const raw = typeof listed.raw === 'string' ? listed.raw : '';
      const parts = await this.writeParts(listed._id, raw);
      await outbox.updateOne(
        { _id: listed._id },
        { $set: { parts, size: raw.length }, $unset: { raw: '' } },
      );
    }
    await this.views.flush();
  }

  /** Writes the parts of `raw` for `emailId` (removing parts of an earlier, longer capture). */
  private async writeParts(emailId: string, raw: string): Promise<number> {
    const parts = partsOf(this.views);
    const pieces = splitRawMessage(raw);
    for (const [n, data] of pieces.entries()) {
      const _id = `${emailId}:${n}`;
      await parts.replaceOne({ _id }, { _id, emailId, n, data }, { upsert: true });
    }
    await parts.deleteMany({ emailId, n: { $gte: pieces.length } });
    return pieces.length;
  }

  async send(message: OutgoingMessage, commit?: Commit): Promise<DeliveryReceipt> {
    await this.ensureIndexes();
    const info = await this.composer.compose(message);
    const raw = info.raw.toString('utf8');
    // Content first: a listed message always has its parts.
    const parts = await this.writeParts(message.emailId, raw);
    await this.views.collection<OutboxDocument>(OUTBOX_COLLECTION).replaceOne(
      { _id: message.emailId },
      {
        _id: message.emailId,
        projectId: message.projectId,
        from: message.from.address,
        to: message.to.address,
        subject: message.subject,
        capturedAt: new Date().toISOString(),
        parts,
        size: raw.length,
      },
      { upsert: true },
    );
    this.captures += 1;
    if (this.captures % 50 === 0) await this.prune();
    // The capture must be durable before the delivery is recorded.
    await this.views.flush();
    const receipt = { messageId: info.messageId, response: '250 captured in the local outbox' };
    await commit?.(receipt);
    return receipt;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
