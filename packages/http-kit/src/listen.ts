import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Express } from 'express';

/** A listening HTTP server (see {@link listen}). */
export interface ListeningServer {
  /** Base URL, for example `http://127.0.0.1:3000` (the bound port when 0 was asked). */
  url: string;
  /** The Node server, for tuning timeouts. */
  server: Server;
  /**
   * Graceful stop: stops accepting connections, lets in-flight requests finish (their
   * keep-alive connections are then closed), and resolves when every connection is closed.
   * After `forceAfterMs` (default 30 000 ms) the remaining connections are closed.
   */
  close(forceAfterMs?: number): Promise<void>;
}

function urlHost(address: AddressInfo): string {
  if (address.address === '0.0.0.0') return '127.0.0.1';
  if (address.address === '::') return '[::1]';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

/**
 * Starts serving `app` on `host:port` (port 0 picks a free port).
 * @throws the listen error (for example EADDRINUSE).
 */
export async function listen(
  app: Express,
  options: { port: number; host: string },
): Promise<ListeningServer> {
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${urlHost(address)}:${address.port}`,
    server,
    close(forceAfterMs = 30_000) {
      closing ??= new Promise<void>((resolve, reject) => {
        // Requests that arrive on kept-alive connections during the drain close them after.
        server.prependListener('request', (_req, res) => {
          res.setHeader('Connection', 'close');
        });
        const sweep = setInterval(() => {
          server.closeIdleConnections();
        }, 50);
        const force = setTimeout(() => {
          server.closeAllConnections();
        }, forceAfterMs);
        server.close((error) => {
          clearInterval(sweep);
          clearTimeout(force);
          if (error === undefined) resolve();
          else reject(error);
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
