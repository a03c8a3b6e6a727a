/**
 * A contact's timeline: its tracked events (`GET /events/contact/:id`) and its activity (`GET
 * /activity?contactId=`) merged newest first. Both are cursor lists loaded page by page, so the
 * merge shows only what is complete: down to the oldest time every list with more pages has
 * reached, and says which lists to load next to go further back.
 */
import type { Schema } from '../../api/client';
import type { ActivityItem } from '../activity/describe';

/** One entry of the timeline. */
export type TimelineEntry =
  | { kind: 'event'; id: string; at: string; event: Schema<'TrackedEvent'> }
  | { kind: 'activity'; id: string; at: string; item: ActivityItem };

/** The loaded part of one source list. */
export interface TimelineSource {
  entries: TimelineEntry[];
  hasMore: boolean;
}

/** The merged timeline and what to load next. */
export interface MergedTimeline {
  /** Entries down to the complete part's end, newest first. */
  entries: TimelineEntry[];
  /** Indexes of the sources to load a page of to see older entries (empty: all is shown). */
  next: number[];
}

const timeOf = (entry: TimelineEntry): number => Date.parse(entry.at);

/**
 * Merges `sources`. An activity item that repeats a tracked event (an `event.triggered` item
 * has the id of its event) is left out.
 */
export function mergeTimeline(sources: readonly TimelineSource[]): MergedTimeline {
  // The oldest loaded time of each list that has more; an empty list with more is not loaded.
  const oldest = sources.map((source) =>
    source.hasMore
      ? source.entries.reduce((min, entry) => Math.min(min, timeOf(entry)), Infinity)
      : undefined,
  );
  const bounds = oldest.filter((time): time is number => time !== undefined);
  const cutoff = bounds.length === 0 ? -Infinity : Math.max(...bounds);
  const events = new Set<string>();
  for (const source of sources) {
    for (const entry of source.entries) if (entry.kind === 'event') events.add(entry.id);
  }
  const entries = sources
    .flatMap((source) => source.entries)
    .filter(
      (entry) =>
        timeOf(entry) >= cutoff &&
        !(
          entry.kind === 'activity' &&
          entry.item.type === 'event.triggered' &&
          events.has(entry.id)
        ),
    )
    .sort((a, b) => timeOf(b) - timeOf(a) || b.id.localeCompare(a.id));
  const next = oldest.flatMap((time, index) =>
    time !== undefined && time >= cutoff ? [index] : [],
  );
  return { entries, next };
}
