/**
 * Per-subject data keys of the embedded event store (crypto-shredding, architecture brief
 * "Privacy"): event data about a subject (a contact) is sealed with AES-256-GCM under a random
 * 32-byte key of that subject; erasing the subject destroys the key, leaving a tombstone so the
 * key is never created again. Table `subject_keys (subject_id, key)`, `key` NULL = erased.
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomFillSync } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';

import { BoundedCache } from '../bounded-cache.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Subject keys kept in memory (32 bytes and the subject's id: about 200 bytes each). */
const CACHE_SIZE = 10_000;

/**
 * A subject's key (its 32 bytes), or `erased` once the subject was erased. Keys are kept as
 * bytes, not as KeyObjects: each KeyObject holds a native handle that V8 must visit when the
 * object dies, and the keys of a cache that turns over (an import, a rebuild of the views) die
 * in the old generation. With 100,000 cached KeyObjects passing through a CSV import, each full
 * collection paused the process 28-63 ms, 14-38 ms of it in those handles; with bytes, 12-21 ms.
 */
export type SubjectKey = Uint8Array | 'erased';

/** Random bytes drawn from the system's CSPRNG, 64 KiB at a time (see {@link randomBytesOf}). */
const pool = Buffer.alloc(65_536);
let drawn = pool.length;

/**
 * `count` random bytes (a copy), from a pool filled by `randomFillSync` 64 KiB at a time: a call
 * to the CSPRNG per key or IV costs more than the sealing itself. The bytes handed out are
 * zeroed in the pool.
 */
function randomBytesOf(count: number): Buffer {
  if (drawn + count > pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  const bytes = Buffer.from(pool.subarray(drawn, drawn + count));
  pool.fill(0, drawn, drawn + count);
  drawn += count;
  return bytes;
}

/**
 * Seals `plaintext` (UTF-8) with AES-256-GCM under the 32-byte `key`, as base64 of
 * `iv ‖ tag ‖ ciphertext`. The cipher is given a KeyObject made for this call, which dies young:
 * Node seals about twice as fast with a KeyObject as with the key's bytes (15 against 28 µs).
 */
export function sealWith(key: Uint8Array, plaintext: string): string {
  const iv = randomBytesOf(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', createSecretKey(key), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/**
 * Opens a value of {@link sealWith}.
 * @throws Error when the value was not sealed with `key` or was altered (GCM tag mismatch).
 */
export function openWith(key: Uint8Array, sealed: string): string {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    createSecretKey(key),
    bytes.subarray(0, IV_BYTES),
  );
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([
    decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
    decipher.final(),
  ]).toString('utf8');
}

/**
 * The subject keys on the store's SQLite database. Keys created inside an append's transaction
 * enter the cache only through {@link remember}, after the commit, so a rolled-back append
 * never leaves a cached key that is not on disk.
 */
export class SubjectKeys {
  private readonly cache = new BoundedCache<string, SubjectKey>(CACHE_SIZE);
  private readonly statements: { get: StatementSync; insert: StatementSync; erase: StatementSync };
  private readonly db: DatabaseSync;
  /** Prepared `IN (…)` lookups of {@link prefetch}, by number of ids. */
  private readonly lookups = new Map<number, StatementSync>();

  constructor(db: DatabaseSync) {
    this.db = db;
    db.exec(`CREATE TABLE IF NOT EXISTS subject_keys (
      subject_id TEXT PRIMARY KEY, key BLOB) WITHOUT ROWID`);
    this.statements = {
      get: db.prepare('SELECT key FROM subject_keys WHERE subject_id = ?'),
      insert: db.prepare('INSERT INTO subject_keys (subject_id, key) VALUES (?, ?)'),
      erase: db.prepare(`INSERT INTO subject_keys (subject_id, key) VALUES (?, NULL)
        ON CONFLICT (subject_id) DO UPDATE SET key = NULL`),
    };
  }

  /** The key of `subjectId`; null when it has none yet. */
  find(subjectId: string): SubjectKey | null {
    const cached = this.cache.get(subjectId);
    if (cached !== undefined) return cached;
    const row = this.statements.get.get(subjectId) as { key: Uint8Array | null } | undefined;
    if (row === undefined) return null;
    const key: SubjectKey = row.key ?? 'erased';
    this.remember(subjectId, key);
    return key;
  }

  /**
   * Loads the keys of `subjectIds` that are not cached, in one query per 500: a batch read of
   * the log opens its sealed events without a lookup each.
   */
  prefetch(subjectIds: Iterable<string>): void {
    const missing = [...new Set(subjectIds)].filter((id) => !this.cache.has(id));
    for (let start = 0; start < missing.length; start += 500) {
      const chunk = missing.slice(start, start + 500);
      const marks = chunk.map(() => '?').join(', ');
      let statement = this.lookups.get(chunk.length);
      if (statement === undefined) {
        statement = this.db.prepare(
          `SELECT subject_id, key FROM subject_keys WHERE subject_id IN (${marks})`,
        );
        this.lookups.set(chunk.length, statement);
      }
      const rows = statement.all(...chunk) as { subject_id: string; key: Uint8Array | null }[];
      for (const row of rows) {
        this.remember(row.subject_id, row.key ?? 'erased');
      }
    }
  }

  /** The key of `subjectId`, created when missing; call inside the append's transaction. */
  obtain(subjectId: string): SubjectKey {
    const cached = this.cache.get(subjectId);
    if (cached !== undefined) return cached;
    const row = this.statements.get.get(subjectId) as { key: Uint8Array | null } | undefined;
    if (row !== undefined) return row.key ?? 'erased';
    const key = randomBytesOf(32);
    this.statements.insert.run(subjectId, key);
    return key;
  }

  /** Caches a key known to be committed. */
  remember(subjectId: string, key: SubjectKey): void {
    this.cache.set(subjectId, key);
  }

  /**
   * Drops every cached key: a reader on another connection (the read-ahead thread) then reads
   * them from disk again, and sees the erasures committed since.
   */
  forget(): void {
    this.cache.clear();
  }

  /** Destroys the key of `subjectId` (a tombstone stays). Idempotent. */
  erase(subjectId: string): void {
    this.statements.erase.run(subjectId);
    this.cache.set(subjectId, 'erased');
  }
}
