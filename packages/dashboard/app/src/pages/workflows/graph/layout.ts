/**
 * Where the steps of a workflow go on the canvas: the position saved with each step, or else a
 * layered layout from the trigger down (one row per number of steps from the trigger).
 */
import type { Step, Transition } from '../steps';

/** A point on the canvas. */
export interface Point {
  x: number;
  y: number;
}

/** Horizontal distance between the steps of one row. */
export const COLUMN_WIDTH = 280;
/** Vertical distance between rows. */
export const ROW_HEIGHT = 160;

/** The position of each step: its own, or a place in the layered layout. */
export function layout(
  steps: readonly Step[],
  transitions: readonly Transition[],
): Map<string, Point> {
  const depth = new Map<string, number>();
  const trigger = steps.find((step) => step.type === 'TRIGGER');
  const queue = trigger === undefined ? [] : [trigger.id];
  if (trigger !== undefined) depth.set(trigger.id, 0);
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    const level = depth.get(id) ?? 0;
    for (const transition of transitions) {
      if (transition.fromStepId === id && !depth.has(transition.toStepId)) {
        depth.set(transition.toStepId, level + 1);
        queue.push(transition.toStepId);
      }
    }
  }
  const deepest = Math.max(0, ...depth.values());
  const rows = new Map<number, string[]>();
  for (const step of steps) {
    // Steps the trigger does not reach go in a row below the others.
    const level = depth.get(step.id) ?? deepest + 1;
    rows.set(level, [...(rows.get(level) ?? []), step.id]);
  }
  const positions = new Map<string, Point>();
  for (const step of steps) {
    if (step.position !== null) positions.set(step.id, step.position);
  }
  for (const [level, ids] of rows) {
    ids.forEach((id, index) => {
      if (!positions.has(id)) {
        positions.set(id, {
          x: (index - (ids.length - 1) / 2) * COLUMN_WIDTH,
          y: level * ROW_HEIGHT,
        });
      }
    });
  }
  return positions;
}

/** A free place for a new step: below `after` when given, else below every step. */
export function placeForNewStep(positions: ReadonlyMap<string, Point>, after?: string): Point {
  const anchor = after === undefined ? undefined : positions.get(after);
  const taken = [...positions.values()];
  let place: Point =
    anchor !== undefined
      ? { x: anchor.x, y: anchor.y + ROW_HEIGHT }
      : { x: 0, y: Math.max(-ROW_HEIGHT, ...taken.map((point) => point.y)) + ROW_HEIGHT };
  // Move right until no step sits there.
  while (
    taken.some((point) => Math.abs(point.x - place.x) < 200 && Math.abs(point.y - place.y) < 100)
  ) {
    place = { x: place.x + COLUMN_WIDTH, y: place.y };
  }
  return place;
}
