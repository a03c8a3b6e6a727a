import { setFlagsFromString } from 'node:v8';

/**
 * How far V8's old generation may grow past what survived its last major collection before the
 * next one, percent (V8's `--heap-growing-percent`): 100 lets the heap reach twice its live
 * size. Left to itself, V8 picks a factor of up to 4 while collecting is fast beside the
 * program's work (a log replay, an import): a heap of 40–50 MiB live then grew to about
 * 200 MiB between collections, and V8 kept those pages (in use or pooled) afterwards: the
 * memory reducer that would give them back did not run in a minute of quiet (Node 24). Measured
 * in `docs/decisions/0002-embedded-view-store.md`.
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Bounds the growth of V8's heap ({@link HEAP_GROWING_PERCENT}) for the rest of the process,
 * unless the command line chose a value (`node --heap-growing-percent=<n> …`; Node does not
 * accept this flag in `NODE_OPTIONS`). The platform's processes (`./pnpmw start`, each service)
 * call it before they start their work: V8 reads the flag every time it sets the limit of the
 * next major collection, so setting it at run time takes effect from that collection on.
 */
export function boundHeapGrowth(): void {
  if (process.execArgv.some((argument) => argument.startsWith('--heap-growing-percent'))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
