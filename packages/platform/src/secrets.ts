/**
 * The project-wide secret: signed tokens (links in emails) and sealed values (DKIM private keys
 * at rest). One master secret; a key per purpose is derived with HKDF-SHA256, so a token or a
 * sealed value of one purpose is worthless for another.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Smallest accepted master secret, in bytes. */
export const MIN_SECRET_BYTES = 32;

/** Name of the generated secret file inside the data directory. */
export const SECRET_FILE = 'secret.key';

const MAC_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED_VERSION = 'v1';

const b64 = (buffer: Buffer): string => buffer.toString('base64url');

/** Strict base64url decoding: null for any character outside the alphabet. */
function unb64(text: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  return Buffer.from(text, 'base64url');
}

/**
 * Signs and seals with keys derived from one master secret.
 *
 * - `sign`/`verify`: a URL-safe token `<base64url payload>.<base64url HMAC-SHA256>`; the MAC
 *   covers the purpose and the payload with a key derived for the purpose ("sign:" + purpose);
 * - `tag`/`verifyTag`: the same MAC, truncated and in hex, for short signed identifiers;
 * - `derive`: a raw key for a purpose ("key:" + purpose), for libraries that sign themselves;
 * - `seal`/`open`: AES-256-GCM with a random 12-byte IV and a key derived for the purpose
 *   ("seal:" + purpose); output `v1.<iv>.<ciphertext>.<tag>` (each base64url).
 */
export class Secrets {
  private readonly master: Buffer;
  private readonly keys = new Map<string, Buffer>();
  /**
   * The derived keys as KeyObjects: an HMAC or cipher given a Buffer imports it again at every
   * call, which costs more than hashing a short payload.
   */
  private readonly keyObjects = new Map<string, KeyObject>();

  /**
   * @param master the master secret, at least 32 bytes (a string counts its UTF-8 bytes).
   * @throws Error when the secret is shorter than 32 bytes.
   */
  constructor(master: Buffer | string) {
    const bytes = typeof master === 'string' ? Buffer.from(master, 'utf8') : Buffer.from(master);
    if (bytes.length < MIN_SECRET_BYTES) {
      throw new Error(`the secret must be at least ${MIN_SECRET_BYTES} bytes`);
    }
    this.master = bytes;
  }

  /**
   * A 32-byte key for a library that signs or encrypts on its own (a JWT's HMAC key, say),
   * derived for `purpose` ("key:" + purpose): worthless for every other purpose.
   */
  derive(purpose: string): Uint8Array {
    return new Uint8Array(this.key(`key:${purpose}`));
  }

  /** A 32-byte key derived with HKDF-SHA256 for `info` (cached). */
  private key(info: string): Buffer {
    let key = this.keys.get(info);
    if (key === undefined) {
      key = Buffer.from(hkdfSync('sha256', this.master, 'stamp', info, 32));
      this.keys.set(info, key);
    }
    return key;
  }

  /** {@link key} of `info` as a KeyObject (cached). */
  private keyObject(info: string): KeyObject {
    let key = this.keyObjects.get(info);
    if (key === undefined) {
      key = createSecretKey(this.key(info));
      this.keyObjects.set(info, key);
    }
    return key;
  }

  private mac(purpose: string, payload: Buffer): Buffer {
    return createHmac('sha256', this.keyObject(`sign:${purpose}`))
      .update(purpose, 'utf8')
      .update('\0')
      .update(payload)
      .digest();
  }

  /** A URL-safe token carrying `payload` (readable by anyone, forgeable by no one). */
  sign(purpose: string, payload: string): string {
    const bytes = Buffer.from(payload, 'utf8');
    return `${b64(bytes)}.${b64(this.mac(purpose, bytes))}`;
  }

  /**
   * The payload of a token made by {@link sign} for the same purpose; null for anything
   * malformed, forged or of another purpose. Never throws; compares in constant time.
   */
  verify(purpose: string, token: string): string | null {
    if (typeof token !== 'string' || token.length > 4096) return null;
    const parts = token.split('.');
    if (parts.length !== 2) return null;
    const payload = unb64(parts[0] ?? '');
    const given = unb64(parts[1] ?? '');
    if (payload === null || given === null || given.length !== MAC_BYTES) return null;
    // Non-canonical encodings (trailing bits set) would decode to the same bytes: refuse them so
    // that every payload has exactly one token.
    if (b64(payload) !== parts[0] || b64(given) !== parts[1]) return null;
    if (!timingSafeEqual(given, this.mac(purpose, payload))) return null;
    return payload.toString('utf8');
  }

  /**
   * A short MAC of `payload` for `purpose`: the first `bytes` bytes (8 to 32) of its HMAC-SHA256,
   * as lower-case hex, for signed identifiers that must stay short (a VERP address's local part
   * has at most 64 octets, RFC 5321 §4.5.3.1.1).
   * @throws RangeError for `bytes` outside 8..32.
   */
  tag(purpose: string, payload: string, bytes = 10): string {
    if (!Number.isInteger(bytes) || bytes < 8 || bytes > MAC_BYTES) {
      throw new RangeError('a tag has 8 to 32 bytes');
    }
    return this.mac(purpose, Buffer.from(payload, 'utf8')).subarray(0, bytes).toString('hex');
  }

  /** Whether `tag` is {@link tag} of `payload` for `purpose` (hex, either case; constant time). */
  verifyTag(purpose: string, payload: string, tag: string): boolean {
    if (typeof tag !== 'string' || !/^[0-9a-fA-F]{16,64}$/.test(tag) || tag.length % 2 !== 0) {
      return false;
    }
    const given = Buffer.from(tag, 'hex');
    const expected = this.mac(purpose, Buffer.from(payload, 'utf8')).subarray(0, given.length);
    return timingSafeEqual(given, expected);
  }

  /** Encrypts `plaintext` for `purpose`: `v1.<iv>.<ciphertext>.<tag>` (base64url parts). */
  seal(purpose: string, plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keyObject(`seal:${purpose}`), iv);
    cipher.setAAD(Buffer.from(purpose, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [SEALED_VERSION, b64(iv), b64(ciphertext), b64(cipher.getAuthTag())].join('.');
  }

  /**
   * Decrypts a value made by {@link seal} for the same purpose.
   * @throws Error when the value is malformed, tampered with, of another purpose or sealed with
   *   another secret.
   */
  open(purpose: string, sealed: string): string {
    const parts = sealed.split('.');
    const [version, ivText, ciphertextText, tagText] = parts;
    if (parts.length !== 4 || version !== SEALED_VERSION) {
      throw new Error('not a sealed value');
    }
    const iv = unb64(ivText ?? '');
    const ciphertext = unb64(ciphertextText ?? '');
    const tag = unb64(tagText ?? '');
    if (iv?.length !== IV_BYTES || ciphertext === null || tag?.length !== TAG_BYTES) {
      throw new Error('not a sealed value');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.keyObject(`seal:${purpose}`), iv);
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('the sealed value was tampered with or sealed with another secret');
    }
  }
}

/**
 * Reads the master secret from `<dataDir>/secret.key`, or creates that file (and the directory)
 * with 32 random bytes and mode 0600. For `dataDir` `:memory:` a fresh random secret is returned
 * and nothing is written.
 * @throws Error when the file exists but holds fewer than 32 bytes, or cannot be read or written.
 */
export function loadOrCreateSecret(dataDir: string): Buffer {
  if (dataDir === ':memory:') return randomBytes(MIN_SECRET_BYTES);
  const path = join(dataDir, SECRET_FILE);
  try {
    const existing = readFileSync(path);
    if (existing.length < MIN_SECRET_BYTES) {
      throw new Error(`${path} holds fewer than ${MIN_SECRET_BYTES} bytes`);
    }
    return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(MIN_SECRET_BYTES);
  try {
    // `wx`: never overwrite a secret another process created meanwhile.
    writeFileSync(path, secret, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(path);
    throw error;
  }
  chmodSync(path, 0o600);
  return secret;
}
