import { generateKey, hashKey, isValidKey, keyHint, kindOfKey } from './keys.ts';

describe('keys', () => {
  it('generates pk_/sk_ keys of 32 base62 characters, all different', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const pk = generateKey('public');
      const sk = generateKey('secret');
      expect(pk).toMatch(/^pk_[A-Za-z0-9]{32}$/);
      expect(sk).toMatch(/^sk_[A-Za-z0-9]{32}$/);
      keys.add(pk).add(sk);
    }
    expect(keys.size).toBe(400);
  });

  it('validates the shapes of keys given from outside', () => {
    expect(isValidKey('public', 'pk_' + 'a'.repeat(16))).toBe(true);
    expect(isValidKey('public', 'pk_' + 'a'.repeat(15))).toBe(false);
    expect(isValidKey('secret', 'sk_' + 'a'.repeat(64))).toBe(true);
    expect(isValidKey('secret', 'sk_' + 'a'.repeat(65))).toBe(false);
    expect(isValidKey('secret', 'pk_' + 'a'.repeat(20))).toBe(false);
    expect(kindOfKey('sk_x')).toBe('secret');
    expect(kindOfKey('xx_x')).toBeNull();
  });

  it('hashes with SHA-256 hex and hints with the last 4 characters', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(keyHint('sk_abcdefghijklmnopWXYZ')).toBe('sk_…WXYZ');
  });
});
