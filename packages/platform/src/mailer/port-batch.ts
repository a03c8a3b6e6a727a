/**
 * Messages for another thread, posted together once per turn of the event loop: one wake-up of
 * the receiving thread (and one message event there) for every message of the turn, instead of
 * one each. The receiving side takes an array.
 */
export class PortBatch<T> {
  private items: T[] = [];
  private transfer: ArrayBuffer[] = [];
  private readonly post: (items: T[], transfer: ArrayBuffer[]) => void;

  /** @param post posts one batch, with the buffers it hands over (transferred, not copied). */
  constructor(post: (items: T[], transfer: ArrayBuffer[]) => void) {
    this.post = post;
  }

  /** Queues `item` (and the buffer it hands over) for the batch of this turn. */
  add(item: T, transfer?: ArrayBuffer): void {
    this.items.push(item);
    if (transfer !== undefined) this.transfer.push(transfer);
    if (this.items.length === 1) {
      setImmediate(() => {
        this.flush();
      });
    }
  }

  /** Posts what is queued now. */
  flush(): void {
    if (this.items.length === 0) return;
    const items = this.items;
    const transfer = this.transfer;
    this.items = [];
    this.transfer = [];
    this.post(items, transfer);
  }
}
