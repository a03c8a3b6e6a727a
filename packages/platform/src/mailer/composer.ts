import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import type { OutgoingMessage } from './mailer.ts';
import { PortBatch } from './port-batch.ts';

/** A message for a composer thread. */
export interface ComposeRequest {
  id: number;
  message: OutgoingMessage;
}

/** A composer thread's answer: the raw message, or why it could not be built. */
export type ComposeReply =
  { id: number; raw: Uint8Array; messageId: string } | { id: number; error: string };

/** Options of {@link MessageComposer}. */
export interface MessageComposerOptions {
  /**
   * Composer threads at most (default: the cores but one, 1 to 4). Threads start on demand:
   * one more only while every running one is busy.
   */
  threads?: number;
  /** A thread with nothing to do ends after this long, ms (default 10,000). */
  idleMs?: number;
}

interface Pending {
  resolve: (composed: { raw: Buffer; messageId: string }) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  requests: PortBatch<ComposeRequest>;
  pending: Map<number, Pending>;
  idleTimer: NodeJS.Timeout | undefined;
}

const THREAD_ENTRY = join(import.meta.dirname, 'compose-thread.ts');

/**
 * Composes and DKIM-signs outgoing messages in worker threads (`compose-thread.ts`), so the
 * CPU-bound part of delivery (MIME building and an RSA signature per message, about 1 ms) never
 * blocks the platform's event loop and runs on other cores. Each message goes to a thread at
 * once (a busy event loop here never leaves a thread without work); a thread composes bulk mail
 * only when no other message waits. Threads start on demand and end when idle, so an idle
 * platform holds none.
 */
export class MessageComposer {
  private readonly maxThreads: number;
  private readonly idleMs: number;
  private readonly threads: Thread[] = [];
  private nextId = 0;

  constructor(options: MessageComposerOptions = {}) {
    this.maxThreads = Math.max(
      1,
      options.threads ?? Math.min(4, Math.max(1, availableParallelism() - 1)),
    );
    this.idleMs = options.idleMs ?? 10_000;
  }

  /**
   * The raw RFC 5322 message of `message` and its Message-ID (see `composeMessage`).
   * @throws Error when the message cannot be built, or its thread ended while building it.
   */
  compose(message: OutgoingMessage): Promise<{ raw: Buffer; messageId: string }> {
    const thread = this.pick();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      clearTimeout(thread.idleTimer);
      thread.idleTimer = undefined;
      // A message being composed keeps the process alive, as pending I/O does.
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(id, { resolve, reject });
      thread.requests.add({ id, message });
    });
  }

  /** Ends every thread; messages being composed fail. */
  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((thread) => this.end(thread)));
  }

  /** The least busy thread, or a new one while every thread is busy and more may run. */
  private pick(): Thread {
    let best: Thread | undefined;
    for (const thread of this.threads) {
      if (best === undefined || thread.pending.size < best.pending.size) best = thread;
    }
    if (best !== undefined && (best.pending.size === 0 || this.threads.length >= this.maxThreads)) {
      return best;
    }
    return this.start();
  }

  private start(): Thread {
    const worker = new Worker(THREAD_ENTRY);
    const requests = new PortBatch<ComposeRequest>((items) => {
      worker.postMessage(items);
    });
    const thread: Thread = { worker, requests, pending: new Map(), idleTimer: undefined };
    worker.on('message', (replies: ComposeReply[]) => {
      for (const reply of replies) {
        const pending = thread.pending.get(reply.id);
        if (pending === undefined) continue;
        thread.pending.delete(reply.id);
        if ('error' in reply) pending.reject(new Error(reply.error));
        else {
          const raw = Buffer.from(reply.raw.buffer, reply.raw.byteOffset, reply.raw.byteLength);
          pending.resolve({ raw, messageId: reply.messageId });
        }
      }
      if (thread.pending.size === 0) this.idle(thread);
    });
    const fail = (error: Error): void => {
      this.forget(thread);
      for (const pending of thread.pending.values()) pending.reject(error);
      thread.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      fail(new Error(`a composer thread ended (exit code ${code})`));
    });
    // An idle composer never keeps the process alive (after the listeners: adding one refs it).
    worker.unref();
    this.threads.push(thread);
    return thread;
  }

  /** Ends `thread` once it stayed idle for `idleMs`. */
  private idle(thread: Thread): void {
    thread.worker.unref();
    clearTimeout(thread.idleTimer);
    thread.idleTimer = setTimeout(() => {
      if (thread.pending.size > 0) return;
      this.forget(thread);
      void this.end(thread);
    }, this.idleMs).unref();
  }

  private forget(thread: Thread): void {
    const index = this.threads.indexOf(thread);
    if (index >= 0) this.threads.splice(index, 1);
  }

  private async end(thread: Thread): Promise<void> {
    clearTimeout(thread.idleTimer);
    thread.idleTimer = undefined;
    // Kept alive until it has ended: an unreferenced thread's exit would not be waited for.
    thread.worker.ref();
    await thread.worker.terminate();
  }
}

let shared: MessageComposer | undefined;

/** The process's composer (default options), shared by its mailers. */
export function sharedComposer(): MessageComposer {
  shared ??= new MessageComposer();
  return shared;
}
