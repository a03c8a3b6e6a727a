import { createHash, randomFillSync } from 'node:crypto';

/** Random bytes drawn 4 KiB at a time (one system call per 256 ids). */
const pool = Buffer.alloc(4096);
let offset = pool.length;

/**
 * New identifier: a UUID version 7 (RFC 9562 §5.7), time-ordered, so ids sort by creation time
 * and serve as stable cursors. The one id scheme of every service.
 */
export function newId(now = Date.now()): string {
  if (offset + 16 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + 16));
  offset += 16;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Identifier derived from `name`: a UUID version 8 (RFC 9562 §5.8) of the first 16 bytes of
 * SHA-256(`name`). The same name always gives the same id, so an id derived from what it stands
 * for (a timer of one attempt, the email of one campaign recipient) makes a repeated append a
 * conflict instead of a duplicate.
 */
export function derivedId(name: string): string {
  const bytes = createHash('sha256').update(name).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
