// WooCommerce's coupons on the fake WooCommerce's REST API, from WooCommerce's REST API docs
// (woocommerce.github.io/woocommerce-rest-api-docs, "Coupons": the coupon properties, and the answers' examples) and
// its own code (the REST API v3 coupons controller, WC_REST_Coupons_Controller, and the v2 one it extends;
// WC_REST_CRUD_Controller; WC_Coupon's setters; WC_Data::set_date_prop); WordPress's argument checks from
// developer.wordpress.org (WP_REST_Request::has_valid_params, rest_validate_enum, rest_is_boolean):
//   POST   /wp-json/wc/v3/coupons        201 with the coupon. code required (400 rest_missing_callback_param),
//                                        not empty (400 woocommerce_rest_empty_coupon_code), kept in lower case
//                                        (wc_format_coupon_code), unique (400 woocommerce_rest_coupon_code_already_exists
//                                        "The coupon code already exists"); discount_type one of percent,
//                                        fixed_cart, fixed_product (default fixed_cart; any other 400
//                                        rest_invalid_param, its detail rest_not_in_enum), amount and
//                                        minimum_amount strings (amount "numeric, even if setting a percentage",
//                                        answered with two decimals), usage limits integers, individual_use and
//                                        free_shipping booleans (true/false, "true"/"false"/"1"/"0" or 1/0, as
//                                        rest_is_boolean), email_restrictions strings, each lower-cased and a valid
//                                        e-mail (400 coupon_invalid_email_address); a wrong type is 400
//                                        rest_invalid_param, its detail rest_invalid_type. date_expires: ISO 8601
//                                        with Z or ±hh:mm and whole seconds is read at that offset, any other string
//                                        in the site's timezone; date_expires_gmt is in the schema but WC_Coupon has
//                                        no setter, so it is ignored.
//   GET    /wp-json/wc/v3/coupons        ?code= (the coupon of that code, in any case, or none), per_page, page;
//                                        X-WP-Total, X-WP-TotalPages
//   GET    /wp-json/wc/v3/coupons/<id>   the coupon; 404 woocommerce_rest_shop_coupon_invalid_id "Invalid ID."
//   DELETE /wp-json/wc/v3/coupons/<id>   ?force=true deletes it and answers it as it was; without force it goes to
//                                        the bin (status trash); 404 as above for none
// Permissions: the fake's REST authentication (a read key writing is refused there, 401 "does not have write
// permissions"); a key whose user may not manage coupons gets 403 woocommerce_rest_cannot_create|view|delete.
// A checkout with a coupon, and what it takes off: fake-woocommerce-checkout.ts; the shipping zones it reads, on the
// REST API too: fake-woocommerce-shipping.ts.
import express, { type Request, type Response } from 'express';
import type { FakeRestAction, FakeWooCommerce } from './fake-woocommerce.ts';
import {
  couponStates,
  formatCode,
  publishedCoupon,
  stateOf,
  type CouponState,
  type CreateFailure,
  type FakeCoupon,
} from './fake-woocommerce-coupon-state.ts';
import { newShipping, withShippingRoutes } from './fake-woocommerce-shipping.ts';

export type { CreateFailure, FakeCoupon, FreeShippingMethod, PlacedOrder } from './fake-woocommerce-coupon-state.ts';
// The checkout's hooks, from here as from before it had a file of its own.
export {
  CART,
  countCouponAgain,
  couponRefusal,
  giveCouponBack,
  ordersPlaced,
  placeOrder,
  useCoupon,
  type WooCheckout,
} from './fake-woocommerce-checkout.ts';
export { setFreeShipping } from './fake-woocommerce-shipping.ts';

const DISCOUNT_TYPES = ['percent', 'fixed_cart', 'fixed_product'] as const;
/** WordPress's is_email, roughly: something@something.something. */
const isEmail = (value: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
/** wc_format_decimal(value, 2), as the answers show amounts. */
const decimal2 = (value: string) => (Number(value) || 0).toFixed(2);

/** A REST error: {code, message, data: {status, ...}} (woocommerce-rest-api-docs, Introduction, Errors). */
interface Refusal {
  status: number;
  code: string;
  message: string;
  data: Record<string, unknown>;
}
const refusal = (status: number, code: string, message: string, data: Record<string, unknown> = {}): Refusal => ({
  status,
  code,
  message,
  data,
});
const send = (res: Response, { status, code, message, data }: Refusal) =>
  void res.status(status).json({ code, message, data: { status, ...data } });
const error = (res: Response, status: number, code: string, message: string) =>
  send(res, refusal(status, code, message));
/**
 * WP_REST_Request::has_valid_params: 400 rest_invalid_param, "Invalid parameter(s): <name>", data.params naming
 * why and data.details the check's own error ({code, message, data}: rest_not_in_enum from rest_validate_enum,
 * rest_invalid_type with {param} for a wrong type).
 */
const invalidParam = (name: string, why: string, detail: string, detailData: unknown = null) =>
  refusal(400, 'rest_invalid_param', `Invalid parameter(s): ${name}`, {
    params: { [name]: why },
    details: { [name]: { code: detail, message: why, data: detailData } },
  });
const wrongType = (name: string, type: string) =>
  invalidParam(name, `${name} is not of type ${type}.`, 'rest_invalid_type', { param: name });
const invalidId = (res: Response) => error(res, 404, 'woocommerce_rest_shop_coupon_invalid_id', 'Invalid ID.');

/** rest_is_boolean, then rest_sanitize_boolean: a boolean, "true"/"false"/"1"/"0" in any case, or 1/0; else none. */
function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value.toLowerCase() : value;
  if (text === 'true' || text === '1' || text === 1) return true;
  if (text === 'false' || text === '0' || text === 0) return false;
  return undefined;
}

/** WC_Data::set_date_prop for a string: ISO 8601 with its zone is read at that offset, anything else in the site's. */
function expiryOf(value: string, gmtOffsetHours: number): number | undefined {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/.test(value)) return Date.parse(value);
  // strtotime, then its UTC wall clock taken as the site's local time (get_gmt_from_date).
  const zoned = /([zZ]|[+-]\d{2}:?\d{2})$/.test(value);
  const read = Date.parse(zoned ? value : `${value}Z`);
  return Number.isNaN(read) ? undefined : read - gmtOffsetHours * 3_600_000;
}

/** The coupon a create's body asks for, its id and creation time still to come, or WooCommerce's refusal. */
function askedCoupon(
  body: Record<string, unknown>,
  state: CouponState,
): { coupon: Omit<FakeCoupon, 'id' | 'created'> } | { refused: Refusal } {
  const given = (name: string) => body[name] !== undefined && body[name] !== null;
  if (body.code === undefined)
    return { refused: refusal(400, 'rest_missing_callback_param', 'Missing parameter(s): code', { params: ['code'] }) };
  for (const name of [
    'code',
    'discount_type',
    'amount',
    'minimum_amount',
    'description',
    'date_expires',
    'date_expires_gmt',
  ])
    if (given(name) && typeof body[name] !== 'string') return { refused: wrongType(name, 'string') };
  for (const name of ['usage_limit', 'usage_limit_per_user'])
    if (given(name) && !Number.isInteger(body[name])) return { refused: wrongType(name, 'integer') };
  for (const name of ['individual_use', 'free_shipping'])
    if (given(name) && booleanOf(body[name]) === undefined) return { refused: wrongType(name, 'boolean') };
  const type = (body.discount_type ?? 'fixed_cart') as FakeCoupon['discount_type'];
  // rest_validate_enum's words: wp_sprintf's %l lists the values with "and" before the last.
  if (!DISCOUNT_TYPES.includes(type)) {
    const why = 'discount_type is not one of percent, fixed_cart, and fixed_product.';
    return { refused: invalidParam('discount_type', why, 'rest_not_in_enum') };
  }
  const emails = body.email_restrictions ?? [];
  if (!Array.isArray(emails) || emails.some((each) => typeof each !== 'string')) {
    const why = 'email_restrictions[0] is not of type string.';
    return {
      refused: invalidParam('email_restrictions', why, 'rest_invalid_type', { param: 'email_restrictions[0]' }),
    };
  }
  const code = formatCode(body.code as string);
  if (code === '')
    return { refused: refusal(400, 'woocommerce_rest_empty_coupon_code', 'The coupon code cannot be empty.') };
  if (publishedCoupon(state, code))
    return { refused: refusal(400, 'woocommerce_rest_coupon_code_already_exists', 'The coupon code already exists') };
  const restrictions = (emails as string[]).map((each) => each.trim().toLowerCase()).filter((each) => each !== '');
  // A wildcard restriction is kept as typed (WooCommerce lets * through); anything else must be an e-mail.
  if (restrictions.some((each) => !isEmail(each.replaceAll('*', 'x'))))
    return { refused: refusal(400, 'coupon_invalid_email_address', 'Invalid email address restriction') };
  let expires: number | null = null;
  if (typeof body.date_expires === 'string' && body.date_expires !== '') {
    const at = expiryOf(body.date_expires, state.gmtOffsetHours);
    if (at === undefined)
      return {
        refused: refusal(400, 'rest_invalid_param', 'Invalid parameter(s): date_expires', {
          params: { date_expires: 'Invalid date.' },
        }),
      };
    expires = at;
  }
  const positive = (value: unknown) => (typeof value === 'number' && value > 0 ? value : null);
  return {
    coupon: {
      code,
      amount: typeof body.amount === 'string' ? body.amount : '0',
      status: 'publish',
      discount_type: type,
      description: typeof body.description === 'string' ? body.description : '',
      expires,
      usage_count: 0,
      individual_use: booleanOf(body.individual_use) === true,
      // 0 is no limit, answered as null.
      usage_limit: positive(body.usage_limit),
      usage_limit_per_user: positive(body.usage_limit_per_user),
      free_shipping: booleanOf(body.free_shipping) === true,
      minimum_amount: typeof body.minimum_amount === 'string' ? body.minimum_amount : '0',
      email_restrictions: restrictions,
      used_by: [],
    },
  };
}

export function withCoupons(fake: FakeWooCommerce): FakeWooCommerce {
  if (couponStates.has(fake)) return fake;
  const state: CouponState = {
    coupons: new Map(),
    made: new Map(),
    nextId: 101,
    fail: undefined,
    refused: false,
    gmtOffsetHours: 0,
    shipping: newShipping(),
    orders: [],
  };
  couponStates.set(fake, state);
  withShippingRoutes(fake, state.shipping);
  const { router, allowed } = fake.site;

  /** wc_rest_prepare_date_response: Y-m-d\TH:i:s, in the site's time or as GMT, no zone. */
  const dates = (at: number | null) =>
    at === null
      ? [null, null]
      : [
          new Date(at + state.gmtOffsetHours * 3_600_000).toISOString().slice(0, 19),
          new Date(at).toISOString().slice(0, 19),
        ];
  const view = (coupon: FakeCoupon) => {
    const [created, createdGmt] = dates(coupon.created);
    const [expires, expiresGmt] = dates(coupon.expires);
    return {
      id: coupon.id,
      code: coupon.code,
      amount: decimal2(coupon.amount),
      status: coupon.status,
      date_created: created,
      date_created_gmt: createdGmt,
      date_modified: created,
      date_modified_gmt: createdGmt,
      discount_type: coupon.discount_type,
      description: coupon.description,
      date_expires: expires,
      date_expires_gmt: expiresGmt,
      usage_count: coupon.usage_count,
      individual_use: coupon.individual_use,
      product_ids: [],
      excluded_product_ids: [],
      usage_limit: coupon.usage_limit,
      usage_limit_per_user: coupon.usage_limit_per_user,
      limit_usage_to_x_items: null,
      free_shipping: coupon.free_shipping,
      product_categories: [],
      excluded_product_categories: [],
      exclude_sale_items: false,
      minimum_amount: decimal2(coupon.minimum_amount),
      maximum_amount: '0.00',
      email_restrictions: coupon.email_restrictions,
      used_by: coupon.used_by,
      meta_data: [],
      _links: {
        self: [{ href: `${fake.homeUrl}wp-json/wc/v3/coupons/${coupon.id}` }],
        collection: [{ href: `${fake.homeUrl}wp-json/wc/v3/coupons` }],
      },
    };
  };
  /** The route's permission check, then the coupons' own (wc_rest_check_post_permissions for shop_coupon). */
  const permitted = (req: Request, res: Response, action: FakeRestAction) => {
    if (!allowed(req, res, action)) return false;
    if (!state.refused) return true;
    const words: Record<FakeRestAction, string> = {
      list: 'Sorry, you cannot list resources.',
      view: 'Sorry, you cannot view this resource.',
      create: 'Sorry, you are not allowed to create resources.',
      edit: 'Sorry, you are not allowed to edit this resource.',
      delete: 'Sorry, you are not allowed to delete this resource.',
    };
    const code = action === 'list' ? 'view' : action;
    error(res, 403, `woocommerce_rest_cannot_${code}`, words[action]);
    return false;
  };
  router.get('/wp-json/wc/v3/coupons', (req, res) => {
    if (!permitted(req, res, 'list')) return;
    const query = req.query as Record<string, string | undefined>;
    const perPage = Number(query.per_page ?? 10);
    const page = Number(query.page ?? 1);
    const matching =
      query.code !== undefined && query.code !== ''
        ? [publishedCoupon(state, query.code)].filter((coupon) => coupon !== undefined)
        : [...state.coupons.values()].sort((a, b) => b.created - a.created || b.id - a.id);
    res.set({
      'X-WP-Total': String(matching.length),
      'X-WP-TotalPages': String(Math.max(1, Math.ceil(matching.length / perPage))),
    });
    res.json(matching.slice((page - 1) * perPage, page * perPage).map(view));
  });

  router.post('/wp-json/wc/v3/coupons', express.json(), (req, res) => {
    if (!permitted(req, res, 'create')) return;
    const asked = askedCoupon((req.body ?? {}) as Record<string, unknown>, state);
    if ('refused' in asked) return send(res, asked.refused);
    const fail = state.fail;
    state.fail = undefined;
    if (fail === 'before')
      return error(res, 500, 'internal_server_error', 'There has been a critical error on this website.');
    const coupon: FakeCoupon = { id: state.nextId++, ...asked.coupon, created: Date.now() };
    state.coupons.set(coupon.id, coupon);
    state.made.set(coupon.code, coupon);
    if (fail === 'after') return void res.socket?.destroy();
    res.status(201).location(`${fake.homeUrl}wp-json/wc/v3/coupons/${coupon.id}`).json(view(coupon));
  });

  router.get('/wp-json/wc/v3/coupons/:id', (req, res) => {
    if (!permitted(req, res, 'view')) return;
    const coupon = state.coupons.get(Number(req.params.id));
    if (!coupon) return invalidId(res);
    res.json(view(coupon));
  });

  router.delete('/wp-json/wc/v3/coupons/:id', (req, res) => {
    if (!permitted(req, res, 'delete')) return;
    const coupon = state.coupons.get(Number(req.params.id));
    if (!coupon) return invalidId(res);
    if (req.query.force === 'true' || req.query.force === '1') {
      state.coupons.delete(coupon.id);
      return void res.json(view(coupon));
    }
    if (coupon.status === 'trash')
      return error(res, 410, 'woocommerce_rest_already_trashed', `The shop_coupon has already been deleted.`);
    coupon.status = 'trash';
    res.json(view(coupon));
  });
  return fake;
}

// ---------------------------------------------------------------------------------------------------------------
// Test hooks.

/** The store's coupons as WooCommerce holds them (the bin's too). */
export const couponsOf = (fake: FakeWooCommerce): FakeCoupon[] => [...stateOf(fake).coupons.values()];

/** A coupon the store ever made, by its code (any case), and whether it is gone since (deleted or in the bin). */
export function madeCoupon(fake: FakeWooCommerce, code: string): { coupon: FakeCoupon; deleted: boolean } | undefined {
  const state = stateOf(fake);
  const coupon = state.made.get(formatCode(code));
  if (!coupon) return undefined;
  return { coupon, deleted: state.coupons.get(coupon.id) !== coupon || coupon.status !== 'publish' };
}

/** The next create of a coupon fails: before it is stored (500), or after (the connection drops). */
export function failNextCouponCreate(fake: FakeWooCommerce, failure: CreateFailure | undefined): void {
  stateOf(fake).fail = failure;
}

/** The key's user may not manage coupons (403 woocommerce_rest_cannot_*), or may again. */
export function refuseCoupons(fake: FakeWooCommerce, refused: boolean): void {
  stateOf(fake).refused = refused;
}

/** The site's timezone, in hours from GMT (Settings > General > Timezone). */
export function setSiteOffset(fake: FakeWooCommerce, hours: number): void {
  stateOf(fake).gmtOffsetHours = hours;
}
