// Connecting a store's WordPress plugin (adapters/woocommerce/plugin-connect.ts, docs/wordpress-plugin.md §1), on
// both of the ledger's backends: a code works once, for its own store, for 15 minutes; asking again replaces it; two
// exchanges of one code at once give one key; a key the ledger failed to save leaves the code usable; and the
// ledger keeps only the code's hash.
import { describe, expect, it } from 'vitest';
import { issuePluginCode, pluginConnectRoute } from '../../adapters/woocommerce/plugin-connect.ts';
import { pluginKeyOf } from '../../adapters/woocommerce/plugin-keys.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { createLogger } from '../../src/logger.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { storeWith } from '../helpers/store-with.ts';
import { raw } from '../helpers/raw-records.ts';

const BRIDGE = 'https://bridge.example';
const SHOP = 'store.example/shop';
const SITE = 'https://www.store.example/shop/';
const logger = createLogger({ level: 'silent' });

async function exchange(store: LedgerStore, body: unknown, now?: Date) {
  const route = pluginConnectRoute({ store, logger, ...(now ? { now: () => now } : {}) });
  const answer = await route.handle(
    new Request(`http://bridge.example/woocommerce${route.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    }),
  );
  return { status: answer.status, json: (await answer.json()) as Record<string, unknown> };
}

describe.each(ledgerBackends())('the plugin’s connection code (%s)', (_name, available, open) => {
  it.skipIf(!available)('carries the bridge’s address, and is exchanged once for its store’s key', async () => {
    const store = await open();
    const { code, expiresAt } = await issuePluginCode(store, SHOP, `${BRIDGE}/`);
    const [prefix, address, secret] = code.split('.');
    expect(prefix).toBe('lb1');
    expect(Buffer.from(address!, 'base64url').toString()).toBe(BRIDGE);
    expect(secret).toMatch(/^[\w-]{43}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(JSON.stringify(await store.listRecords(raw('woo-plugin-code')))).not.toContain(secret);

    const answer = await exchange(store, { code, siteUrl: SITE, pluginVersion: '1.0.0' });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      store: SHOP,
      keyId: expect.stringMatching(/^pk_[\w-]{12}$/),
      key: expect.stringMatching(/^[\w-]{43}$/),
    });
    const kept = await pluginKeyOf(store, SHOP);
    expect(kept).toMatchObject({ shop: SHOP, keyId: answer.json.keyId, key: answer.json.key, pluginVersion: '1.0.0' });

    const again = await exchange(store, { code, siteUrl: SITE });
    expect(again).toEqual({ status: 400, json: { error: expect.stringContaining('unknown or was used') } });
    expect((await pluginKeyOf(store, SHOP))?.key).toBe(answer.json.key);
  });

  it.skipIf(!available)('is refused for another store’s site, and still works for its own', async () => {
    const store = await open();
    const { code } = await issuePluginCode(store, SHOP, BRIDGE);
    const elsewhere = await exchange(store, { code, siteUrl: 'https://store.example/' });
    expect(elsewhere).toEqual({ status: 400, json: { error: expect.stringContaining('another store') } });
    expect(JSON.stringify(elsewhere.json)).not.toContain('store.example');
    expect(await pluginKeyOf(store, 'store.example')).toBeUndefined();
    expect((await exchange(store, { code, siteUrl: SITE })).status).toBe(200);
  });

  it.skipIf(!available)('expires after 15 minutes, and asking again replaces the earlier code', async () => {
    const store = await open();
    const first = await issuePluginCode(store, SHOP, BRIDGE);
    const late = new Date(Date.now() + 15 * 60_000 + 1000);
    expect(await exchange(store, { code: first.code, siteUrl: SITE }, late)).toEqual({
      status: 400,
      json: { error: expect.stringContaining('expired') },
    });
    const second = await issuePluginCode(store, SHOP, BRIDGE);
    const third = await issuePluginCode(store, SHOP, BRIDGE);
    expect((await exchange(store, { code: second.code, siteUrl: SITE })).status).toBe(400);
    expect((await exchange(store, { code: third.code, siteUrl: SITE })).status).toBe(200);
    expect(await store.listRecords(raw('woo-plugin-code'))).toEqual([]);
  });

  it.skipIf(!available)('gives one key when one code is exchanged twice at once', async () => {
    const store = await open();
    for (let round = 0; round < 5; round++) {
      const { code } = await issuePluginCode(store, SHOP, BRIDGE);
      const answers = await Promise.all([
        exchange(store, { code, siteUrl: SITE }),
        exchange(store, { code, siteUrl: SITE }),
      ]);
      expect(answers.map((each) => each.status).sort()).toEqual([200, 400]);
      const winner = answers.find((each) => each.status === 200)!;
      expect((await pluginKeyOf(store, SHOP))?.key).toBe(winner.json.key);
    }
  });

  it.skipIf(!available)('refuses what is not a code or not JSON, naming no store', async () => {
    const store = await open();
    for (const body of [
      'not json',
      { code: 'lb1.abc.def', siteUrl: SITE },
      { siteUrl: SITE },
      { code: 'x', siteUrl: 7 },
    ])
      expect((await exchange(store, body)).status).toBe(400);
    const { code } = await issuePluginCode(store, SHOP, BRIDGE);
    expect((await exchange(store, { code, siteUrl: 'not a url at all' })).status).toBe(400);
  });

  it.skipIf(!available)('keeps the code usable when the key could not be saved', async () => {
    const store = await open();
    const { code } = await issuePluginCode(store, SHOP, BRIDGE);
    let failing = true;
    const flaky = storeWith(store, {
      putRecord: async (kind, id, value) => {
        if (kind.kind === 'woo-plugin-key' && failing) throw new Error('injected: the ledger refused the write');
        return store.putRecord(kind, id, value);
      },
    });
    const refused = await exchange(flaky, { code, siteUrl: SITE });
    expect(refused).toEqual({ status: 503, json: { error: expect.stringContaining('press Connect again') } });
    expect(await pluginKeyOf(store, SHOP)).toBeUndefined();
    // The merchant presses Connect again with the same code, and it works.
    failing = false;
    expect((await exchange(flaky, { code, siteUrl: SITE })).status).toBe(200);
    expect(await pluginKeyOf(store, SHOP)).toBeDefined();
  });
});
