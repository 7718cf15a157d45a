// What the storefront's refusals leave in the operator's log: a request the store did not sign (401) and one for
// a storefront that is off (404) are what customers' browsers and bots send all day, so they are not warnings.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import { storefrontQuery } from './storefront.ts';
import { SECRET, startTinyBridge, STORE } from './tiny-bridge.ts';

const lines: Array<{ level: number; msg: string; res?: { statusCode: number }; req?: { url: string } }> = [];
const destination = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    done();
  },
});
let world: Awaited<ReturnType<typeof startTinyBridge>>;

beforeAll(async () => {
  world = await startTinyBridge({}, createLogger({ level: 'debug', destination }));
});
afterAll(() => world?.stop());

const WARN = 40;

describe("the storefront's refusals in the log", () => {
  it('logs a forged request (401) and one while the storefront is off (404) below warn', async () => {
    const url = (query: URLSearchParams) => `${world.bridge.http.localUrl}/tinyshop/storefront/points?${query}`;
    const forged = await fetch(url(storefrontQuery('someone-elses-secret-0123456789', STORE, 'c-1')));
    const off = await fetch(url(storefrontQuery(SECRET, STORE, 'c-1')));
    expect([forged.status, off.status]).toEqual([401, 404]);
    // An admin API refusal is still a warning: only the storefront's noise is lowered.
    expect((await fetch(`${world.bridge.http.localUrl}/admin/api/storefront`)).status).toBe(401);
    await new Promise((resolve) => setImmediate(resolve));
    const of = (path: string) => lines.filter((line) => line.req?.url.startsWith(path) && line.res);
    const storefront = of('/tinyshop/storefront/points');
    expect(storefront.map((line) => line.res?.statusCode).sort()).toEqual([401, 404]);
    expect(storefront.every((line) => line.level < WARN)).toBe(true);
    expect(of('/admin/api/storefront').map((line) => line.level)).toEqual([WARN]);
  });
});
