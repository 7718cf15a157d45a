// Two problems that reach the top, end to end: an account whose calls a minute are used up for longer than the
// bridge lets pass (given a short while here, as the engine may be), and a shop on no account whose orders are
// held. The admin API's status, `loyalty-bridge status` and each shop's merchant's Home say so, with the fix;
// a neighbouring shop on another account sees nothing of either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.ts';
import { eventually } from '../helpers/engine.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import {
  asOperator,
  asShop,
  deliverPaidOrders,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';

const SPENT = 'few-calls.myshopify.com';
const HELD = 'no-account-yet.myshopify.com';
const NEIGHBOUR = 'next-door.myshopify.com';
const ADMIN_TOKEN = 'spent-and-held-admin-token-0123';
/** How long the bridge lets an account's calls be used up before it is a problem (3 minutes when not told). */
const SPENT_LONG_MS = 300;
const HELD_ORDERS = 2;

let fake: FakeShopify;
let running: ShopifyAppBridge;
let account = '';

const admin = asOperator(() => running, ADMIN_TOKEN);

const problemsOf = async (kind: string) =>
  ((await admin('GET', '/status')).body.problems as Array<Record<string, any>>).filter(
    (problem) => problem.kind === kind,
  );
const homeOf = async (shop: string) =>
  (await asShop(running, shop).get('/attention')).body.attention as Array<Record<string, any>>;

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  for (const shop of [SPENT, HELD, NEIGHBOUR]) fake.install(shop);
  // SPENT and NEIGHBOUR are the operator's (on the default account until linked); HELD an open install, on none.
  running = await startShopifyAppBridge(
    fake,
    { SHOPIFY_SHOPS: `${SPENT},${NEIGHBOUR}`, SHOPIFY_OPEN_INSTALLS: 'true', ADMIN_TOKEN },
    undefined,
    { budgetSpentLongMs: SPENT_LONG_MS },
  );
  const made = await admin('POST', '/accounts', { sandbox: true, name: 'Few calls' });
  expect(made.status).toBe(201);
  account = made.body.account.id;
  // One call a minute: its second order finds the calls used up, for the rest of the minute.
  expect((await admin('PATCH', `/accounts/${account}`, { rateLimitPerMinute: 1 })).status).toBe(200);
  expect((await admin('PATCH', `/shops/shopify/${SPENT}`, { account })).status).toBe(200);
  await deliverPaidOrders(running, [
    [SPENT, '9000401'],
    [SPENT, '9000402'],
    [SPENT, '9000403'],
    ...Array.from({ length: HELD_ORDERS }, (_, n) => [HELD, String(9000501 + n)] as const),
    [NEIGHBOUR, '9000601'],
  ]);
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

describe('an account’s calls used up for long', () => {
  it('is a problem at the top of the admin API’s status, with its fix, once it has lasted', async () => {
    await eventually(async () => expect(await problemsOf('budget_spent')).toHaveLength(1));
    const [spent] = await problemsOf('budget_spent');
    expect(spent).toMatchObject({ account, label: 'Few calls: calls used up' });
    expect(spent!.cause).toMatch(
      new RegExp(
        `^Account Few calls \\(${account}\\) has used every call it may make a minute for less than a minute: its orders wait`,
      ),
    );
    expect(spent!.fix).toMatch(/^Nothing is lost: they go as calls free up\./);
    expect(spent!.fix).toContain(`loyalty-bridge accounts set ${account} rateLimitPerMinute=…`);
  });

  it('prints it as a !! line in status', async () => {
    await eventually(async () => expect(await problemsOf('budget_spent')).toHaveLength(1));
    const status = await runCli(['status', '--url', running.url, '--token', ADMIN_TOKEN], {});
    expect(status.code).toBe(0);
    const lines = status.stdout.split('\n').filter((line) => line.startsWith('!! Account Few calls'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/used every call it may make a minute.*Nothing is lost.*rateLimitPerMinute=/);
  });

  it('shows on the shop’s Home, whom to ask, and on no other shop’s', async () => {
    await eventually(async () => expect((await homeOf(SPENT)).map((item) => item.kind)).toContain('budget_spent'));
    const spent = (await homeOf(SPENT)).find((item) => item.kind === 'budget_spent')!;
    expect(spent.why).toMatch(
      /^Your loyalty account has used every call the service allows it a minute for less than a minute:/,
    );
    expect(spent.why).toMatch(/your orders wait their turn, and their points come late\.$/);
    // The operator's account: the merchant asks the operator, and reads no command.
    expect(spent.fix).toMatch(
      /^Nothing is lost: orders go as calls free up\. If this goes on, ask the bridge’s operator/,
    );
    expect(await homeOf(NEIGHBOUR)).toEqual([]);
  });
});

describe('a shop on no account', () => {
  it('is a problem at the top with its held orders counted, and the fix', async () => {
    await eventually(async () => expect(await problemsOf('orders_held')).toHaveLength(1));
    const [held] = await problemsOf('orders_held');
    expect(held).toMatchObject({ label: `${HELD}: orders held`, count: HELD_ORDERS });
    expect(held!.cause).toBe(
      `${HELD_ORDERS} orders of shopify ${HELD} are held: the shop earns on no loyalty account, so no points are sent.`,
    );
    expect(held!.fix).toContain(`loyalty-bridge shops link shopify ${HELD} <account>`);
  });

  it('counts its held orders on its Home, and its neighbour’s Home shows nothing of them', async () => {
    await eventually(async () => expect((await homeOf(HELD))[0]).toMatchObject({ count: HELD_ORDERS }));
    const [first] = await homeOf(HELD);
    expect(first).toMatchObject({ kind: 'no_account', count: HELD_ORDERS });
    expect(first!.why).toBe(
      `This store earns on no loyalty account yet: its orders are kept, and no points are sent. ${HELD_ORDERS} orders are held until it does.`,
    );
    expect(first!.fix).toMatch(/^Set up your loyalty account/);
    const neighbour = await asShop(running, NEIGHBOUR).get('/attention');
    expect(neighbour.body.attention).toEqual([]);
    expect(neighbour.text).not.toMatch(/held|no-account-yet|9000501/);
  });
});
