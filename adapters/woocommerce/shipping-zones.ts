// Whether a free-shipping coupon gives anything in a WooCommerce store as it is set now. WooCommerce honours a
// coupon's free_shipping only where the customer's shipping zone offers a Free shipping method whose "Free shipping
// requires" takes a coupon: "A valid free shipping coupon" (coupon), "A minimum order amount OR a coupon" (either) or
// "A minimum order amount AND a coupon" (both) (woocommerce.com/document/free-shipping; the method's
// settings.requires in woocommerce.github.io/woocommerce-rest-api-docs, Shipping zone methods). Anywhere else it
// takes the coupon, counts its use and charges the shipping.
// Read through the store's REST API with the key its coupons use (admin-api.ts: its timeouts, no redirect followed):
//   GET shipping/zones               every zone on one page, zone 0 ("Locations not covered by your other zones")
//                                    first (Shipping zones; WC_REST_Shipping_Zones_V2_Controller::get_items);
//   GET shipping/zones/<id>/methods  the zone's methods, a disabled one too with enabled false (Shipping zone
//                                    methods): method_id free_shipping, settings.requires.value.
// Which addresses a zone covers (Shipping zone locations) is not read: a zone that takes the code is enough for the
// reward to be offered, and the merchant's note (WOO_FREE_SHIPPING_NOTE) says to set each zone customers order from.
// Permission: a key with Read access (the bridge's is Read/Write, docs/woocommerce.md) whose user may manage
// WooCommerce: the zone routes check wc_rest_check_manager_permissions('settings', 'read'), manage_woocommerce, as
// the webhooks the bridge already keeps do. With shipping turned off (General › Shipping location(s)) they answer
// 404 rest_no_route "Shipping is disabled." (WC_REST_Shipping_Zones_Controller_Base).
import { z } from 'zod';
import { asRecord } from '../shared/json.ts';
import { WooRestError, type WooRestClient } from './admin-api.ts';

/** What the merchant reads when no zone's Free shipping takes a code. */
export const FREE_SHIPPING_UNSET =
  'Free shipping codes would give nothing yet: in WooCommerce › Settings › Shipping, add Free shipping to your shipping zones and set “Free shipping requires” to “A valid free shipping coupon”.';
/** The store charges no shipping at all: a code has nothing to take off. */
export const SHIPPING_OFF =
  'Free shipping codes would give nothing: your store charges no shipping (WooCommerce › Settings › General › Shipping location(s) is set to disable shipping). Turn shipping on, or offer another kind of reward.';
/** The store did not answer: the save waits rather than let through a reward that may give nothing. */
export const ZONES_NOT_ASKED = 'Your store could not be asked whether free shipping accepts codes: try again.';
/** The key was refused (revoked, or its user may not manage WooCommerce): asking again will not help. */
export const ZONES_NOT_LET_IN =
  'Your store did not let the bridge read its shipping zones: connect the store again, approving as an administrator.';

/** The values of "Free shipping requires" under which a coupon opens Free shipping. */
const TAKES_CODE = new Set(['coupon', 'either', 'both']);
/** Zones whose methods are read at once: a save waits on them, and a small site serves few requests at a time. */
const AT_ONCE = 4;

const zonesShape = z.array(z.object({ id: z.number().int() }));
// settings is an object of settings, or [] for a method without any (PHP's empty array).
const methodsShape = z.array(z.object({ method_id: z.string(), enabled: z.boolean(), settings: z.unknown() }));

/** A setting's value ({id, label, ..., value}) from a method's settings, or undefined. */
const settingValue = (settings: unknown, id: string): unknown => asRecord(asRecord(settings)[id]).value;

function unusable(status: number, what: string): WooRestError {
  return new WooRestError(
    `WooCommerce answered ${status} for ${what}`,
    status >= 500 ? 'unavailable' : 'answer',
    status,
  );
}

function parsed<T>(schema: z.ZodType<T>, body: unknown, status: number, what: string): T {
  const result = schema.safeParse(body);
  if (!result.success)
    throw new WooRestError(`WooCommerce answered ${what} in a shape the bridge does not know`, 'answer', status);
  return result.data;
}

/** Whether the zone has an enabled Free shipping that a coupon opens; a zone gone since the list has none. */
async function zoneTakesCode(client: WooRestClient, zoneId: number): Promise<boolean> {
  const what = `the methods of shipping zone ${zoneId}`;
  const answer = await client.json('GET', `shipping/zones/${zoneId}/methods`);
  if (answer.status === 404) return false;
  if (answer.status !== 200) throw unusable(answer.status, what);
  return parsed(methodsShape, answer.body, answer.status, what).some(
    (method) =>
      method.method_id === 'free_shipping' &&
      method.enabled &&
      TAKES_CODE.has(String(settingValue(method.settings, 'requires'))),
  );
}

/**
 * Whether some shipping zone, zone 0 included, has an enabled Free shipping a coupon opens; 'shipping-off' when the
 * store ships nothing. Throws WooRestError when the store did not answer as WooCommerce does.
 */
export async function freeShippingTakesCodes(client: WooRestClient): Promise<'yes' | 'no' | 'shipping-off'> {
  const answer = await client.json('GET', 'shipping/zones');
  if (answer.status === 404 && asRecord(answer.body).code === 'rest_no_route') return 'shipping-off';
  if (answer.status !== 200) throw unusable(answer.status, 'its shipping zones');
  const listed = parsed(zonesShape, answer.body, answer.status, 'its shipping zones').map((zone) => zone.id);
  // Zone 0 is always there (the list starts with it); asked even from a list that left it out.
  const zones = [...new Set([...listed, 0])];
  for (let at = 0; at < zones.length; at += AT_ONCE) {
    const found = await Promise.all(zones.slice(at, at + AT_ONCE).map((zone) => zoneTakesCode(client, zone)));
    if (found.includes(true)) return 'yes';
  }
  return 'no';
}

/** Why a free-shipping code would give nothing in the store now, in the merchant's words with the fix; or undefined. */
export async function whyFreeShippingFails(client: () => Promise<WooRestClient>): Promise<string | undefined> {
  try {
    const takes = await freeShippingTakesCodes(await client());
    if (takes === 'yes') return undefined;
    return takes === 'shipping-off' ? SHIPPING_OFF : FREE_SHIPPING_UNSET;
  } catch (error) {
    if (!(error instanceof WooRestError)) throw error;
    return error.code === 'refused' || error.code === 'read_only' ? ZONES_NOT_LET_IN : ZONES_NOT_ASKED;
  }
}
