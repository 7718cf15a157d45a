// Listening and stopping, shared by the bridge and the standalone sandbox.
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  server: Server;
  port: number;
  /** Where a process on this machine reaches the server. */
  localUrl: string;
  close(): Promise<void>;
}

/** After a stop, connections still busy get this long to finish their request before they are cut. */
const CLOSE_DEADLINE_MS = 5_000;

export function listen(handler: RequestListener, port: number, host: string): Promise<Listening> {
  return new Promise((resolve, reject) => {
    let closing = false;
    const unanswered = new Set<ServerResponse>();
    const server = createServer(handler).listen(port, host);
    // A keep-alive client that sends again and again (a load balancer's health
    // check) would keep its connection busy, and a stop waiting, forever: once
    // stopping, every answer not yet begun closes its connection.
    server.prependListener('request', (_request, response) => {
      if (closing) response.shouldKeepAlive = false;
      else {
        unanswered.add(response);
        response.once('close', () => unanswered.delete(response));
      }
    });
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address() as AddressInfo;
      resolve({
        server,
        port: address.port,
        localUrl: `http://${loopbackFor(host)}:${address.port}`,
        close: () =>
          new Promise<void>((done) => {
            closing = true;
            for (const response of unanswered) if (!response.headersSent) response.shouldKeepAlive = false;
            const deadline = setTimeout(() => server.closeAllConnections(), CLOSE_DEADLINE_MS).unref();
            server.close(() => {
              clearTimeout(deadline);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}

/** A wildcard bind address is not a place to connect to; the loopback of the same family is. */
function loopbackFor(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
