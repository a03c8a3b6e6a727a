/**
 * Direct application of the MongoDB update operators projections use most (`$set`, `$unset`,
 * `$inc`, `$max`, `$min`) on plain nested objects; anything else is left to mingo's updater.
 * Both give MongoDB's result; the direct path only skips mingo on the hot path of projections.
 */
import type { Update } from './view-store.ts';

type Doc = Record<string, unknown>;

const SIMPLE = new Set(['$set', '$unset', '$inc', '$max', '$min']);

/** The object holding the last part of `path`, created on the way; undefined across arrays. */
function parentOf(document: Doc, parts: readonly string[], create: boolean): Doc | undefined {
  let current: Doc = document;
  for (const part of parts.slice(0, -1)) {
    const next = current[part];
    if (next === undefined && create) {
      const made: Doc = {};
      current[part] = made;
      current = made;
    } else if (next !== null && typeof next === 'object' && !Array.isArray(next)) {
      current = next as Doc;
    } else {
      return undefined;
    }
  }
  return current;
}

const sameScalarType = (a: unknown, b: unknown): boolean =>
  (typeof a === 'number' && typeof b === 'number') ||
  (typeof a === 'string' && typeof b === 'string');

/**
 * Applies `update` to `document` in place when every operator and path is one this function
 * handles exactly like MongoDB; returns whether the document changed, or undefined (document
 * untouched) when the update needs the general updater. Objects and arrays given to `$set` are
 * placed in `document` as they are, not copied: the caller serializes the document before it
 * hands control back (with the copies of whole documents, copying took about 5% of a view
 * rebuild's CPU).
 */
export function applySimpleUpdate(document: Doc, update: Update): boolean | undefined {
  const steps: (() => boolean)[] = [];
  const paths = new Set<string>();
  for (const [operator, fields] of Object.entries(update)) {
    if (!SIMPLE.has(operator)) return undefined;
    for (const [path, operand] of Object.entries(fields)) {
      const parts = path.split('.');
      if (parts.some((part) => part === '' || part.startsWith('$') || /^\d+$/.test(part))) {
        return undefined;
      }
      // Overlapping paths ("a" and "a.b") are a conflict for MongoDB: let mingo report it.
      for (const other of paths) {
        if (other === path || other.startsWith(`${path}.`) || path.startsWith(`${other}.`)) {
          return undefined;
        }
      }
      paths.add(path);
      const key = parts[parts.length - 1] ?? '';
      const existing = parentOf(document, parts, false);
      if (existing === undefined && parts.length > 1) {
        // A missing intermediate is created; any other non-object one needs MongoDB's rules.
        let probe: unknown = document;
        for (const part of parts.slice(0, -1)) {
          if (probe === undefined) break;
          if (probe === null || typeof probe !== 'object' || Array.isArray(probe)) return undefined;
          probe = (probe as Doc)[part];
        }
        if (probe !== undefined) return undefined;
      }
      const current = existing?.[key];
      switch (operator) {
        case '$set': {
          // Values are compared as JSON documents hold them.
          const composite = operand !== null && typeof operand === 'object';
          steps.push(() => {
            const parent = parentOf(document, parts, true);
            if (parent === undefined) return false;
            if (key in parent) {
              const before = parent[key];
              if (
                composite ? JSON.stringify(before) === JSON.stringify(operand) : before === operand
              ) {
                return false;
              }
            }
            parent[key] = operand;
            return true;
          });
          break;
        }
        case '$unset':
          steps.push(() => {
            const parent = parentOf(document, parts, false);
            if (parent === undefined || !(key in parent)) return false;
            // eslint-disable-next-line @typescript-eslint/no-dynamic-delete
            delete parent[key];
            return true;
          });
          break;
        case '$inc':
          if (typeof operand !== 'number') return undefined;
          if (current !== undefined && typeof current !== 'number') return undefined;
          steps.push(() => {
            const parent = parentOf(document, parts, true);
            if (parent === undefined) return false;
            const before = parent[key];
            parent[key] = (typeof before === 'number' ? before : 0) + operand;
            return operand !== 0 || before === undefined;
          });
          break;
        default: {
          // $max / $min: same-typed numbers or strings only.
          if (current !== undefined && !sameScalarType(current, operand)) return undefined;
          if (current === undefined && typeof operand !== 'number' && typeof operand !== 'string') {
            return undefined;
          }
          const wins = (before: unknown): boolean =>
            before === undefined ||
            (operator === '$max'
              ? (operand as number | string) > (before as number | string)
              : (operand as number | string) < (before as number | string));
          steps.push(() => {
            const parent = parentOf(document, parts, true);
            if (parent === undefined || !wins(parent[key])) return false;
            parent[key] = operand;
            return true;
          });
        }
      }
    }
  }
  let changed = false;
  for (const step of steps) changed = step() || changed;
  return changed;
}
