// Keys that come from outside (a URL, a platform's payload) are looked up in
// Maps or objects without a prototype: the names of Object.prototype are keys
// like any other, found nowhere, answered 404, and never a 500 or an empty
// order. On both backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { SHOPIFY_SECRET } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const TOKEN = 'outside-keys-admin-token-0123456789';
const NAMES = ['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty', '__defineGetter__'];

describe.each([
  ['lowdb', true],
  ['postgres', postgresAvailable()],
])('on %s', (backend, available) => {
  let bridge: RunningBridge;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (!available) return;
    database = backend === 'postgres' ? await freshDatabase() : undefined;
    bridge = await startTestBridge({
      ADMIN_TOKEN: TOKEN,
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      RECONCILE_INTERVAL_MINUTES: '0',
      ...(database ? { DATABASE_URL: database.url } : {}),
    });
  });
  afterAll(async () => {
    await bridge?.stop();
    await database?.drop();
  });

  const get = async (path: string) => {
    const response = await fetch(`${bridge.http.localUrl}/admin/api${path}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it
    .skipIf(!available)
    .each(
      NAMES.flatMap((name) => [
        `/orders/${name}`,
        `/orders/shopify:lb-test-store.myshopify.com:${name}`,
        `/dead-letters/${name}`,
        `/resync/${name}`,
      ]),
    )('answers 404 to %s', async (path) => {
    const answer = await get(path);
    expect(answer.status).toBe(404);
    expect(answer.body.order ?? answer.body.deadLetter ?? answer.body.job).toBeUndefined();
  });

  it.skipIf(!available)('keeps records under those names like any other, and finds nothing there before', async () => {
    const store = bridge.engine.store;
    for (const name of NAMES) expect(await store.getRecord(raw('resync-job'), name)).toBeUndefined();
    await store.putRecord(raw('resync-job'), '__proto__', { id: '__proto__' });
    expect(await store.getRecord(raw('resync-job'), '__proto__')).toEqual({ id: '__proto__' });
    expect(await store.getRecord(raw('resync-job'), 'constructor')).toBeUndefined();
    expect(({} as Record<string, unknown>).id).toBeUndefined();
  });
});
