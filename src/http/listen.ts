// Listening and stopping, shared by the bridge and the standalone sandbox.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  server: Server;
  port: number;
  /** Where a process on this machine reaches the server. */
  localUrl: string;
  close(): Promise<void>;
}

export function listen(handler: RequestListener, port: number, host: string): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = createServer(handler).listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address() as AddressInfo;
      resolve({
        server,
        port: address.port,
        localUrl: `http://${loopbackFor(host)}:${address.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
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
