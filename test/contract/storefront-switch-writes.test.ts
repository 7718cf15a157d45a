// The merchant's storefront switch over HTTP, on a real lowdb ledger: a write the ledger refuses (a flush that
// fails) answers 500 and leaves the switch as it was, and a shop with no loyalty account is told to link one first.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { shopStorefrontApi } from '../../src/http/shop-storefront-api.ts';
import { tempDataDir } from '../helpers/engine.ts';

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function switchOf({ linked }: { linked: boolean }) {
  const dataDir = tempDataDir();
  const store = new LowdbStore({ dataDir, settleAfterMs: 1 });
  await store.open();
  const app = express();
  app.use(express.json());
  // The shop's door: its page's session named the shop.
  app.use((_req, res, next) => {
    res.locals.platform = 'tinyshop';
    res.locals.shop = 'acme';
    next();
  });
  app.use(
    shopStorefrontApi({
      store,
      partsOf: () => ({
        storefront: {
          cors: null,
          entrances: [],
          customer: async () => ({ kind: 'refused' }),
          contact: async () => undefined,
          readiness: async () => ({ ready: true }),
          served: async () => true,
        },
      }),
      accounts: { forShop: async () => (linked ? 'acct' : undefined) },
    }),
  );
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  closers.push(async () => {
    await new Promise((resolve) => server.close(resolve));
    await store.close().catch(() => undefined);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/storefront`;
  return {
    dataDir,
    get: async () => (await fetch(url)).json(),
    put: (on: boolean) =>
      fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ on }) }),
  };
}

describe("the storefront switch's writes", () => {
  it('a write the ledger refuses answers 500 and leaves the switch off', async () => {
    const world = await switchOf({ linked: true });
    // The switch's file cannot be replaced: a directory (with something in it) stands where it goes.
    mkdirSync(join(world.dataDir, 'records', 'storefront.json'), { recursive: true });
    writeFileSync(join(world.dataDir, 'records', 'storefront.json', 'in-the-way'), '');
    const answer = await world.put(true);
    expect(answer.status).toBe(500);
    expect(await world.get()).toEqual({ offered: true, on: false });
  });

  it('refuses to turn it on for a shop with no loyalty account, with the fix', async () => {
    const world = await switchOf({ linked: false });
    const answer = await world.put(true);
    expect(answer.status).toBe(409);
    const body = (await answer.json()) as { errors: string[]; fix: string };
    expect(body.errors).toEqual([
      'Customers cannot see their points yet: this shop is not linked to a loyalty account.',
    ]);
    expect(body.fix).toMatch(/^Link this shop to an account first/);
    expect(await world.get()).toEqual({ offered: true, on: false });
    // Off is always allowed: nothing to show either way.
    expect((await world.put(false)).status).toBe(200);
  });
});
