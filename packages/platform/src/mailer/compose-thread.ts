/**
 * Entry point of a composer thread (see `composer.ts`): composes and DKIM-signs the messages it
 * is sent (in batches), one at a time, bulk mail only when no other message waits, and answers
 * each with its raw bytes (transferred, not copied) or the error's message, in batches too.
 */
import { parentPort } from 'node:worker_threads';

import { composeMessage } from './compose.ts';
import type { ComposeReply, ComposeRequest } from './composer.ts';
import { LaneQueue } from './lanes.ts';
import { PortBatch } from './port-batch.ts';

const port = parentPort;
if (port === null) throw new Error('compose-thread.ts runs as a worker thread');

const waiting = new LaneQueue<ComposeRequest>();
const replies = new PortBatch<ComposeReply>((items, transfer) => {
  port.postMessage(items, transfer);
});
let composing = false;

async function composeNext(): Promise<void> {
  composing = true;
  for (let request = waiting.shift(); request !== undefined; request = waiting.shift()) {
    try {
      const { raw, messageId } = await composeMessage(request.message);
      // A copy of its own: nodemailer's buffer may share a pooled ArrayBuffer.
      const bytes = new Uint8Array(raw);
      replies.add({ id: request.id, raw: bytes, messageId }, bytes.buffer);
    } catch (error) {
      replies.add({
        id: request.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  composing = false;
}

port.on('message', (requests: ComposeRequest[]) => {
  for (const request of requests) waiting.push(request, request.message.bulk === true);
  if (!composing) void composeNext();
});
