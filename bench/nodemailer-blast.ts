import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';

import { noDelaySocket } from './harness.ts';

/**
 * The ceiling of `bench campaign`, in a process of its own as Stamp is: a plain nodemailer pool
 * of 5 connections with DKIM (a 2048-bit RSA key) blasting `COUNT` messages of the campaign's
 * size to the SMTP sink at `SINK_URL`, 50 at a time. Its sockets disable Nagle's algorithm, as
 * Stamp's do: with it, each message waits for delayed ACKs and the pool stalls near 330/s on
 * loopback whatever the CPU. Prints its emails/s on stdout.
 */
const sinkUrl = process.env.SINK_URL;
const count = Number(process.env.COUNT ?? 20_000);
if (sinkUrl === undefined) throw new Error('SINK_URL is required');

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const sink = new URL(sinkUrl);
const transport = nodemailer.createTransport({
  host: sink.hostname,
  port: Number(sink.port),
  getSocket: noDelaySocket(sink.hostname, Number(sink.port)),
  pool: true,
  maxConnections: 5,
  maxMessages: Infinity,
  dkim: {
    domainName: 'bench.test',
    keySelector: 'bench',
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  },
});
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 50 }, async () => {
    while (next < count) {
      const index = next++;
      await transport.sendMail({
        from: 'news@bench.test',
        to: `p${index}@example.org`,
        subject: `News for ${index}`,
        html: `<p>Hello person ${index}, here is the news.</p>`,
      });
    }
  }),
);
transport.close();
process.stdout.write(`${count / ((performance.now() - started) / 1000)}\n`);
