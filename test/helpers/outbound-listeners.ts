// Servers for tests of where the bridge's outbound requests may go: one that
// redirects everything, one that notes everything it receives (the place a
// credential must never reach: every connection is counted, even one that
// never sends a request), and one port that speaks both https and plain http,
// as a host does whose https site redirects to http on the same host.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { selfSignedCertificate } from './https-front.ts';

export interface Received {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Recorder {
  url: string;
  port: number;
  received: Received[];
  connections(): number;
  /** Everything it received, as one text: to look for a secret in. */
  everything(): string;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function recording(received: Received[], handler: Handler): Handler {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      handler(req, res);
    });
  };
}

async function listening(server: Server | NetServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function closing(server: Server | NetServer): Promise<void> {
  if ('closeAllConnections' in server) server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

const answerOk: Handler = (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');

/** A listener on 127.0.0.1 (over https with `tls`) that answers 200 {} and keeps what it received. */
export async function startRecorder(tls = false): Promise<Recorder> {
  const received: Received[] = [];
  let connections = 0;
  const server = tls
    ? createHttpsServer(selfSignedCertificate(), recording(received, answerOk))
    : createHttpServer(recording(received, answerOk));
  server.on('connection', () => connections++);
  const port = await listening(server);
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    received,
    connections: () => connections,
    everything: () => JSON.stringify(received),
    close: () => closing(server),
  };
}

/** A server on 127.0.0.1 that answers every request with this redirect; `location` gets the request's path and query. */
export async function startRedirector(
  status: number,
  location: (path: string) => string,
  tls = false,
): Promise<{ url: string; port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const handler = recording(
    received,
    (req, res) => void res.writeHead(status, { location: location(req.url ?? '/') }).end(),
  );
  const server = tls ? createHttpsServer(selfSignedCertificate(), handler) : createHttpServer(handler);
  const port = await listening(server);
  return { url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`, port, received, close: () => closing(server) };
}

/**
 * One port, both protocols: https answers every request with a 301 to the
 * same address over http; plain http is recorded. A TLS handshake starts
 * with byte 22 (handshake record), an HTTP request with a letter.
 */
export async function startHttpsRedirectingToHttp(): Promise<{
  httpsUrl: string;
  plain: Recorder;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  let plainConnections = 0;
  let port = 0;
  const plain = createHttpServer(recording(received, answerOk));
  const secure = createHttpsServer(
    selfSignedCertificate(),
    (req, res) => void res.writeHead(301, { location: `http://127.0.0.1:${port}${req.url ?? '/'}` }).end(),
  );
  const front = createNetServer((socket) => {
    socket.once('readable', () => {
      const first = socket.read(1) as Buffer | null;
      if (!first) return void socket.destroy();
      socket.unshift(first);
      if (first[0] === 22) return void secure.emit('connection', socket);
      plainConnections++;
      plain.emit('connection', socket);
    });
  });
  port = await listening(front);
  const close = async () => {
    plain.closeAllConnections();
    secure.closeAllConnections();
    await closing(front);
  };
  return {
    httpsUrl: `https://127.0.0.1:${port}`,
    plain: {
      url: `http://127.0.0.1:${port}`,
      port,
      received,
      connections: () => plainConnections,
      everything: () => JSON.stringify(received),
      close,
    },
    close,
  };
}
