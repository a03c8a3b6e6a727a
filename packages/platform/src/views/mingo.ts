/**
 * mingo, the in-memory evaluator of MongoDB's query and update language, loaded at its first
 * use: its hundreds of modules weigh on the memory of a platform whose common filters and
 * updates are answered without it (`simple-filter.ts`, `simple-update.ts`, SQL).
 */
import { createRequire } from 'node:module';

import type * as Mingo from 'mingo';
import type * as Updater from 'mingo/updater';

const load = createRequire(import.meta.url);
let mingo: typeof Mingo | undefined;
let updater: typeof Updater | undefined;

/** The `mingo` module (`Query`, `aggregate`). */
export function mingoQuery(): typeof Mingo {
  mingo ??= load('mingo') as typeof Mingo;
  return mingo;
}

/** The `mingo/updater` module (`update`). */
export function mingoUpdater(): typeof Updater {
  updater ??= load('mingo/updater') as typeof Updater;
  return updater;
}
