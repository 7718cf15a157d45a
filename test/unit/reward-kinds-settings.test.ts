// The kinds of reward a merchant sets in Rewards (issue 71): an amount off, a percentage off, free shipping, each
// read in words; a kind the shop's platform cannot make is named with why, and a reward of it is refused when
// saved, with nothing saved.
import { describe, expect, it } from 'vitest';
import { rewardWords, shopRewards } from '../../src/core/storefront/rewards.ts';
import { storefrontSettingsService } from '../../src/services/storefront-settings.ts';
import { lowdbFor } from '../helpers/engine.ts';
import { FakeCodeStore } from '../helpers/fake-code-store.ts';

const AT = { platform: 'tinyshop', shop: 'kinds.example' };
const NO_SHIPPING = 'TinyShop cannot make free shipping codes: offer an amount or a percentage off instead.';
const reward = (benefit: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  ...{ points: 800, benefit, minimumOrder: null, expiresInDays: 30, combines: false, on: true },
  ...more,
});

async function settings() {
  const store = lowdbFor();
  await store.open();
  const codes = new FakeCodeStore();
  codes.parts.notMade = { free_shipping: NO_SHIPPING };
  const service = storefrontSettingsService({
    store,
    partsOf: () => ({ storefront: {}, codes: codes.parts }),
    accounts: { forShop: async () => undefined },
  } as unknown as Parameters<typeof storefrontSettingsService>[0]);
  return { store, service, codes };
}

describe('the kinds of reward in Rewards', () => {
  it('lists each kind, with why the platform cannot make one', async () => {
    const { service } = await settings();
    const view = (await service.rewards(AT)).json as { kinds: unknown };
    expect(view.kinds).toEqual([
      { kind: 'amount_off', notMade: null, setUpFirst: null },
      { kind: 'percent_off', notMade: null, setUpFirst: null },
      { kind: 'free_shipping', notMade: NO_SHIPPING, setUpFirst: null },
    ]);
  });

  it('keeps a percentage off and reads each kind in words', async () => {
    const { service, store } = await settings();
    const answer = await service.saveRewards(
      AT,
      { rewards: [reward({ kind: 'percent_off', percent: 10 }, { minimumOrder: '50' })] },
      'merchant',
    );
    expect(answer.status).toBe(200);
    const [kept] = await shopRewards(store, AT.platform, AT.shop);
    expect(kept?.benefit).toEqual({ kind: 'percent_off', percent: 10 });
    expect(rewardWords(kept!)).toBe('800 points for 10% off on orders of 50.00 or more');
    expect(rewardWords({ points: 500, benefit: { kind: 'free_shipping' }, minimumOrder: null })).toBe(
      '500 points for free shipping',
    );
  });

  it('refuses a kind the platform cannot make, and a percentage out of range, saving nothing', async () => {
    const { service, store } = await settings();
    const refused = await service.saveRewards(
      AT,
      { rewards: [reward({ kind: 'amount_off', amount: '5' }), reward({ kind: 'free_shipping' })] },
      'merchant',
    );
    expect(refused).toMatchObject({ status: 400, json: { errors: [`rewards.1.benefit: ${NO_SHIPPING}`] } });
    const outOfRange = await service.saveRewards(AT, { rewards: [reward({ kind: 'percent_off', percent: 150 })] }, 'm');
    expect(outOfRange).toMatchObject({
      status: 400,
      json: { errors: ['rewards.0.benefit.percent: must be a whole number from 1 to 100'] },
    });
    expect(await shopRewards(store, AT.platform, AT.shop)).toEqual([]);
  });

  it('keeps a reward of such a kind turned off, so the merchant can still turn it off or edit the others', async () => {
    const { service, store } = await settings();
    const off = reward({ kind: 'free_shipping' }, { on: false });
    expect((await service.saveRewards(AT, { rewards: [off] }, 'merchant')).status).toBe(200);
    expect((await shopRewards(store, AT.platform, AT.shop)).map((each) => each.on)).toEqual([false]);
  });

  it('refuses a kind whose code would give nothing in the store as it is set, with the fix, asking once', async () => {
    const { service, store, codes } = await settings();
    const asked: string[] = [];
    const why = 'Free shipping needs a shipping method that accepts a code: add one in your store’s shipping settings.';
    codes.parts.whyKindFails = async (shop, kind) => {
      asked.push(`${shop}:${kind}`);
      return kind === 'percent_off' ? why : undefined;
    };
    const tenth = reward({ kind: 'percent_off', percent: 10 });
    const refused = await service.saveRewards(
      AT,
      { rewards: [tenth, reward({ kind: 'amount_off', amount: '5' }), tenth] },
      'm',
    );
    expect(refused).toMatchObject({
      status: 400,
      json: { errors: [`rewards.0.benefit: ${why}`, `rewards.2.benefit: ${why}`] },
    });
    expect(asked).toEqual([`${AT.shop}:percent_off`, `${AT.shop}:amount_off`]);
    expect(await shopRewards(store, AT.platform, AT.shop)).toEqual([]);
  });
});
