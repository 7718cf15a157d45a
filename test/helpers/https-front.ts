// The bridge behind https, as it runs in production behind a TLS-terminating
// proxy: WooCommerce sends a store's keys only to an https callback_url, so
// tests of the connect flow reach the bridge through this front. Its address
// is known before the bridge starts (PUBLIC_URL); the bridge it forwards to
// is set once that has started. The certificate is a throwaway one, made
// with openssl.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tools } from './test-tools.ts';

export const opensslAvailable = tools.openssl;

let certificate: { key: string; cert: string } | undefined;

/** One self-signed certificate per test process, for 127.0.0.1 and localhost. */
export function selfSignedCertificate(): { key: string; cert: string } {
  if (certificate) return certificate;
  const dir = mkdtempSync(join(tmpdir(), 'lb-front-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  certificate = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  return certificate;
}

export interface HttpsFront {
  /** https://127.0.0.1:<port> */
  url: string;
  /** Where requests go: the bridge's own http address. */
  forwardTo(url: string): void;
  close(): Promise<void>;
}

export async function startHttpsFront(): Promise<HttpsFront> {
  let target: URL | undefined;
  const server: Server = createServer(selfSignedCertificate(), (req, res) => {
    if (!target) {
      res.writeHead(502).end('no bridge behind the front yet');
      return;
    }
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-proto': 'https' },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    forwardTo(url) {
      target = new URL(url);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
