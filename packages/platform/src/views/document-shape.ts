/**
 * The shape of a view collection: for every field path its documents have held, which JSON
 * types were seen there. The embedded view store translates a MongoDB filter or sort to SQL only
 * where the shape proves the translation gives MongoDB's answer (no array on the way, no type
 * whose SQL comparison differs from MongoDB's); elsewhere it tests documents with the filter
 * itself. Types are only ever added (until the collection is dropped), so a shape can be wider
 * than the documents now stored, never narrower.
 */

/** Bits of a path's type mask. */
export const TYPE = {
  string: 1,
  number: 2,
  boolean: 4,
  null: 8,
  object: 16,
  array: 32,
  /** Something below the path is deeper than {@link MAX_DEPTH}: paths below it are unknown. */
  untracked: 64,
} as const;

/** Deepest path tracked (parts); anything below marks its parent {@link TYPE.untracked}. */
export const MAX_DEPTH = 6;

/** Bit of one JSON value. */
export function typeBit(value: unknown): number {
  if (value === null) return TYPE.null;
  if (Array.isArray(value)) return TYPE.array;
  switch (typeof value) {
    case 'string':
      return TYPE.string;
    case 'number':
      return TYPE.number;
    case 'boolean':
      return TYPE.boolean;
    case 'object':
      return TYPE.object;
    default:
      return 0;
  }
}

/**
 * Whether `key` can be one part of a dotted path that a SQLite JSON path names exactly: not
 * empty, no `.`, `"` or `\` (SQLite reads escapes in quoted labels), not starting with `$`.
 */
export const isPathKey = (key: string): boolean =>
  key !== '' &&
  !key.includes('.') &&
  !key.includes('"') &&
  !key.includes('\\') &&
  !key.startsWith('$');

/**
 * The type masks of one collection's paths (`a`, `a.b`, …; arrays are not entered).
 */
export class DocumentShape {
  private readonly masks = new Map<string, number>();

  /** Loads stored masks. */
  constructor(entries: Iterable<[string, number]> = []) {
    for (const [path, mask] of entries) this.masks.set(path, mask);
  }

  /** Mask of `path`; 0 when no document ever held it. */
  mask(path: string): number {
    return this.masks.get(path) ?? 0;
  }

  /**
   * Widens the shape by `document` (its `_id` aside) and returns the paths whose mask grew,
   * with their new masks, for the caller to store.
   */
  widen(document: Record<string, unknown>): [string, number][] {
    const grown: [string, number][] = [];
    const visit = (object: Record<string, unknown>, prefix: string, depth: number): void => {
      for (const key in object) {
        if (!Object.hasOwn(object, key)) continue;
        if (depth === 0 && key === '_id') continue;
        const value = object[key];
        if (value === undefined) continue;
        // A key no translated path can name (empty, `.`, `"`, `$…`) is never read by SQL.
        if (!isPathKey(key)) continue;
        if (depth >= MAX_DEPTH) {
          this.add(prefix, TYPE.untracked, grown);
          continue;
        }
        const path = prefix === '' ? key : `${prefix}.${key}`;
        const bit = typeBit(value);
        this.add(path, bit, grown);
        if (bit === TYPE.object) visit(value as Record<string, unknown>, path, depth + 1);
      }
    };
    visit(document, '', 0);
    return grown;
  }

  private add(path: string, bit: number, grown: [string, number][]): void {
    const mask = this.masks.get(path) ?? 0;
    if ((mask & bit) === bit) return;
    this.masks.set(path, mask | bit);
    grown.push([path, mask | bit]);
  }

  /**
   * Whether `path` names one scalar place in every document: no array and nothing untracked
   * at it or on the way to it. Only then does SQLite's `json_extract` read what MongoDB does.
   */
  plain(path: string): boolean {
    let at = 0;
    for (;;) {
      const dot = path.indexOf('.', at);
      const prefix = dot === -1 ? path : path.slice(0, dot);
      const mask = this.mask(prefix);
      if ((mask & (TYPE.array | TYPE.untracked)) !== 0) return false;
      if (dot === -1) return true;
      at = dot + 1;
    }
  }
}
