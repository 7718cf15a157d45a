// Whether a WooCommerce store's free-shipping codes would give anything, against the fake WooCommerce's shipping
// zones over HTTP: the merchant is told the fix while no zone, zone 0 included, has an enabled Free shipping that a
// coupon opens (none at all, a minimum amount only, N/A, turned off), and nothing once one zone has (a coupon, either,
// both), as the checkout then takes the shipping off; a store with shipping turned off, a store that answered 500
// and a key refused each get their own words rather than a reward let through; the other kinds ask nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WooRestClient } from '../../adapters/woocommerce/admin-api.ts';
import { wooCouponCodes } from '../../adapters/woocommerce/coupon-codes.ts';
import {
  FREE_SHIPPING_UNSET,
  SHIPPING_OFF,
  ZONES_NOT_ASKED,
  ZONES_NOT_LET_IN,
} from '../../adapters/woocommerce/shipping-zones.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { placeOrder, withCoupons } from '../helpers/fake-woocommerce-coupons.ts';
import {
  failShippingWith,
  flatRate,
  freeShipping,
  setShippingZones,
  turnShippingOff,
  ZONE_0_NAME,
} from '../helpers/fake-woocommerce-shipping.ts';
import type { FreeShippingRequires, ShippingMethodSetup } from '../helpers/fake-woocommerce-coupon-state.ts';

const SHOP = 'zones.example';
let fake: FakeWooCommerce;
let made = 0;

beforeAll(async () => {
  fake = withCoupons(await startFakeWooCommerce({ consumerKey: 'ck_rw', consumerSecret: 'cs_rw' }));
});
afterAll(() => fake.close());
beforeEach(() => setShippingZones(fake, []));

const client = (key = 'ck_rw', secret = 'cs_rw') =>
  new WooRestClient({ url: fake.url, consumerKey: key, consumerSecret: secret, outbound: { userAddress: false } });
const codesWith = (key?: string, secret?: string) =>
  wooCouponCodes(async (shop) => (shop === SHOP ? client(key, secret) : undefined));
const codes = codesWith();
const why = () => codes.whyKindFails(SHOP, 'free_shipping');
/** Two zones: a Flat rate alone, then one with `second`'s methods. */
const twoZones = (second: ShippingMethodSetup[]) =>
  setShippingZones(fake, [
    { name: 'Domestic', methods: [flatRate()] },
    { name: 'Europe', methods: [flatRate(), ...second] },
  ]);
const shippingAsked = () => fake.requests.filter((each) => each.path.includes('/shipping/')).length;

describe('WooCommerce free-shipping codes, by the store’s shipping zones', () => {
  it('answers its zones and their methods as WooCommerce does, zone 0 first', async () => {
    setShippingZones(fake, [
      { name: 'Domestic', methods: [flatRate(), freeShipping('either', { minAmount: '50.00' })] },
    ]);
    const zones = await client().json('GET', 'shipping/zones');
    expect(zones.body).toMatchObject([
      { id: 0, name: ZONE_0_NAME, order: 0 },
      { name: 'Domestic', order: 0 },
    ]);
    const id = (zones.body as Array<{ id: number }>)[1]!.id;
    await expect(client().json('GET', `shipping/zones/${id}/methods`)).resolves.toMatchObject({
      status: 200,
      body: [
        { method_id: 'flat_rate', enabled: true },
        {
          method_id: 'free_shipping',
          enabled: true,
          settings: { requires: { value: 'either' }, min_amount: { value: '50.00' } },
        },
      ],
    });
  });

  it.each<[string, ShippingMethodSetup[]]>([
    ['no Free shipping at all', []],
    ['Free shipping for a minimum amount only', [freeShipping('min_amount', { minAmount: '50.00' })]],
    ['Free shipping for everyone (N/A): the code adds nothing', [freeShipping('')]],
    ['Free shipping for a coupon, turned off', [freeShipping('coupon', { enabled: false })]],
  ])('tells the merchant the fix where the zones have %s', async (_, methods) => {
    twoZones(methods);
    await expect(why()).resolves.toBe(FREE_SHIPPING_UNSET);
    expect(FREE_SHIPPING_UNSET).toMatch(/WooCommerce › Settings › Shipping.*“A valid free shipping coupon”/);
  });

  it.each<FreeShippingRequires>(['coupon', 'either', 'both'])(
    'lets the reward be while one zone’s Free shipping requires %s, though another has none',
    async (requires) => {
      twoZones([freeShipping(requires)]);
      await expect(why()).resolves.toBeUndefined();
    },
  );

  it('counts zone 0, "Locations not covered by your other zones"', async () => {
    setShippingZones(fake, [{ name: 'Domestic', methods: [flatRate()] }], [freeShipping('coupon')]);
    await expect(why()).resolves.toBeUndefined();
  });

  it('says what the checkout does: the shipping charged while the why stands, taken off once it is gone', async () => {
    const shippingOff = async () => {
      const code = `LB-ZONES-${++made}`;
      await codes.make({
        shop: SHOP,
        customerId: '42',
        code,
        title: 'Loyalty reward: free shipping',
        benefit: { kind: 'free_shipping' },
        minimumOrder: null,
        startsAt: new Date(Date.now() - 1_000).toISOString(),
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        combinesWithOthers: false,
      });
      return placeOrder(fake, code, { billingEmail: 'ada@example.com', shipping: '4.90' });
    };
    setShippingZones(fake, [{ name: 'Domestic', methods: [flatRate(), freeShipping('coupon', { enabled: false })] }]);
    await expect(why()).resolves.toBe(FREE_SHIPPING_UNSET);
    await expect(shippingOff()).resolves.toMatchObject({ shippingOff: '0.00', shippingTotal: '4.90' });
    setShippingZones(fake, [{ name: 'Domestic', methods: [flatRate(), freeShipping('coupon')] }]);
    await expect(why()).resolves.toBeUndefined();
    await expect(shippingOff()).resolves.toMatchObject({ shippingOff: '4.90', shippingTotal: '0.00' });
  });

  it('says the store charges no shipping where shipping is turned off', async () => {
    setShippingZones(fake, [{ name: 'Domestic', methods: [freeShipping('coupon')] }]);
    turnShippingOff(fake, true);
    try {
      await expect(why()).resolves.toBe(SHIPPING_OFF);
    } finally {
      turnShippingOff(fake, false);
    }
  });

  it('asks to try again when the store answers 500, rather than let the reward through', async () => {
    setShippingZones(fake, [{ name: 'Domestic', methods: [freeShipping('coupon')] }]);
    failShippingWith(fake, 500);
    try {
      await expect(why()).resolves.toBe(ZONES_NOT_ASKED);
    } finally {
      failShippingWith(fake, undefined);
    }
    await expect(why()).resolves.toBeUndefined();
  }, 20_000);

  it('asks to connect again when the key is refused, or the bridge has no access to the store', async () => {
    setShippingZones(fake, [{ name: 'Domestic', methods: [freeShipping('coupon')] }]);
    await expect(codesWith('ck_gone', 'cs_gone').whyKindFails(SHOP, 'free_shipping')).resolves.toBe(ZONES_NOT_LET_IN);
    await expect(codes.whyKindFails('other.example', 'free_shipping')).resolves.toBe(ZONES_NOT_LET_IN);
  });

  it('asks the store nothing for the other kinds: they need no setting', async () => {
    failShippingWith(fake, 500);
    try {
      const before = shippingAsked();
      await expect(codes.whyKindFails(SHOP, 'amount_off')).resolves.toBeUndefined();
      await expect(codes.whyKindFails(SHOP, 'percent_off')).resolves.toBeUndefined();
      expect(shippingAsked()).toBe(before);
    } finally {
      failShippingWith(fake, undefined);
    }
  });
});
