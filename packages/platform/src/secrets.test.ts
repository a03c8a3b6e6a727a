import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { loadOrCreateSecret, Secrets } from './secrets.ts';

const secrets = new Secrets(Buffer.alloc(32, 7));
const other = new Secrets(Buffer.alloc(32, 8));

/** `token` with the character at `index` replaced by a different base64url character. */
function changeAt(token: string, index: number): string {
  const current = token.charAt(index);
  const replacement = current === 'A' ? 'B' : 'A';
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

describe('Secrets', () => {
  it('refuses a master secret shorter than 32 bytes', () => {
    expect(() => new Secrets(Buffer.alloc(31))).toThrow(/at least 32 bytes/);
    expect(() => new Secrets('x'.repeat(31))).toThrow(/at least 32 bytes/);
    expect(() => new Secrets('x'.repeat(32))).not.toThrow();
  });

  it('signs and verifies URL-safe tokens', () => {
    const token = secrets.sign('subscription', 'p1:c1');
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(secrets.verify('subscription', token)).toBe('p1:c1');
    expect(secrets.sign('subscription', 'p1:c1')).toBe(token);
    const unicode = secrets.sign('x', 'héllo ✉');
    expect(secrets.verify('x', unicode)).toBe('héllo ✉');
  });

  it('refuses forged, tampered, other-purpose and malformed tokens without throwing', () => {
    const token = secrets.sign('subscription', 'p1:c1');
    expect(secrets.verify('dkim', token)).toBeNull();
    expect(other.verify('subscription', token)).toBeNull();
    for (let index = 0; index < token.length; index++) {
      if (token.charAt(index) === '.') continue;
      expect(secrets.verify('subscription', changeAt(token, index))).toBeNull();
    }
    const [, mac] = token.split('.');
    const forged = `${Buffer.from('p1:c2').toString('base64url')}.${mac ?? ''}`;
    expect(secrets.verify('subscription', forged)).toBeNull();
    for (const bad of ['', '.', 'abc', 'a.b.c', `${token}.x`, 'p1:c1', '!!.??', 'x'.repeat(5000)]) {
      expect(secrets.verify('subscription', bad)).toBeNull();
    }
  });

  it('makes short hex tags and checks them in either case, refusing others', () => {
    const tag = secrets.tag('verp', 'e1');
    expect(tag).toMatch(/^[0-9a-f]{20}$/);
    expect(secrets.tag('verp', 'e1')).toBe(tag);
    expect(secrets.verifyTag('verp', 'e1', tag)).toBe(true);
    expect(secrets.verifyTag('verp', 'e1', tag.toUpperCase())).toBe(true);
    expect(secrets.verifyTag('verp', 'e2', tag)).toBe(false);
    expect(secrets.verifyTag('other', 'e1', tag)).toBe(false);
    expect(other.verifyTag('verp', 'e1', tag)).toBe(false);
    expect(secrets.verifyTag('verp', 'e1', tag.slice(0, 14))).toBe(false);
    expect(secrets.verifyTag('verp', 'e1', `${tag.slice(0, -1)}g`)).toBe(false);
    expect(secrets.verifyTag('verp', 'e1', '')).toBe(false);
    expect(secrets.tag('verp', 'e1', 32)).toMatch(/^[0-9a-f]{64}$/);
    expect(() => secrets.tag('verp', 'e1', 4)).toThrow(RangeError);
  });

  it('seals and opens; the sealed text is not the plaintext and differs every time', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';
    const sealed = secrets.seal('dkim', pem);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(sealed).not.toContain('PRIVATE KEY');
    expect(secrets.seal('dkim', pem)).not.toBe(sealed);
    expect(secrets.open('dkim', sealed)).toBe(pem);
  });

  it('refuses to open tampered, other-purpose, other-secret and malformed values', () => {
    const sealed = secrets.seal('dkim', 'secret text');
    const [version, iv, ciphertext, tag] = sealed.split('.') as [string, string, string, string];
    expect(() => secrets.open('subscription', sealed)).toThrow();
    expect(() => other.open('dkim', sealed)).toThrow();
    expect(() =>
      secrets.open('dkim', [version, iv, changeAt(ciphertext, 0), tag].join('.')),
    ).toThrow();
    expect(() =>
      secrets.open('dkim', [version, iv, ciphertext, changeAt(tag, 0)].join('.')),
    ).toThrow();
    expect(() =>
      secrets.open('dkim', [version, changeAt(iv, 0), ciphertext, tag].join('.')),
    ).toThrow();
    for (const bad of ['', 'v1', 'v2.a.b.c', 'v1.a.b.c', 'secret text']) {
      expect(() => secrets.open('dkim', bad)).toThrow();
    }
  });
});

describe('loadOrCreateSecret', () => {
  it('creates <dataDir>/secret.key once (mode 0600) and reads it afterwards', () => {
    const dataDir = join(temporaryDirectory('stamp-secret-'), 'nested');
    const first = loadOrCreateSecret(dataDir);
    expect(first).toHaveLength(32);
    const path = join(dataDir, 'secret.key');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path).equals(first)).toBe(true);
    expect(loadOrCreateSecret(dataDir).equals(first)).toBe(true);
  });

  it('refuses a secret file that is too short', () => {
    const dir = temporaryDirectory('stamp-secret-');
    writeFileSync(join(dir, 'secret.key'), 'short');
    expect(() => loadOrCreateSecret(dir)).toThrow(/fewer than 32 bytes/);
  });

  it('returns a fresh secret for :memory:', () => {
    expect(loadOrCreateSecret(':memory:')).toHaveLength(32);
  });
});
