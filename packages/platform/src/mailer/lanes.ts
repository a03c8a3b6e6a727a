/**
 * Messages waiting for a delivery thread, in two lanes: other mail before bulk (campaign) mail,
 * each lane in arrival order, so a transactional email never waits behind a campaign's backlog.
 */
export class LaneQueue<T> {
  private readonly first: T[] = [];
  private readonly bulk: T[] = [];

  /** Queues `item`, in the bulk lane when `bulk`. */
  push(item: T, bulk: boolean): void {
    (bulk ? this.bulk : this.first).push(item);
  }

  /** The next item: the oldest of the first lane, else the oldest bulk one. */
  shift(): T | undefined {
    return this.first.length > 0 ? this.first.shift() : this.bulk.shift();
  }
}
