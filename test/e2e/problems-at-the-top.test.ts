// The case, end to end: the operator makes an account at the bridge's own sandbox address by hand (on
// this machine, so the bridge refuses to send there), links a shop to it, and 9 orders become dead letters. The
// admin API's status and `loyalty-bridge status` name the problems at the top, each with the fix for its cause
// (the address, not the key), the dead letters by the orders' names; another shop's merchant sees none of it.
// And an account made on the bridge's sandbox, as the operator may now, is connected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import {
  APP_SECRET,
  asOperator,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';

const SHOP = 'unreached.myshopify.com';
const OTHER = 'neighbour.myshopify.com';
const ADMIN_TOKEN = 'problems-at-the-top-admin-token-0123';
const ORDERS = 9;

let fake: FakeShopify;
let running: ShopifyAppBridge;
let account = '';

const admin = asOperator(() => running, ADMIN_TOKEN);

async function paidOrder(shop: string, id: string): Promise<void> {
  const body = shopifyOrderJson({ id });
  const headers = shopifyHeaders({ topic: 'orders/paid', body, shop, secret: APP_SECRET });
  expect((await fetch(`${running.url}/webhooks/shopify`, { method: 'POST', headers, body })).status).toBe(200);
}

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  fake.install(SHOP);
  fake.install(OTHER);
  // Sandbox mode, as a first run is: an address on this machine is refused for an account given by hand.
  running = await startShopifyAppBridge(fake, { SHOPIFY_SHOPS: `${SHOP},${OTHER}`, ADMIN_TOKEN });
  const { apiKey, brandId } = running.bridge.sandbox!.accounts[0]!.credentials;
  const made = await admin('POST', '/accounts', {
    name: 'By hand on the sandbox',
    baseUrl: running.bridge.loyaltyBaseUrl,
    apiKey,
    brandId,
  });
  expect(made.status).toBe(201);
  account = made.body.account.id;
  expect(made.body.account.check).toMatchObject({ status: 'unreachable' });
  expect((await admin('PATCH', `/shops/shopify/${SHOP}`, { account })).status).toBe(200);
  for (let n = 0; n < ORDERS; n++) await paidOrder(SHOP, String(9000301 + n));
  await running.bridge.engine.drain();
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

describe('problems reach the top', () => {
  it('gives the 9 dead letters, with their orders’ names, and the refused address in the admin API’s status', async () => {
    const { body } = await admin('GET', '/status');
    expect(body.deadLetters).toBe(ORDERS);
    const kinds = (body.problems as Array<{ kind: string }>).map((problem) => problem.kind);
    expect(kinds).toEqual(['dead_letters', 'address_refused']);
    const [letters, address] = body.problems;
    expect(letters.count).toBe(ORDERS);
    expect(letters.cause).toMatch(/^9 dead letters.*\(orders #0309, #0308, #0307 and 6 more\)/);
    expect(letters.fix).toMatch(/^Put right the problem below first, then retry them/);
    // The address is the cause, not the key: the fix says to change it, or to use the sandbox option.
    expect(address.cause).toMatch(
      /will not send its calls to http:\/\/127\.0\.0\.1:\d+\/sandbox: 127\.0\.0\.1 is not a public internet address/,
    );
    expect(address.cause).toMatch(/Its key was never tried/);
    expect(address.fix).toMatch(/public https address/);
    expect(address.fix).toMatch(/On this bridge's sandbox/);
    expect(`${address.cause} ${address.fix}`).not.toMatch(/key or brand id right/);
  });

  it('names each dead letter’s order as the store shows it, beside its key', async () => {
    const { body } = await admin('GET', '/dead-letters');
    expect(body.deadLetters).toHaveLength(ORDERS);
    expect(body.deadLetters[0]).toMatchObject({ orderKey: `shopify:${SHOP}:9000309`, orderName: '#0309' });
    const one = await admin('GET', `/dead-letters/${body.deadLetters[0].id}`);
    expect(one.body.deadLetter.orderName).toBe('#0309');
  });

  it('prints each problem as a !! line in status, with its cause and fix', async () => {
    const status = await runCli(['status', '--url', running.url, '--token', ADMIN_TOKEN], {});
    expect(status.code).toBe(0);
    const lines = status.stdout.split('\n').filter((line) => line.startsWith('!!'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^!! 9 dead letters.*#0309.*retry them/);
    expect(lines[1]).toMatch(
      /^!! Account By hand on the sandbox .*not a public internet address.*public https address/,
    );
    expect(status.stdout).not.toMatch(/key or brand id right/);
  });

  it('tells the operator who made the account that the address is what was refused', async () => {
    const created = await runCli(
      [
        'accounts',
        'create',
        '--url',
        running.url,
        '--token',
        ADMIN_TOKEN,
        '--name',
        'Again by hand',
        '--base-url',
        running.bridge.loyaltyBaseUrl,
        '--api-key',
        'not-the-point-0000',
        '--brand-id',
        'brand',
      ],
      {},
    );
    expect(created.stdout).toMatch(/credentials unreachable: .*not a public internet address/);
    expect(created.stdout).toMatch(/!! the bridge will not send calls to that address, so its key was never tried/);
    expect(created.stdout).toMatch(/accounts create --sandbox/);
    expect(created.stdout).not.toMatch(/put the key or brand id right/);
    const id = /created (\S+)/.exec(created.stdout)![1]!;
    expect((await admin('DELETE', `/accounts/${id}`)).status).toBe(200);
  });

  it('shows the shop’s merchant its own dead letters and the address, and another shop’s merchant none of it', async () => {
    const own = (await asShop(running, SHOP).get('/attention')).body.attention as Array<Record<string, string>>;
    expect(own.map((item) => item.kind)).toEqual(['address_refused', 'dead_letters']);
    expect(own[1]!.why).toMatch(/^9 orders or deliveries of this store could not go on \(orders #0309/);
    // The operator's account: whom to ask, not the operator's address.
    expect(own[0]!.fix).toMatch(/Ask the bridge’s operator/);
    const other = await asShop(running, OTHER).get('/attention');
    expect(other.body.attention).toEqual([]);
    expect(other.text).not.toMatch(/#030|9000|unreached|dead/);
    expect((await asShop(running, OTHER).get('/dead-letters')).body.deadLetters).toEqual([]);
  });

  it('lets the operator make an account on the bridge’s own sandbox, connected, as a merchant may', async () => {
    const made = await admin('POST', '/accounts', { sandbox: true, name: 'Operator’s trial' });
    expect(made.status).toBe(201);
    expect(made.body.account).toMatchObject({
      name: 'Operator’s trial',
      onBridgeSandbox: true,
      madeFor: null,
      check: { status: 'connected' },
    });
    // With it, the shop's orders go: its dead letters, retried, are sent.
    expect((await admin('PATCH', `/shops/shopify/${SHOP}`, { account: made.body.account.id })).status).toBe(200);
    const refused = await admin('POST', '/accounts', { sandbox: true, apiKey: 'x' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      'apiKey: is not given with sandbox (the sandbox makes the address and credentials)',
    ]);
    const cli = await runCli(
      ['accounts', 'create', '--sandbox', '--name', 'From the CLI', '--url', running.url, '--token', ADMIN_TOKEN],
      {},
    );
    expect(cli.stdout).toMatch(/created \S+ \(From the CLI\) on the bridge's sandbox: credentials connected/);
  });
});
