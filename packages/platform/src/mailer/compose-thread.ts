/**
 * Entry point of a composer thread (see `composer.ts`): composes and DKIM-signs the messages it
 * is sent, one at a time, bulk mail only when no other message waits, and answers each with its
 * raw bytes (transferred, not copied) or the error's message.
 */
import { parentPort } from 'node:worker_threads';

import { composeMessage } from './compose.ts';
import type { ComposeReply, ComposeRequest } from './composer.ts';
import { LaneQueue } from './lanes.ts';

const port = parentPort;
if (port === null) throw new Error('compose-thread.ts runs as a worker thread');

const waiting = new LaneQueue<ComposeRequest>();
let composing = false;

async function composeNext(): Promise<void> {
  composing = true;
  for (let request = waiting.shift(); request !== undefined; request = waiting.shift()) {
    let reply: ComposeReply;
    const transfer: ArrayBuffer[] = [];
    try {
      const { raw, messageId } = await composeMessage(request.message);
      // A copy of its own: nodemailer's buffer may share a pooled ArrayBuffer.
      const bytes = new Uint8Array(raw);
      transfer.push(bytes.buffer);
      reply = { id: request.id, raw: bytes, messageId };
    } catch (error) {
      reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
    port?.postMessage(reply, transfer);
  }
  composing = false;
}

port.on('message', (request: ComposeRequest) => {
  waiting.push(request, request.message.bulk === true);
  if (!composing) void composeNext();
});
