import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

import { startSmtpSink, type SmtpSink } from '@stamp/testkit/smtp-sink.ts';

import { mailerContract, sampleMessage } from './mailer.contract.ts';
import { DeliveryError } from './mailer.ts';
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

  it('runs commits one at a time across 20 concurrent sends, and delivers all of them', async () => {
    const sink = await startSmtpSink();
    const mailer = new SmtpMailer({ url: sink.url, maxConnections: 5 });
    try {
      const spans: { enter: number; exit: number }[] = [];
      const messages = Array.from({ length: 20 }, () => sampleMessage());
      await Promise.all(
        messages.map((message) =>
          mailer.send(message, async () => {
            const enter = performance.now();
            await new Promise((resolve) => setTimeout(resolve, 20));
            spans.push({ enter, exit: performance.now() });
          }),
        ),
      );
      expect(spans).toHaveLength(20);
      spans.sort((left, right) => left.enter - right.enter);
      for (let index = 1; index < spans.length; index++) {
        const previous = spans[index - 1];
        const current = spans[index];
        if (previous === undefined || current === undefined) throw new Error('missing span');
        expect(current.enter).toBeGreaterThanOrEqual(previous.exit);
      }
      expect(sink.messages).toHaveLength(20);
      for (const message of messages) expect(deliveredTo(sink, message.emailId)).toBeDefined();
    } finally {
      await mailer.close();
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
