/**
 * A cache holding at most `capacity` entries, in two generations: new entries go to the young
 * map; when it holds half the capacity it becomes the old map and the previous old one is
 * dropped whole. A hit in the old map moves the entry back to the young one, so entries in use
 * stay (an approximation of least-recently-used). Every operation is O(1): a Map used as an LRU
 * by deleting its first key costs time proportional to the deleted keys it must skip, tens of
 * microseconds per insertion at 100,000 entries.
 */
export class BoundedCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly half: number;

  /** @param capacity most entries held (at least 2). */
  constructor(capacity: number) {
    this.half = Math.max(1, Math.floor(capacity / 2));
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) {
      this.old.delete(key);
      this.set(key, aged);
    }
    return aged;
  }

  has(key: K): boolean {
    return this.young.has(key) || this.old.has(key);
  }

  set(key: K, value: V): void {
    this.old.delete(key);
    if (!this.young.has(key) && this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  /** Removes the entries for which `test` holds. */
  deleteWhere(test: (value: V, key: K) => boolean): void {
    for (const map of [this.young, this.old]) {
      for (const [key, value] of map) if (test(value, key)) map.delete(key);
    }
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }

  /** Entries held (both generations). */
  get size(): number {
    return this.young.size + this.old.size;
  }

  /** Values held, young first. */
  *values(): IterableIterator<V> {
    yield* this.young.values();
    yield* this.old.values();
  }

  /** Keys held, young first. */
  *keys(): IterableIterator<K> {
    yield* this.young.keys();
    yield* this.old.keys();
  }
}
