// The bridge behind https as docs/production.md sets it up (issue 68): the guide's own nginx block, run by Debian's
// nginx in front of a real bridge, and the guide's systemd unit held to the bridge's own stop. A guide whose example
// does not work fails here, not on an operator's host.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { selfSignedCertificate } from '../helpers/https-front.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { NGINX, tools } from '../helpers/test-tools.ts';

const guide = readFileSync(new URL('../../docs/production.md', import.meta.url), 'utf8');
const defaults = JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8')) as Record<
  string,
  number
>;
const ADMIN_TOKEN = 'reverse-proxy-admin-token';

/** The guide's one fenced block in `language`. */
function block(language: string): string {
  const found = [...guide.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))];
  expect(found, `docs/production.md has one \`\`\`${language} block`).toHaveLength(1);
  return found[0]![1]!;
}

/** `text` with `from` replaced by `to`, which the guide must hold exactly once: a changed guide fails loudly. */
function swap(text: string, from: string, to: string): string {
  expect(text.split(from), `docs/production.md's example holds "${from}" once`).toHaveLength(2);
  return text.replace(from, to);
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

interface Answer {
  status: number;
  type: string;
  location: string | undefined;
  body: string;
}

function https(url: string, options: RequestOptions & { body?: string | Buffer } = {}): Promise<Answer> {
  const { body, ...rest } = options;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { ca: selfSignedCertificate().cert, ...rest }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () =>
        resolve({
          status: answer.statusCode ?? 0,
          type: String(answer.headers['content-type'] ?? ''),
          location: answer.headers.location,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

interface Front {
  https: string;
  http: string;
  stop(): Promise<void>;
}

/** Debian's nginx running the guide's block, its ports and certificate swapped for this test's. */
async function startNginx(bridgePort: number): Promise<Front> {
  const dir = mkdtempSync(join(tmpdir(), 'lb-nginx-'));
  chmodSync(dir, 0o755); // nginx's workers run as another user when the tests run as root
  const { key, cert } = selfSignedCertificate();
  writeFileSync(join(dir, 'cert.pem'), cert);
  writeFileSync(join(dir, 'key.pem'), key);
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  let site = block('nginx');
  site = swap(site, 'listen 80;', `listen 127.0.0.1:${httpPort};`);
  site = swap(site, 'listen 443 ssl;', `listen 127.0.0.1:${httpsPort} ssl;`);
  site = swap(site, '/etc/letsencrypt/live/bridge.example.com/fullchain.pem', join(dir, 'cert.pem'));
  site = swap(site, '/etc/letsencrypt/live/bridge.example.com/privkey.pem', join(dir, 'key.pem'));
  site = swap(site, 'http://127.0.0.1:3000', `http://127.0.0.1:${bridgePort}`);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `${kind}_temp_path ${dir}/${kind};`);
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;\nworker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\n` +
      `events { worker_connections 64; }\nhttp {\naccess_log off;\n${temp.join('\n')}\n${site}\n}\n`,
  );
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await listening(child, httpsPort, () => readFileSync(join(dir, 'error.log'), 'utf8'));
  return {
    https: `https://127.0.0.1:${httpsPort}`,
    http: `http://127.0.0.1:${httpPort}`,
    stop: async () => {
      child.kill('SIGQUIT');
      await exited;
    },
  };
}

/** Resolves once nginx takes connections on `port`; fails with nginx's own error log if it exits first. */
async function listening(child: ChildProcess, port: number, log: () => string): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${log()}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('error', () => resolve(false));
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  child.kill('SIGKILL');
  throw new Error(`nginx did not listen: ${log()}`);
}

describe.skipIf(!tools.nginx || !tools.openssl)('the bridge behind nginx, as docs/production.md sets it up', () => {
  let bridge: RunningBridge;
  let front: Front;
  beforeAll(async () => {
    bridge = await startTestBridge({ SHOPIFY_API_SECRET: SHOPIFY_SECRET, ADMIN_TOKEN });
    front = await startNginx(Number(new URL(bridge.http.localUrl).port));
  });
  afterAll(async () => {
    await front?.stop();
    await bridge?.stop();
  });

  const deliver = (body: string | Buffer, headers: Record<string, string>) =>
    https(`${front.https}/webhooks/shopify`, { method: 'POST', headers, body });

  it('takes a signed Shopify delivery over https, and the order earns', async () => {
    const body = shopifyOrderJson({ id: '7001001' });
    const answer = await deliver(body, shopifyHeaders({ topic: 'orders/paid', body }));
    expect([answer.status, JSON.parse(answer.body)]).toEqual([200, expect.objectContaining({ result: 'accepted' })]);
    await bridge.engine.drain();
    const earning = bridge.sandbox?.store.snapshot().earnings.find(({ orderId }) => orderId === '7001001');
    expect(earning).toMatchObject({ points: 100, status: 'pending' });
  });

  it('passes a forged delivery to the bridge, which refuses it', async () => {
    const body = shopifyOrderJson({ id: '7001002' });
    const answer = await deliver(body, shopifyHeaders({ topic: 'orders/paid', body, secret: 'not-the-secret' }));
    expect(answer.status).toBe(401);
  });

  it('lets the bridge answer a delivery over its limit in its own words', async () => {
    const body = Buffer.alloc(defaults.WEBHOOK_MAX_BODY_BYTES! + 100_000, ' ');
    const answer = await deliver(body, shopifyHeaders({ topic: 'orders/paid', body }));
    expect([answer.status, answer.type]).toEqual([413, expect.stringContaining('application/json')]);
  });

  it('serves the health check and the admin API, and sends plain http to https', async () => {
    expect(JSON.parse((await https(`${front.https}/healthz`)).body)).toEqual({ status: 'ok' });
    const status = await https(`${front.https}/admin/api/status`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(status.status).toBe(200);
    const plain = await fetch(`${front.http}/healthz`, { redirect: 'manual' });
    expect([plain.status, plain.headers.get('location')]).toEqual([301, 'https://127.0.0.1/healthz']);
  });
});

describe("docs/production.md's systemd unit", () => {
  const unit = block('ini');
  const setting = (name: string) => unit.match(new RegExp(`^${name}=(.*)$`, 'm'))?.[1];

  it('starts the bridge as the repository does, and waits out its clean stop before a kill', () => {
    expect(setting('ExecStart')).toBe('/usr/bin/node bin/loyalty-bridge.js start');
    expect(setting('KillSignal')).toBe('SIGTERM');
    const stop = defaults.SHUTDOWN_GRACE_SECONDS! + defaults.SHUTDOWN_TIMEOUT_MS! / 1000;
    expect(Number(setting('TimeoutStopSec'))).toBeGreaterThan(stop);
    expect(setting('ReadWritePaths')).toBe(guide.match(/^DATA_DIR=(\S+)/m)?.[1]);
  });
});
