import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

import type { Caller } from '@stamp/contracts';
import { errorHandler, notFoundHandler, requestId } from '@stamp/http-kit';
import { createLogger } from '@stamp/platform';
import express, { type Router } from 'express';

import { fetchJson } from './net.ts';

/** A router served on a loopback port for API tests, behind the envelope and a fixed caller. */
export interface ServedRouter {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Sends a JSON request; returns status, parsed body and headers. */
  request(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown; headers: Headers }>;
  close(): Promise<void>;
}

/**
 * Serves `router` on 127.0.0.1 with JSON parsing, request ids and the error envelope, as the
 * gateway would, with `caller` as the authenticated caller.
 */
export async function serveRouter(
  router: Router,
  caller: Omit<Caller, 'requestId'>,
): Promise<ServedRouter> {
  const app = express();
  app.use(requestId());
  app.use(express.json({ limit: '45mb' }));
  app.use((_req, res, next) => {
    (res.locals as { caller?: Caller }).caller = {
      ...caller,
      requestId: (res.locals as { requestId: string }).requestId,
    };
    next();
  });
  app.use(router);
  app.use(notFoundHandler());
  app.use(errorHandler(createLogger({ level: 'silent' })));
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => {
      resolve(listening);
    });
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    request: (method, path, body) => fetchJson(url + path, { method, body }),
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
      }),
  };
}
