/**
 * Reading the reports a mailbox provider sends back to a return path, parsed with postal-mime:
 * delivery status notifications (RFC 3464: a `message/delivery-status` part with one block of
 * per-message fields, then one block per recipient) and abuse reports (RFC 5965, ARF: a
 * `message/feedback-report` part).
 */
import PostalMime from 'postal-mime';

/** One recipient of a DSN (RFC 3464 §2.3). */
export interface DsnRecipient {
  /** `Final-Recipient` without its address type. */
  finalRecipient?: string;
  /** `Action`: failed, delayed, delivered, relayed or expanded (lower-cased). */
  action: string;
  /** `Status`: the enhanced status code (RFC 3463), for example `5.1.1`. */
  status: string;
  /** `Diagnostic-Code` without its type, for example `550 5.1.1 User unknown`. */
  diagnostic?: string;
}

/** What a report says. */
export type FeedbackReport =
  | { kind: 'delivery-status'; recipients: DsnRecipient[] }
  | { kind: 'complaint'; feedbackType: string; userAgent?: string }
  | { kind: 'other' };

/** Fields of one header-like block (names lower-cased; folded lines unfolded). */
async function fieldsOf(block: string): Promise<Map<string, string>> {
  const parsed = await PostalMime.parse(`${block.trim()}\r\n\r\n`);
  const fields = new Map<string, string>();
  for (const header of parsed.headers) {
    if (!fields.has(header.key)) fields.set(header.key, header.value.trim());
  }
  return fields;
}

/** `rfc822; someone@example.org` → `someone@example.org` (RFC 3464 typed values). */
const untyped = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : value.replace(/^[^;]*;\s*/, '').trim();

const text = (content: ArrayBuffer | Uint8Array | string): string =>
  typeof content === 'string' ? content : Buffer.from(content as Uint8Array).toString('utf8');

/**
 * What the report `raw` (a whole RFC 5322 message) says: the recipients of a DSN, the type of an
 * ARF report, or `other` for every other message. Never throws on malformed input.
 */
export async function readReport(raw: Buffer | string): Promise<FeedbackReport> {
  let message: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    message = await PostalMime.parse(raw);
  } catch {
    return { kind: 'other' };
  }
  const part = (type: string) =>
    message.attachments.find((attachment) => attachment.mimeType.toLowerCase() === type);

  const status = part('message/delivery-status');
  if (status !== undefined) {
    const blocks = text(status.content)
      .split(/\r?\n[ \t]*\r?\n/)
      .filter((block) => block.trim() !== '');
    const recipients: DsnRecipient[] = [];
    // The first block holds the per-message fields; each later one is a recipient.
    for (const block of blocks.slice(1)) {
      const fields = await fieldsOf(block);
      const action = fields.get('action')?.toLowerCase();
      const code = fields.get('status');
      if (action === undefined || code === undefined) continue;
      const finalRecipient = untyped(fields.get('final-recipient'));
      const diagnostic = untyped(fields.get('diagnostic-code'));
      recipients.push({
        action,
        status: code,
        ...(finalRecipient === undefined ? {} : { finalRecipient }),
        ...(diagnostic === undefined ? {} : { diagnostic }),
      });
    }
    return { kind: 'delivery-status', recipients };
  }

  const feedback = part('message/feedback-report');
  if (feedback !== undefined) {
    const fields = await fieldsOf(text(feedback.content));
    const userAgent = fields.get('user-agent');
    return {
      kind: 'complaint',
      feedbackType: fields.get('feedback-type')?.toLowerCase() ?? 'abuse',
      ...(userAgent === undefined ? {} : { userAgent }),
    };
  }
  return { kind: 'other' };
}
