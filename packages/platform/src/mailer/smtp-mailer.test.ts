import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { startSmtpSink, type SmtpSink } from '@stamp/testkit/smtp-sink.ts';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { mailerContract, sampleMessage } from './mailer.contract.ts';
import { type DeliveryReceipt, DeliveryError } from './mailer.ts';
import { SmtpMailer } from './smtp-mailer.ts';

/** Finds the sink message whose `X-Stamp-Email-Id` header is `emailId`. */
function deliveredTo(sink: SmtpSink, emailId: string): Buffer | undefined {
  const needle = `x-stamp-email-id: ${emailId}`.toLowerCase();
  return sink.messages.find((message) =>
    message.raw.toString('utf8').toLowerCase().includes(needle),
  )?.raw;
}

mailerContract('SMTP relay (nodemailer pool) → smtp-server sink', async () => {
  const sink = await startSmtpSink();
  const mailer = new SmtpMailer({ url: sink.url });
  return {
    mailer,
    delivered: (emailId) => Promise.resolve(deliveredTo(sink, emailId)),
    close: async () => {
      await mailer.close();
      await sink.close();
    },
  };
});

/**
 * A minimal SMTP server (RFC 5321) on loopback that accepts the whole transaction and answers
 * the end of DATA with `reply` (for example a permanent `554`), which the sink cannot do.
 */
async function startRejectingServer(
  reply: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffer = '';
    let inData = false;
    socket.setNoDelay(true);
    socket.write('220 reject.test ESMTP\r\n');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write(`${reply}\r\n`);
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'DATA') {
          inData = true;
          // A message ending right after DATA's reply is found by the search above.
          buffer = `\r\n${buffer}`;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
          return;
        } else if (verb === 'EHLO') {
          socket.write('250-reject.test\r\n250 8BITMIME\r\n');
        } else {
          socket.write('250 OK\r\n');
        }
      }
    });
  });
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** A loopback TCP port nobody listens on. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  return port;
}

async function deliveryErrorOf(promise: Promise<unknown>): Promise<DeliveryError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DeliveryError) return error;
    throw error;
  }
  throw new Error('expected a DeliveryError, the send succeeded');
}

describe('SmtpMailer', () => {
  it('reports a 451 as a transient DeliveryError and delivers the next message', async () => {
    const sink = await startSmtpSink({ failFirst: 1 });
    const mailer = new SmtpMailer({ url: sink.url });
    try {
      let committed = 0;
      const commit = (): Promise<void> => {
        committed += 1;
        return Promise.resolve();
      };
      const error = await deliveryErrorOf(mailer.send(sampleMessage(), commit));
      expect(error.transient).toBe(true);
      expect(error.responseCode).toBe(451);
      expect(committed).toBe(0);

      const next = sampleMessage();
      await mailer.send(next, commit);
      expect(committed).toBe(1);
      expect(deliveredTo(sink, next.emailId)).toBeDefined();
    } finally {
      await mailer.close();
      await sink.close();
    }
  });

  it('reports a 5xx as a permanent DeliveryError, without blocking later sends', async () => {
    const server = await startRejectingServer('554 5.7.1 message refused');
    const mailer = new SmtpMailer({ url: server.url, maxConnections: 2 });
    try {
      const errors = await Promise.all(
        [1, 2, 3].map(() => deliveryErrorOf(mailer.send(sampleMessage()))),
      );
      for (const error of errors) {
        expect(error.transient).toBe(false);
        expect(error.responseCode).toBe(554);
      }
    } finally {
      await mailer.close();
      await server.close();
    }
  });

  it('reports a refused connection as a transient DeliveryError', async () => {
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${await unusedPort()}` });
    try {
      const error = await deliveryErrorOf(mailer.send(sampleMessage()));
      expect(error.transient).toBe(true);
      expect(error.responseCode).toBeUndefined();
    } finally {
      await mailer.close();
    }
  });

  it('delivers 20 concurrent sends over the pool, each committed once', async () => {
    const sink = await startSmtpSink();
    const mailer = new SmtpMailer({ url: sink.url, maxConnections: 5 });
    try {
      const committed: string[] = [];
      const messages = Array.from({ length: 20 }, () => sampleMessage());
      await Promise.all(
        messages.map((message) =>
          mailer.send(message, (receipt) => {
            committed.push(receipt.messageId);
            return Promise.resolve();
          }),
        ),
      );
      expect(new Set(committed).size).toBe(20);
      expect(sink.messages).toHaveLength(20);
      for (const message of messages) expect(deliveredTo(sink, message.emailId)).toBeDefined();
    } finally {
      await mailer.close();
      await sink.close();
    }
  });

  it('never sends an accepted email id again, also after a restart: it answers the journaled receipt', async () => {
    const sink = await startSmtpSink();
    const journal = join(temporaryDirectory('stamp-journal-'), 'delivery-journal.db');
    const message = sampleMessage();
    const first = new SmtpMailer({ url: sink.url, journal });
    let receipt: DeliveryReceipt | undefined;
    try {
      // The delivery is accepted, but its record fails (as a crash before it would).
      await expect(
        first.send(message, (accepted) => {
          receipt = accepted;
          return Promise.reject(new Error('the event store is unreachable'));
        }),
      ).rejects.toThrow('unreachable');
      expect(sink.messages).toHaveLength(1);
      // The retry in the same process records it without sending.
      let again: DeliveryReceipt | undefined;
      await expect(
        first.send(message, (accepted) => {
          again = accepted;
          return Promise.reject(new Error('still unreachable'));
        }),
      ).rejects.toThrow('still unreachable');
      expect(again).toEqual(receipt);
      expect(sink.messages).toHaveLength(1);
    } finally {
      await first.close();
    }
    // A new process on the same journal: the receipt comes back, nothing is sent.
    const second = new SmtpMailer({ url: sink.url, journal });
    try {
      let recorded: DeliveryReceipt | undefined;
      const answered = await second.send(message, (accepted) => {
        recorded = accepted;
        return Promise.resolve();
      });
      expect(recorded).toEqual(receipt);
      expect(answered).toEqual(receipt);
      expect(sink.messages).toHaveLength(1);
      // Recorded at last, the journal forgets it: nothing is left to replay.
      await second.close();
      const rows = new DatabaseSync(journal);
      try {
        expect(rows.prepare('SELECT count(*) AS n FROM accepted').get()).toEqual({ n: 0 });
      } finally {
        rows.close();
      }
    } finally {
      await second.close();
      await sink.close();
    }
  });

  it('keeps the commit point free after a failed send among concurrent ones', async () => {
    const sink = await startSmtpSink({ failFirst: 2 });
    const mailer = new SmtpMailer({ url: sink.url, maxConnections: 3 });
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, () => mailer.send(sampleMessage())),
      );
      const failed = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(failed).toHaveLength(2);
      expect(sink.messages).toHaveLength(6);
      await mailer.send(sampleMessage());
      expect(sink.messages).toHaveLength(7);
    } finally {
      await mailer.close();
      await sink.close();
    }
  });
});
