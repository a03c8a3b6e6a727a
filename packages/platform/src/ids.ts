import { randomFillSync } from 'node:crypto';

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
