import { BoundedCache } from './bounded-cache.ts';

describe('BoundedCache', () => {
  it('holds at most its capacity, keeps entries in use, forgets the others', () => {
    const cache = new BoundedCache<string, number>(4);
    for (const [index, key] of ['a', 'b', 'c', 'd', 'e', 'f'].entries()) {
      cache.set(key, index);
      expect(cache.size).toBeLessThanOrEqual(4);
      // `a` is read after every write: it stays.
      expect(cache.get('a')).toBe(0);
    }
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('f')).toBe(5);
    cache.set('f', 6);
    expect(cache.get('f')).toBe(6);
    cache.deleteWhere((value) => value === 6);
    expect(cache.has('f')).toBe(false);
    cache.delete('a');
    expect(cache.has('a')).toBe(false);
    expect([...cache.values()]).toHaveLength(cache.size);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('stays within its capacity over many insertions', () => {
    const cache = new BoundedCache<number, number>(1000);
    for (let index = 0; index < 10_000; index += 1) {
      cache.set(index, index);
      expect(cache.size).toBeLessThanOrEqual(1000);
    }
    expect(cache.get(9_999)).toBe(9_999);
    expect(cache.get(0)).toBeUndefined();
  });
});
