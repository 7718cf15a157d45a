// The outbound policy on its own (src/net/): which redirects are followed,
// which addresses are refused, and in what words. Real servers on 127.0.0.1.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestFilteringHttpAgent } from 'request-filtering-agent';
import { isLoopbackHost, isNonPublicLiteral, isSecureTransport } from '../../src/net/addresses.ts';
import { outboundGot, PUBLIC_ONLY_AGENT_OPTIONS } from '../../src/net/outbound.ts';
import { refusalOf } from '../../src/net/refusal.ts';
import { userAddressRefusal } from '../../src/net/user-address.ts';
import { opensslAvailable, selfSignedCertificate } from '../helpers/https-front.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const servers: Server[] = [];

/** A listener on 127.0.0.1 that notes every request, and every connection even one that never sends a request. */
async function serve(
  handler: Handler,
  tls = false,
): Promise<{ url: string; port: number; seen: string[]; connections: () => number }> {
  const seen: string[] = [];
  let connections = 0;
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    handler(req, res);
  };
  const server: Server = tls ? createHttpsServer(selfSignedCertificate(), onRequest) : createServer(onRequest);
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`, port, seen, connections: () => connections };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const redirectTo =
  (location: string, status = 307): Handler =>
  (_req, res) =>
    void res.writeHead(status, { location }).end();
const ok: Handler = (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
const operator = outboundGot({ userAddress: false }, { retry: { limit: 0 } });

/** A resolver that answers these addresses in turn, then the last one for ever. */
function resolverAnswering(...addresses: string[]): LookupFunction & { calls: number } {
  const answers = [...addresses];
  const lookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    lookup.calls++;
    const address = answers.length > 1 ? answers.shift()! : answers[0]!;
    const family = address.includes(':') ? 6 : 4;
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction & { calls: number };
  lookup.calls = 0;
  return lookup;
}

describe('addresses', () => {
  it.each([
    ['localhost', true],
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['[::1]', true],
    ['[::ffff:127.0.0.1]', true],
    ['10.0.0.5', false],
    ['example.com', false],
    // The system's resolver may ask the network for these.
    ['anything.localhost', false],
  ])('%s is loopback: %s', (host, loopback) => expect(isLoopbackHost(host)).toBe(loopback));

  it.each([
    ['https://example.com/', true],
    ['http://127.0.0.1:4010/', true],
    ['http://localhost/', true],
    ['http://x.localhost:4010/', false],
    ['http://example.com/', false],
    ['http://10.0.0.5/', false],
  ])('%s may carry a credential: %s', (url, secure) => expect(isSecureTransport(new URL(url))).toBe(secure));

  // Every literal the early check refuses, request-filtering-agent refuses too (it answers before connecting).
  it.each([
    '127.0.0.1',
    '10.0.0.5',
    '172.16.3.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::a00:1',
    '::7f00:1',
  ])('%s is refused early and by the agent', async (address) => {
    expect(isNonPublicLiteral(address)).toBe(true);
    const refused = await new Promise<Error | null>((resolve) => {
      new RequestFilteringHttpAgent(PUBLIC_ONLY_AGENT_OPTIONS).createConnection({ host: address, port: 9 }, (error) =>
        resolve(error),
      );
    });
    // The words refusal.ts reads: an upgrade that rewords them fails here.
    expect(refusalOf(refused)).toEqual({ kind: 'private_address', host: address, address });
  });

  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', 'example.com'])(
    '%s is not refused as a literal',
    (host) => expect(isNonPublicLiteral(host)).not.toBe(true),
  );
});

describe('redirects', () => {
  it('follows a redirect within the same scheme, host and port', async () => {
    const server = await serve((req, res) => (req.url === '/old' ? redirectTo('/new', 301)(req, res) : ok(req, res)));
    const response = await operator.get(`${server.url}/old`);
    expect(response.body).toBe('ok');
    expect(server.seen).toEqual(['GET /old', 'GET /new']);
  });

  it('refuses one to another port: the other listener receives nothing', async () => {
    const other = await serve(ok);
    const server = await serve(redirectTo(`${other.url}/elsewhere?key=secret`));
    const error = await operator
      .post(`${server.url}/start`, { json: { secret: 'body-secret' }, headers: { 'x-api-key': 'header-secret' } })
      .catch((caught: unknown) => caught);
    expect(refusalOf(error)).toEqual({
      kind: 'redirect',
      status: 307,
      from: `${server.url}/start`,
      to: `${other.url}/elsewhere`,
    });
    expect(other.connections()).toBe(0);
    // The query string of the Location is never repeated: it can hold a key.
    expect(String((error as Error).message)).not.toContain('secret');
  });

  it('refuses one from https to http, even on the same host and port', async () => {
    // Read by the policy alone: the response is never followed, so no https server is needed here.
    const server = await serve(redirectTo('http://127.0.0.1:1/x', 301));
    const error = await operator.get(`${server.url}/start`).catch((caught: unknown) => caught);
    expect(refusalOf(error)).toMatchObject({ kind: 'redirect', status: 301 });
  });

  it('refuses a redirect in a download (a stream) the same way', async () => {
    const other = await serve(ok);
    const server = await serve(redirectTo(`${other.url}/file`, 302));
    const error = await pipeline(
      operator.stream(`${server.url}/file`),
      new Writable({ write: (_chunk, _encoding, done) => done() }),
    ).catch((caught: unknown) => caught);
    expect(refusalOf(error)).toMatchObject({ kind: 'redirect', status: 302 });
    expect(other.connections()).toBe(0);
  });
});

describe('plain http', () => {
  it('is refused to another machine before anything is sent', async () => {
    const error = await operator.get('http://example.com/').catch((caught: unknown) => caught);
    expect(refusalOf(error)).toEqual({ kind: 'insecure', url: 'http://example.com/' });
  });
});

describe('addresses a user gave', () => {
  it.skipIf(!opensslAvailable)(
    'are refused on the address each connection resolves to, 127.0.0.1 after a public one (DNS rebinding)',
    async () => {
      const server = await serve(ok, true);
      const lookup = resolverAnswering('93.184.216.34', '127.0.0.1');
      // The early check sees the public address...
      expect(
        await userAddressRefusal(new URL(`https://store.rebind.test:${server.port}/`), { allowPrivate: false, lookup }),
      ).toBeUndefined();
      // ...the connection, the next answer: refused there.
      const error = await outboundGot({ userAddress: true, lookup }, { retry: { limit: 0 } })
        .get(`https://store.rebind.test:${server.port}/`)
        .catch((caught: unknown) => caught);
      expect(refusalOf(error)).toEqual({ kind: 'private_address', host: 'store.rebind.test', address: '127.0.0.1' });
      expect(server.connections()).toBe(0);
      expect(lookup.calls).toBe(2);
    },
  );

  it('may be local when the development setting allows it', async () => {
    const server = await serve(ok);
    const response = await outboundGot({ userAddress: true, allowPrivate: true }).get(`${server.url}/`);
    expect(response.body).toBe('ok');
  });

  it.each([
    ['http://127.0.0.1:8080/x', { kind: 'private_address', host: '127.0.0.1', address: '127.0.0.1' }],
    ['https://10.0.0.5/', { kind: 'private_address', host: '10.0.0.5', address: '10.0.0.5' }],
    ['https://localhost/', { kind: 'private_address', host: 'localhost', address: 'this machine' }],
    ['http://store.example/', { kind: 'insecure', url: 'http://store.example/' }],
  ])('%s is refused early', async (address, refusal) => {
    expect(await userAddressRefusal(new URL(address), { allowPrivate: false })).toEqual(refusal);
  });

  it('a name resolving to a private address is refused early; one that does not resolve is left to the connection', async () => {
    expect(
      await userAddressRefusal(new URL('https://intranet.test/'), {
        allowPrivate: false,
        lookup: resolverAnswering('10.1.2.3'),
      }),
    ).toEqual({ kind: 'private_address', host: 'intranet.test', address: '10.1.2.3' });
    const nowhere = ((_host: string, _options: unknown, callback: (error: Error) => void) =>
      callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }))) as unknown as LookupFunction;
    expect(
      await userAddressRefusal(new URL('https://typo.test/'), { allowPrivate: false, lookup: nowhere }),
    ).toBeUndefined();
  });
});
