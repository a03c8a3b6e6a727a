/**
 * Entry point of a composer thread (see `composer.ts`): composes and DKIM-signs the messages it
 * is sent, and answers each with its raw bytes (transferred, not copied) or the error's message.
 */
import { parentPort } from 'node:worker_threads';

import { composeMessage } from './compose.ts';
import type { ComposeReply, ComposeRequest } from './composer.ts';

const port = parentPort;
if (port === null) throw new Error('compose-thread.ts runs as a worker thread');

port.on('message', (request: ComposeRequest) => {
  composeMessage(request.message).then(
    ({ raw, messageId }) => {
      // A copy of its own: nodemailer's buffer may share a pooled ArrayBuffer.
      const bytes = new Uint8Array(raw);
      const reply: ComposeReply = { id: request.id, raw: bytes, messageId };
      port.postMessage(reply, [bytes.buffer]);
    },
    (error: unknown) => {
      const reply: ComposeReply = {
        id: request.id,
        error: error instanceof Error ? error.message : String(error),
      };
      port.postMessage(reply);
    },
  );
});
