// The fake WooCommerce's shipping zones on its REST API, from WooCommerce's REST API docs
// (woocommerce.github.io/woocommerce-rest-api-docs: "Shipping zones", "Shipping zone methods", their properties and
// answers' examples) and its own code (WC_REST_Shipping_Zones_V2_Controller, WC_REST_Shipping_Zone_Methods_V2_
// Controller, WC_REST_Shipping_Zones_Controller_Base, WC_Shipping_Zone_Data_Store::read):
//   GET /wp-json/wc/v3/shipping/zones               every zone, unpaged (X-WP-TotalPages 1): zone 0 first, named
//                                                   "Locations not covered by your other zones" (order 0), then
//                                                   the store's zones by order; each {id, name, order, _links}
//   GET /wp-json/wc/v3/shipping/zones/<id>/methods  the zone's methods, a disabled one too (enabled false), each
//                                                   {id, instance_id, title, order, enabled, method_id,
//                                                   method_title, method_description, settings, _links}; settings
//                                                   by id, each {id, label, description, type, value, default, tip,
//                                                   placeholder, options?}: free_shipping has title, requires
//                                                   (value '', coupon, min_amount, either or both, the options'
//                                                   words as the docs give them) and min_amount; flat_rate has
//                                                   title, tax_status and cost. An unknown zone: 404
//                                                   woocommerce_rest_shipping_zone_invalid "Resource does not exist."
// Permissions: the fake's REST authentication (a key with Read access reads); shipping turned off (General ›
// Shipping location(s) "Disable shipping & shipping calculations", wc_shipping_enabled() false) answers 404
// rest_no_route "Shipping is disabled.". What a zone requires also decides the checkout's shipping
// (fake-woocommerce-checkout.ts): both read the one ShippingState.
import type { Request, Response } from 'express';
import type { FakeWooCommerce } from './fake-woocommerce.ts';
import { CART } from './fake-woocommerce-checkout.ts';
import {
  stateOf,
  type FakeShippingMethod,
  type FakeShippingZone,
  type FreeShippingMethod,
  type FreeShippingRequires,
  type ShippingMethodSetup,
  type ShippingState,
} from './fake-woocommerce-coupon-state.ts';

/** WC_Shipping_Zone_Data_Store::read names zone 0 so; it cannot be renamed or removed. */
export const ZONE_0_NAME = 'Locations not covered by your other zones';

/** A new store's shipping: zone 0 alone, with no method (WooCommerce adds none by itself). */
export const newShipping = (): ShippingState => ({
  zones: [{ id: 0, name: ZONE_0_NAME, order: 0, methods: [] }],
  off: false,
  failWith: undefined,
  nextZoneId: 1,
  nextInstanceId: 1,
});

const REQUIRES_OPTIONS: Record<FreeShippingRequires, string> = {
  '': 'N/A',
  coupon: 'A valid free shipping coupon',
  min_amount: 'A minimum order amount',
  either: 'A minimum order amount OR a coupon',
  both: 'A minimum order amount AND a coupon',
};

/** One setting as get_settings() answers it (its tip repeats its description). */
const setting = (id: string, label: string, type: string, value: string, more: Record<string, unknown> = {}) => ({
  id,
  label,
  description: '',
  type,
  value,
  default: '',
  tip: '',
  placeholder: '',
  ...more,
});
const TITLE_TIP = 'This controls the title which the user sees during checkout.';

function methodView(base: string, zoneId: number, method: FakeShippingMethod, order: number) {
  const free = method.methodId === 'free_shipping';
  const title = free ? 'Free shipping' : 'Flat rate';
  const settings = free
    ? {
        title: setting('title', 'Title', 'text', title, { description: TITLE_TIP, default: title, tip: TITLE_TIP }),
        requires: setting('requires', 'Free shipping requires...', 'select', method.requires, {
          options: REQUIRES_OPTIONS,
        }),
        min_amount: setting('min_amount', 'Minimum order amount', 'price', method.minAmount, {
          description: 'Users will need to spend this amount to get free shipping (if enabled above).',
          tip: 'Users will need to spend this amount to get free shipping (if enabled above).',
        }),
      }
    : {
        title: setting('title', 'Method title', 'text', title, {
          description: TITLE_TIP,
          default: title,
          tip: TITLE_TIP,
        }),
        tax_status: setting('tax_status', 'Tax status', 'select', 'taxable', {
          default: 'taxable',
          options: { taxable: 'Taxable', none: 'None' },
        }),
        // What the fake's checkout charges for shipping when it names no other cost.
        cost: setting('cost', 'Cost', 'text', CART.shipping),
      };
  const zone = `${base}/shipping/zones/${zoneId}`;
  return {
    id: method.instanceId,
    instance_id: method.instanceId,
    title,
    order,
    enabled: method.enabled,
    method_id: method.methodId,
    method_title: title,
    method_description: free
      ? '<p>Free shipping is a special method which can be triggered with coupons and minimum spends.</p>\n'
      : '<p>Lets you charge a fixed rate for shipping.</p>\n',
    settings,
    _links: {
      self: [{ href: `${zone}/methods/${method.instanceId}` }],
      collection: [{ href: `${zone}/methods` }],
      describes: [{ href: zone }],
    },
  };
}

/** The shipping routes on the fake's site, reading `shipping` as it is at each request. */
export function withShippingRoutes(fake: FakeWooCommerce, shipping: ShippingState): void {
  const { router, allowed } = fake.site;
  const base = `${fake.homeUrl}wp-json/wc/v3`;
  /** Authentication, then what get_items_permissions_check answers first: shipping turned off; false: answered. */
  const permitted = (req: Request, res: Response) => {
    if (!allowed(req, res, 'list')) return false;
    const [status, code, message] =
      shipping.failWith !== undefined
        ? [shipping.failWith, 'internal_server_error', 'There has been a critical error on this website.']
        : shipping.off
          ? [404, 'rest_no_route', 'Shipping is disabled.']
          : [0, '', ''];
    if (status === 0) return true;
    res.status(status).json({ code, message, data: { status } });
    return false;
  };
  router.get('/wp-json/wc/v3/shipping/zones', (req, res) => {
    if (!permitted(req, res)) return;
    const zones = shipping.zones.map((zone) => ({
      id: zone.id,
      name: zone.name,
      order: zone.order,
      _links: {
        self: [{ href: `${base}/shipping/zones/${zone.id}` }],
        collection: [{ href: `${base}/shipping/zones` }],
        describedby: [{ href: `${base}/shipping/zones/${zone.id}/locations` }],
      },
    }));
    res.set({ 'X-WP-Total': String(zones.length), 'X-WP-TotalPages': '1' }).json(zones);
  });
  router.get('/wp-json/wc/v3/shipping/zones/:id/methods', (req, res) => {
    if (!permitted(req, res)) return;
    const zone = shipping.zones.find((each) => String(each.id) === req.params.id);
    if (!zone)
      return void res.status(404).json({
        code: 'woocommerce_rest_shipping_zone_invalid',
        message: 'Resource does not exist.',
        data: { status: 404 },
      });
    const methods = zone.methods.map((method, i) => methodView(base, zone.id, method, i + 1));
    res.set({ 'X-WP-Total': String(methods.length), 'X-WP-TotalPages': methods.length ? '1' : '0' }).json(methods);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Test hooks.

/** A zone as a test sets it: its name and its methods, in their order. */
export interface ShippingZoneSetup {
  name: string;
  methods: ShippingMethodSetup[];
}

/** A Flat rate, enabled: the shipping a customer pays where no Free shipping is offered. */
export const flatRate = (): ShippingMethodSetup => ({ methodId: 'flat_rate', enabled: true });

/** A Free shipping method requiring `requires` (enabled, no minimum, unless changed). */
export const freeShipping = (
  requires: FreeShippingRequires,
  change: Partial<{ enabled: boolean; minAmount: string }> = {},
): ShippingMethodSetup => ({ methodId: 'free_shipping', enabled: true, requires, minAmount: '0.00', ...change });

/**
 * The store's zones (WooCommerce › Settings › Shipping), in order, replacing the ones it had, and the methods of
 * zone 0 ("Locations not covered by your other zones"): none unless given.
 */
export function setShippingZones(
  fake: FakeWooCommerce,
  zones: ShippingZoneSetup[],
  notCovered: ShippingMethodSetup[] = [],
): void {
  const shipping = stateOf(fake).shipping;
  const made = (methods: ShippingMethodSetup[]) =>
    methods.map((method) => ({ ...method, instanceId: shipping.nextInstanceId++ }));
  const own: FakeShippingZone[] = zones.map((zone, order) => ({
    id: shipping.nextZoneId++,
    name: zone.name,
    order,
    methods: made(zone.methods),
  }));
  shipping.zones = [{ id: 0, name: ZONE_0_NAME, order: 0, methods: made(notCovered) }, ...own];
}

/** The store ships to one zone, by a Flat rate and this Free shipping, or by the Flat rate alone (null). */
export function setFreeShipping(fake: FakeWooCommerce, method: FreeShippingMethod | null): void {
  const methods = [flatRate(), ...(method ? [freeShipping(method.requires, { minAmount: method.minAmount })] : [])];
  setShippingZones(fake, [{ name: 'Domestic', methods }]);
}

/** General › Shipping location(s) set to "Disable shipping & shipping calculations", or back. */
export function turnShippingOff(fake: FakeWooCommerce, off: boolean): void {
  stateOf(fake).shipping.off = off;
}

/** The shipping routes answer this status (a 500: the site's critical error) until undefined. */
export function failShippingWith(fake: FakeWooCommerce, status: number | undefined): void {
  stateOf(fake).shipping.failWith = status;
}
