/**
 * A webhook receiver on loopback for tests and benchmarks: a real HTTP server that records every
 * request (raw body and headers, for signature checks) and answers with the status `respond`
 * chooses, or drops the connection while it is `down`.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as received. */
export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, UTF-8. */
  body: string;
  /** Epoch ms of its arrival. */
  at: number;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks` */
  url: string;
  /** Every request so far, in order of arrival (dropped ones included). */
  readonly received: ReceivedWebhook[];
  /**
   * The answer's status for a request, given it and how many requests with the same
   * `webhook-id` came before it; default 200.
   */
  respond: (request: ReceivedWebhook, previousAttempts: number) => number;
  /** While true, each request's connection is destroyed without an answer. */
  down: boolean;
  close(): Promise<void>;
}

/** Starts a {@link WebhookReceiver} on 127.0.0.1 and a free port. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const attempts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    respond: () => 200,
    down: false,
    close: () => Promise.resolve(),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedWebhook = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      receiver.received.push(request);
      if (receiver.down) {
        req.socket.destroy();
        return;
      }
      const id = String(req.headers['webhook-id'] ?? '');
      const before = attempts.get(id) ?? 0;
      attempts.set(id, before + 1);
      res.writeHead(receiver.respond(request, before), { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => {
        resolve();
      });
    });
  return receiver;
}
