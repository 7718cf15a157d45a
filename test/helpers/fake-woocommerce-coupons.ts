// WooCommerce's coupons on the fake WooCommerce's REST API, from WooCommerce's own code (the REST API v3 coupons
// controller, WC_REST_Coupons_Controller, and the v2 one it extends; WC_REST_CRUD_Controller; WC_Coupon's setters;
// WC_Data::set_date_prop) and its REST API docs (woocommerce-rest-api-docs, "Coupons"):
//   POST   /wp-json/wc/v3/coupons        201 with the coupon. code required (400 rest_missing_callback_param),
//                                        not empty (400 woocommerce_rest_empty_coupon_code), kept in lower case
//                                        (wc_format_coupon_code), unique (400 woocommerce_rest_coupon_code_already_exists
//                                        "The coupon code already exists"); discount_type percent|fixed_cart|
//                                        fixed_product, amount and minimum_amount strings, usage limits integers,
//                                        individual_use boolean, email_restrictions strings, each lower-cased and a
//                                        valid e-mail (400 coupon_invalid_email_address), all else 400
//                                        rest_invalid_param. date_expires: ISO 8601 with Z or ±hh:mm and whole
//                                        seconds is read at that offset, any other string in the site's timezone;
//                                        date_expires_gmt is in the schema but WC_Coupon has no setter, so it is
//                                        ignored.
//   GET    /wp-json/wc/v3/coupons        ?code= (the coupon of that code, in any case, or none), per_page, page;
//                                        X-WP-Total, X-WP-TotalPages
//   GET    /wp-json/wc/v3/coupons/<id>   the coupon; 404 woocommerce_rest_shop_coupon_invalid_id "Invalid ID."
//   DELETE /wp-json/wc/v3/coupons/<id>   ?force=true deletes it and answers it as it was; without force it goes to
//                                        the bin (status trash); 404 as above for none
// Permissions: the fake's REST authentication (a read key writing is refused there, 401 "does not have write
// permissions"); a key whose user may not manage coupons gets 403 woocommerce_rest_cannot_create|view|delete.
// A checkout applying a coupon (useCoupon) follows WC_Discounts and WC_Cart::check_customer_coupons: published,
// usage_count under usage_limit, not past date_expires, minimum_amount met, fewer than usage_limit_per_user uses
// by the billing e-mail; email_restrictions checked when the order is placed against the billing e-mail and the
// signed-in account's e-mail, lower-cased, each restriction matching exactly or by its wildcard (* for anything,
// as WC_Cart::is_coupon_emails_allowed turns it into a regex). Placing the order counts a use (usage_count, used_by).
import express, { type Request, type Response } from 'express';
import type { FakeRestAction, FakeWooCommerce } from './fake-woocommerce.ts';

export interface FakeCoupon {
  id: number;
  code: string;
  amount: string;
  status: 'publish' | 'trash';
  discount_type: 'percent' | 'fixed_cart' | 'fixed_product';
  description: string;
  /** When it expires (ms since the epoch), or none. */
  expires: number | null;
  usage_count: number;
  individual_use: boolean;
  usage_limit: number | null;
  usage_limit_per_user: number | null;
  minimum_amount: string;
  email_restrictions: string[];
  used_by: string[];
  created: number;
}

/** Where the next create fails: before the coupon is stored (500), or after (the connection drops, its answer lost). */
export type CreateFailure = 'before' | 'after';

interface CouponState {
  coupons: Map<number, FakeCoupon>;
  /** Every coupon the store ever made, by its code: kept after a delete, for tests. */
  made: Map<string, FakeCoupon>;
  nextId: number;
  fail: CreateFailure | undefined;
  /** The key's user may not manage coupons (a customer's or a shop worker's key without the capability). */
  refused: boolean;
  /** The site's timezone (Settings > General) as hours from GMT. */
  gmtOffsetHours: number;
}

const states = new WeakMap<FakeWooCommerce, CouponState>();

function stateOf(fake: FakeWooCommerce): CouponState {
  const state = states.get(fake);
  if (!state) throw new Error('the fake WooCommerce has no coupons: call withCoupons first');
  return state;
}

const DISCOUNT_TYPES = ['percent', 'fixed_cart', 'fixed_product'] as const;
/** wc_format_coupon_code: decoded, trimmed, lower case. */
const formatCode = (code: string) => code.trim().toLowerCase();
/** WordPress's is_email, roughly: something@something.something. */
const isEmail = (value: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
/** wc_format_decimal(value, 2), as the answers show amounts. */
const decimal2 = (value: string) => (Number(value) || 0).toFixed(2);

const error = (res: Response, status: number, code: string, message: string, data: Record<string, unknown> = {}) =>
  void res.status(status).json({ code, message, data: { status, ...data } });
const invalidParam = (res: Response, name: string, why: string) =>
  error(res, 400, 'rest_invalid_param', `Invalid parameter(s): ${name}`, { params: { [name]: why } });
const invalidId = (res: Response) => error(res, 404, 'woocommerce_rest_shop_coupon_invalid_id', 'Invalid ID.');

/** WC_Data::set_date_prop for a string: ISO 8601 with its zone is read at that offset, anything else in the site's. */
function expiryOf(value: string, gmtOffsetHours: number): number | undefined {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/.test(value)) return Date.parse(value);
  // strtotime, then its UTC wall clock taken as the site's local time (get_gmt_from_date).
  const zoned = /([zZ]|[+-]\d{2}:?\d{2})$/.test(value);
  const read = Date.parse(zoned ? value : `${value}Z`);
  return Number.isNaN(read) ? undefined : read - gmtOffsetHours * 3_600_000;
}

export function withCoupons(fake: FakeWooCommerce): FakeWooCommerce {
  if (states.has(fake)) return fake;
  const state: CouponState = {
    coupons: new Map(),
    made: new Map(),
    nextId: 101,
    fail: undefined,
    refused: false,
    gmtOffsetHours: 0,
  };
  states.set(fake, state);
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
      free_shipping: false,
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
  const byCode = (code: string) =>
    [...state.coupons.values()].find((coupon) => coupon.status === 'publish' && coupon.code === formatCode(code));

  router.get('/wp-json/wc/v3/coupons', (req, res) => {
    if (!permitted(req, res, 'list')) return;
    const query = req.query as Record<string, string | undefined>;
    const perPage = Number(query.per_page ?? 10);
    const page = Number(query.page ?? 1);
    const matching =
      query.code !== undefined && query.code !== ''
        ? [byCode(query.code)].filter((coupon) => coupon !== undefined)
        : [...state.coupons.values()].sort((a, b) => b.created - a.created || b.id - a.id);
    res.set({
      'X-WP-Total': String(matching.length),
      'X-WP-TotalPages': String(Math.max(1, Math.ceil(matching.length / perPage))),
    });
    res.json(matching.slice((page - 1) * perPage, page * perPage).map(view));
  });

  router.post('/wp-json/wc/v3/coupons', express.json(), (req, res) => {
    if (!permitted(req, res, 'create')) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body.code === undefined)
      return error(res, 400, 'rest_missing_callback_param', 'Missing parameter(s): code', { params: ['code'] });
    for (const name of ['code', 'amount', 'minimum_amount', 'description', 'date_expires', 'date_expires_gmt'])
      if (body[name] !== undefined && body[name] !== null && typeof body[name] !== 'string')
        return invalidParam(res, name, `${name} is not of type string.`);
    for (const name of ['usage_limit', 'usage_limit_per_user'])
      if (body[name] !== undefined && body[name] !== null && !Number.isInteger(body[name]))
        return invalidParam(res, name, `${name} is not of type integer.`);
    if (body.individual_use !== undefined && typeof body.individual_use !== 'boolean')
      return invalidParam(res, 'individual_use', 'individual_use is not of type boolean.');
    const type = (body.discount_type ?? 'fixed_cart') as FakeCoupon['discount_type'];
    if (!DISCOUNT_TYPES.includes(type))
      return invalidParam(res, 'discount_type', `discount_type is not one of ${DISCOUNT_TYPES.join(', ')}.`);
    const emails = body.email_restrictions ?? [];
    if (!Array.isArray(emails) || emails.some((each) => typeof each !== 'string'))
      return invalidParam(res, 'email_restrictions', 'email_restrictions[0] is not of type string.');
    const code = formatCode(body.code as string);
    if (code === '') return error(res, 400, 'woocommerce_rest_empty_coupon_code', 'The coupon code cannot be empty.');
    if (byCode(code))
      return error(res, 400, 'woocommerce_rest_coupon_code_already_exists', 'The coupon code already exists');
    const restrictions = (emails as string[]).map((each) => each.trim().toLowerCase()).filter((each) => each !== '');
    // A wildcard restriction is kept as typed (WooCommerce lets * through); anything else must be an e-mail.
    if (restrictions.some((each) => !isEmail(each.replaceAll('*', 'x'))))
      return error(res, 400, 'coupon_invalid_email_address', 'Invalid email address restriction');
    let expires: number | null = null;
    if (typeof body.date_expires === 'string' && body.date_expires !== '') {
      const at = expiryOf(body.date_expires, state.gmtOffsetHours);
      if (at === undefined) return invalidParam(res, 'date_expires', 'Invalid date.');
      expires = at;
    }
    const fail = state.fail;
    state.fail = undefined;
    if (fail === 'before')
      return error(res, 500, 'internal_server_error', 'There has been a critical error on this website.');
    const coupon: FakeCoupon = {
      id: state.nextId++,
      code,
      amount: typeof body.amount === 'string' ? body.amount : '0',
      status: 'publish',
      discount_type: type,
      description: typeof body.description === 'string' ? body.description : '',
      expires,
      usage_count: 0,
      individual_use: body.individual_use === true,
      // 0 is no limit, answered as null.
      usage_limit: typeof body.usage_limit === 'number' && body.usage_limit > 0 ? body.usage_limit : null,
      usage_limit_per_user:
        typeof body.usage_limit_per_user === 'number' && body.usage_limit_per_user > 0
          ? body.usage_limit_per_user
          : null,
      minimum_amount: typeof body.minimum_amount === 'string' ? body.minimum_amount : '0',
      email_restrictions: restrictions,
      used_by: [],
      created: Date.now(),
    };
    state.coupons.set(coupon.id, coupon);
    state.made.set(code, coupon);
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

export interface WooCheckout {
  /** The billing e-mail typed at checkout. */
  billingEmail: string;
  /** The signed-in customer's account e-mail; a guest has none. */
  accountEmail?: string;
  /** When the order is placed (ms); now by default. */
  at?: number;
  /** The cart's subtotal, for a minimum_amount; enough by default. */
  subtotal?: string;
}

/** WC_Cart::is_coupon_emails_allowed: an exact match, or a restriction's * standing for anything. */
function emailAllowed(emails: string[], restrictions: string[]): boolean {
  return emails.some((email) =>
    restrictions.some((restriction) => {
      if (restriction === email) return true;
      // Its regex: '/^' . str_replace('*', '(.+)?', $restriction) . '$/' (the rest unescaped, as WooCommerce has it).
      const pattern = restriction
        .split('*')
        .map((part) => part.replace(/[\\^$+?()[\]{}|/]/g, '\\$&'))
        .join('(.+)?');
      return new RegExp(`^${pattern}$`).test(email);
    }),
  );
}

/** Why placing an order with the coupon would fail now, or undefined when it would go through. */
export function couponRefusal(fake: FakeWooCommerce, code: string, checkout: WooCheckout): string | undefined {
  const coupon = [...stateOf(fake).coupons.values()].find(
    (each) => each.status === 'publish' && each.code === formatCode(code),
  );
  if (!coupon) return 'no such coupon';
  const at = checkout.at ?? Date.now();
  if (coupon.usage_limit !== null && coupon.usage_count >= coupon.usage_limit) return 'the coupon is used up';
  if (coupon.expires !== null && at > coupon.expires) return 'the coupon has expired';
  if (
    Number(coupon.minimum_amount) > 0 &&
    checkout.subtotal !== undefined &&
    Number(coupon.minimum_amount) > Number(checkout.subtotal)
  )
    return 'the cart is below the minimum spend';
  const billing = checkout.billingEmail.trim().toLowerCase();
  const emails = [...new Set([billing, checkout.accountEmail?.trim().toLowerCase()])].filter(
    (each): each is string => !!each,
  );
  if (coupon.email_restrictions.length > 0 && !emailAllowed(emails, coupon.email_restrictions))
    return 'the coupon is not yours';
  if (
    coupon.usage_limit_per_user !== null &&
    coupon.used_by.filter((each) => each === billing).length >= coupon.usage_limit_per_user
  )
    return 'the customer has used the coupon up';
  return undefined;
}

/** An order is placed with the coupon as WooCommerce would: whether it went through (then its use is counted). */
export function useCoupon(fake: FakeWooCommerce, code: string, checkout: WooCheckout): boolean {
  if (couponRefusal(fake, code, checkout) !== undefined) return false;
  const coupon = [...stateOf(fake).coupons.values()].find(
    (each) => each.status === 'publish' && each.code === formatCode(code),
  )!;
  coupon.usage_count += 1;
  // A guest's use is kept by their billing e-mail (a signed-in customer's by user id, which the fake has none of).
  coupon.used_by.push(checkout.billingEmail.trim().toLowerCase());
  return true;
}

/**
 * WooCommerce gives an order's use of a coupon back (WC_Coupon::decrease_usage_count): wc_update_coupon_usage_counts
 * does it when an order whose uses were recorded is cancelled, fails or goes to the bin, and
 * WC_Abstract_Order::remove_coupon when an admin removes the coupon from an order. The coupon's usage_count goes
 * down by one (never below 0) and one of its used_by entries for that customer goes. A coupon deleted since
 * (wc_get_coupon_id_by_code finds none) is left alone. Whether it was given back.
 */
export function giveCouponBack(fake: FakeWooCommerce, code: string, billingEmail: string): boolean {
  const coupon = [...stateOf(fake).coupons.values()].find(
    (each) => each.status === 'publish' && each.code === formatCode(code),
  );
  if (!coupon || coupon.usage_count === 0) return false;
  coupon.usage_count -= 1;
  const at = coupon.used_by.indexOf(billingEmail.trim().toLowerCase());
  if (at >= 0) coupon.used_by.splice(at, 1);
  return true;
}

/**
 * A failed order paid again, or a cancelled one restored (wc_update_coupon_usage_counts on processing, completed,
 * on-hold or pending, for an order whose uses are not recorded): its coupon's use is counted again, without the
 * checks a checkout makes (WC_Coupon::increase_usage_count), so a coupon whose use another order took since is
 * over its limit. A coupon deleted since is left alone. Whether it was counted.
 */
export function countCouponAgain(fake: FakeWooCommerce, code: string, billingEmail: string): boolean {
  const coupon = [...stateOf(fake).coupons.values()].find(
    (each) => each.status === 'publish' && each.code === formatCode(code),
  );
  if (!coupon) return false;
  coupon.usage_count += 1;
  coupon.used_by.push(billingEmail.trim().toLowerCase());
  return true;
}
