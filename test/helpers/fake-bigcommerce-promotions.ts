// BigCommerce's Promotions API (v3) on the fake BigCommerce's store API, from BigCommerce's documentation
// (reference/promotions.v3.yml; docs/store-operations/promotions/index.mdx, "How to create a coupon promotion"):
//   POST   v3/promotions               DraftCouponPromotion -> 201 {data: SavedCouponPromotion, meta: {}};
//                                      422 {errors: [{status, title}]} without name, redemption_type or rules, or
//                                      with coupon_overrides_other_promotions while can_be_used_with_other_promotions,
//                                      or with a rule BigCommerce does not take (fake-bigcommerce-promotion-rules.ts)
//   GET    v3/promotions               ?code= (a promotion having that code), query (its name or one of its codes
//                                      contains it: "Filter items by both name or code"), redemption_type, id ->
//                                      {data, meta}
//   GET    v3/promotions/<id>          {data, meta: {}}; 404 for none. Its codes are not in it.
//   DELETE v3/promotions/<id>          204 (also when there is none); a promotion that still has codes is refused
//                                      with 422, as the bulk delete documents ("some relating codes are still present")
//   GET    v3/promotions/<id>/codes    {data: [CouponCode], meta}; 404 for no such promotion (undocumented)
//   POST   v3/promotions/<id>/codes    {code, max_uses, max_uses_per_customer} -> 201 {data: CouponCode, meta: {}};
//                                      code: letters, digits, spaces, _ and -, at most 50; unique in the store (422)
//   DELETE v3/promotions/<id>/codes    ?id:in=1,2 -> 204; v3/promotions/<id>/codes/<code_id> -> 204
//   GET    v3/promotions/codes         ?code= (required) -> {data: [CouponCode], meta}
// Scopes (securitySchemes): Marketing, store_v2_marketing to change, store_v2_marketing_read_only to read; a token
// without them gets 403 {status, title, error} (ErrorResponse403).
// currency_code: "Promotions only apply to orders in the specified transactional currency. `currency_code` is optional
// and defaults to the store default currency if not supplied", "an uppercase three-letter string", and a display
// currency is "not valid" (docs/store-operations/promotions/index.mdx, "Currency code"); "* for all currencies"
// (reference/promotions.v3.yml). The fake's store has one transactional currency, its default (FakeStore.currency):
// any other is refused with 422.
// A checkout applying a code is fake-bigcommerce-checkout.ts.
import type { Request, Response } from 'express';
import { fakeScopeOf, fakeStoreOf, type FakeBigCommerce, type FakeStore } from './fake-bigcommerce.ts';
import { savedRules, type SavedRule } from './fake-bigcommerce-promotion-rules.ts';

export interface FakeCouponCode {
  id: number;
  code: string;
  current_uses: number;
  max_uses: number;
  max_uses_per_customer: number;
  created: string;
  /** Uses per customer id, for max_uses_per_customer (the store's own bookkeeping, not in answers). */
  usesBy: Map<string, number>;
}

export interface FakePromotion {
  id: number;
  name: string;
  redemption_type: 'COUPON' | 'AUTOMATIC';
  coupon_type: 'SINGLE' | 'BULK';
  created_from: 'api';
  channels: Array<{ id: number }>;
  customer: Record<string, unknown>;
  rules: SavedRule[];
  notifications: unknown[];
  current_uses: number;
  max_uses: number | null;
  status: 'ENABLED' | 'DISABLED' | 'INVALID';
  start_date: string;
  end_date: string | null;
  stop: boolean;
  can_be_used_with_other_promotions: boolean;
  coupon_overrides_other_promotions: boolean;
  currency_code: string;
  codes: FakeCouponCode[];
}

/** Where the next create fails: the promotion's or its code's, before it is stored or after (its answer lost). */
export interface CreateFailure {
  what: 'promotion' | 'code';
  when: 'before' | 'after';
}

interface StoreState {
  promotions: Map<number, FakePromotion>;
  /** Every code the store ever made, by its text (upper case): kept after a delete, for tests. */
  made: Map<string, { code: FakeCouponCode; promotion: FakePromotion }>;
  nextPromotion: number;
  nextCode: number;
  fail: CreateFailure | undefined;
}

const states = new WeakMap<FakeStore, StoreState>();
const installed = new WeakSet<FakeBigCommerce>();

function stateOf(store: FakeStore): StoreState {
  let state = states.get(store);
  if (!state) {
    state = { promotions: new Map(), made: new Map(), nextPromotion: 1, nextCode: 1, fail: undefined };
    states.set(store, state);
  }
  return state;
}

function storeNamed(fake: FakeBigCommerce, hash: string): FakeStore {
  const store = fake.stores.get(hash);
  if (!store) throw new Error(`the fake BigCommerce has no store ${hash}`);
  return store;
}

const STATUS_CODES = 'https://developer.bigcommerce.com/api-docs/getting-started/api-status-codes';
const invalid = (res: Response, title: string) =>
  void res.status(422).json({ errors: [{ status: 422, title, type: STATUS_CODES }] });
const notFound = (res: Response) =>
  void res.status(404).json({ errors: [{ status: 404, title: 'The requested resource was not found.' }] });

/** The token's scopes allow this call: read with either Marketing scope, change only with store_v2_marketing. */
function allowed(req: Request, res: Response): boolean {
  const scope = fakeScopeOf(res);
  if (scope === undefined) return true;
  const scopes = new Set(scope.split(/\s+/));
  if (scopes.has('store_v2_marketing')) return true;
  if (req.method === 'GET' && scopes.has('store_v2_marketing_read_only')) return true;
  res.status(403).json({
    status: 403,
    title: "You don't have a required scope to access the endpoint",
    type: STATUS_CODES,
    error: 'Forbidden',
  });
  return false;
}

const codeView = ({ usesBy: _uses, ...code }: FakeCouponCode) => code;
const promotionView = ({ codes: _codes, ...promotion }: FakePromotion) => ({
  ...promotion,
  multiple_codes: { has_multiple_codes: _codes.length > 1 },
});
const listMeta = (count: number) => ({
  pagination: { total: count, count, per_page: 50, current_page: 1, total_pages: 1, links: { current: '?page=1' } },
});

/** An ISO date BigCommerce would take, or undefined. */
const dateOf = (value: unknown) => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? value : undefined);

/** The injected failure for this create, consumed; 'after' loses the answer once the thing is stored. */
function failureFor(state: StoreState, what: CreateFailure['what']): CreateFailure['when'] | undefined {
  if (state.fail?.what !== what) return undefined;
  const when = state.fail.when;
  state.fail = undefined;
  return when;
}
const serverError = (res: Response) =>
  void res.status(500).json({ status: 500, title: 'Internal Server Error', type: STATUS_CODES });
/** The connection drops before the answer: the caller cannot know the thing was made. */
const hangUp = (res: Response) => void res.socket?.destroy();

/** Finding promotions and codes by code, name or kind (before /:id, which would take "codes" for an id). */
function serveLookups(api: FakeBigCommerce['storeApi']): void {
  api.get('/v3/promotions/codes', (req, res) => {
    if (!allowed(req, res)) return;
    const code = typeof req.query.code === 'string' ? req.query.code : '';
    if (!code) return invalid(res, 'Parameter code is required');
    const codes = [...stateOf(fakeStoreOf(res)).promotions.values()]
      .flatMap((promotion) => promotion.codes)
      .filter((each) => each.code.toUpperCase() === code.toUpperCase());
    res.json({ data: codes.map(codeView), meta: listMeta(codes.length) });
  });

  api.get('/v3/promotions', (req, res) => {
    if (!allowed(req, res)) return;
    const query = req.query as Record<string, string | undefined>;
    const promotions = [...stateOf(fakeStoreOf(res)).promotions.values()].filter(
      (promotion) =>
        (query.code === undefined ||
          promotion.codes.some((each) => each.code.toUpperCase() === query.code!.toUpperCase())) &&
        (query.query === undefined ||
          [promotion.name, ...promotion.codes.map((each) => each.code)].some((text) =>
            text.toUpperCase().includes(query.query!.toUpperCase()),
          )) &&
        (query.redemption_type === undefined ||
          promotion.redemption_type.toLowerCase() === query.redemption_type.toLowerCase()) &&
        (query.id === undefined || promotion.id === Number(query.id)),
    );
    res.json({ data: promotions.map(promotionView), meta: listMeta(promotions.length) });
  });
}

/** Making, reading and deleting a promotion. */
function servePromotions(api: FakeBigCommerce['storeApi']): void {
  api.post('/v3/promotions', (req, res) => {
    if (!allowed(req, res)) return;
    const state = stateOf(fakeStoreOf(res));
    const fail = failureFor(state, 'promotion');
    if (fail === 'before') return serverError(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body.name !== 'string' || body.name === '') return invalid(res, 'name is required');
    if (body.redemption_type !== 'COUPON' && body.redemption_type !== 'AUTOMATIC')
      return invalid(res, 'redemption_type must be COUPON or AUTOMATIC');
    const rules = savedRules(body.rules);
    if (typeof rules === 'string') return invalid(res, rules);
    const combines = body.can_be_used_with_other_promotions !== false;
    if (combines && body.coupon_overrides_other_promotions !== undefined)
      return invalid(res, 'coupon_overrides_other_promotions needs can_be_used_with_other_promotions false');
    const currency = body.currency_code ?? fakeStoreOf(res).currency;
    if (currency !== '*' && currency !== fakeStoreOf(res).currency)
      return invalid(res, `currency_code must be * or one of the store's transactional currencies`);
    const start = body.start_date === undefined ? new Date().toISOString() : dateOf(body.start_date);
    const end = body.end_date === undefined || body.end_date === null ? null : dateOf(body.end_date);
    if (start === undefined || end === undefined) return invalid(res, 'start_date and end_date must be dates');
    if (end !== null && Date.parse(end) <= Date.parse(start)) return invalid(res, 'end_date must be after start_date');
    const promotion: FakePromotion = {
      id: state.nextPromotion++,
      name: body.name,
      redemption_type: body.redemption_type,
      coupon_type: body.coupon_type === 'BULK' ? 'BULK' : 'SINGLE',
      created_from: 'api',
      channels: Array.isArray(body.channels) ? (body.channels as Array<{ id: number }>) : [],
      customer: { group_ids: [], minimum_order_count: 0, excluded_group_ids: [], segments: null },
      rules,
      notifications: Array.isArray(body.notifications) ? body.notifications : [],
      current_uses: 0,
      max_uses: typeof body.max_uses === 'number' ? body.max_uses : null,
      status: body.status === 'DISABLED' ? 'DISABLED' : 'ENABLED',
      start_date: start,
      end_date: end,
      stop: body.stop === true,
      can_be_used_with_other_promotions: combines,
      coupon_overrides_other_promotions: body.coupon_overrides_other_promotions === true,
      currency_code: String(currency),
      codes: [],
    };
    state.promotions.set(promotion.id, promotion);
    if (fail === 'after') return hangUp(res);
    res.status(201).json({ data: promotionView(promotion), meta: {} });
  });

  api.get('/v3/promotions/:id', (req, res) => {
    if (!allowed(req, res)) return;
    const promotion = stateOf(fakeStoreOf(res)).promotions.get(Number(req.params.id));
    if (!promotion) return notFound(res);
    res.json({ data: promotionView(promotion), meta: {} });
  });

  api.delete('/v3/promotions/:id', (req, res) => {
    if (!allowed(req, res)) return;
    const state = stateOf(fakeStoreOf(res));
    const promotion = state.promotions.get(Number(req.params.id));
    if (promotion && promotion.codes.length > 0)
      return invalid(res, `Failed for id=${promotion.id}. Error: some relating codes are still present.`);
    state.promotions.delete(Number(req.params.id));
    res.status(204).end();
  });
}

/** A promotion's codes: listed, made, deleted. */
function serveCodes(api: FakeBigCommerce['storeApi']): void {
  api.get('/v3/promotions/:id/codes', (req, res) => {
    if (!allowed(req, res)) return;
    const promotion = stateOf(fakeStoreOf(res)).promotions.get(Number(req.params.id));
    if (!promotion) return notFound(res);
    const code = typeof req.query.code === 'string' ? req.query.code.toUpperCase() : undefined;
    const codes = promotion.codes.filter((each) => code === undefined || each.code.toUpperCase() === code);
    res.json({ data: codes.map(codeView), meta: listMeta(codes.length) });
  });

  api.post('/v3/promotions/:id/codes', (req, res) => {
    if (!allowed(req, res)) return;
    const state = stateOf(fakeStoreOf(res));
    const promotion = state.promotions.get(Number(req.params.id));
    if (!promotion) return notFound(res);
    const fail = failureFor(state, 'code');
    if (fail === 'before') return serverError(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = body.code;
    if (typeof text !== 'string' || !/^[a-zA-Z0-9_ -]{1,50}$/.test(text))
      return invalid(res, 'code: only letters, numbers, white spaces, underscores and hyphens, at most 50');
    const taken = [...state.promotions.values()].some((each) =>
      each.codes.some((code) => code.code.toUpperCase() === text.toUpperCase()),
    );
    if (taken) return invalid(res, 'Coupon code already exists');
    const code: FakeCouponCode = {
      id: state.nextCode++,
      code: text,
      current_uses: 0,
      max_uses: typeof body.max_uses === 'number' ? body.max_uses : 0,
      max_uses_per_customer: typeof body.max_uses_per_customer === 'number' ? body.max_uses_per_customer : 0,
      created: new Date().toISOString(),
      usesBy: new Map(),
    };
    promotion.codes.push(code);
    state.made.set(text.toUpperCase(), { code, promotion });
    if (fail === 'after') return hangUp(res);
    res.status(201).json({ data: codeView(code), meta: {} });
  });

  api.delete('/v3/promotions/:id/codes', (req, res) => {
    if (!allowed(req, res)) return;
    const ids = typeof req.query['id:in'] === 'string' ? req.query['id:in'].split(',').map(Number) : [];
    if (ids.length === 0 || ids.some((id) => !Number.isInteger(id)))
      return void res.status(422).json({
        errors: [{ status: 422, title: 'Parameter id:in is required', type: STATUS_CODES }],
        meta: { total: 0, success: 0, failed: 0 },
      });
    const promotion = stateOf(fakeStoreOf(res)).promotions.get(Number(req.params.id));
    if (promotion) promotion.codes = promotion.codes.filter((code) => !ids.includes(code.id));
    res.status(204).end();
  });

  api.delete('/v3/promotions/:id/codes/:codeId', (req, res) => {
    if (!allowed(req, res)) return;
    const promotion = stateOf(fakeStoreOf(res)).promotions.get(Number(req.params.id));
    if (promotion) promotion.codes = promotion.codes.filter((code) => code.id !== Number(req.params.codeId));
    res.status(204).end();
  });
}

/** Installs the Promotions API on the fake's store API (once per fake). */
export function withPromotions(fake: FakeBigCommerce): FakeBigCommerce {
  if (installed.has(fake)) return fake;
  installed.add(fake);
  serveLookups(fake.storeApi);
  servePromotions(fake.storeApi);
  serveCodes(fake.storeApi);
  return fake;
}

// ---------------------------------------------------------------------------------------------------------------
// Test hooks.

/** The store's promotions as BigCommerce holds them, each with its codes. */
export const promotionsOf = (fake: FakeBigCommerce, hash: string): FakePromotion[] => [
  ...stateOf(storeNamed(fake, hash)).promotions.values(),
];

/** A code the store ever made, by its text, with its counts (kept after its promotion is deleted), and whether it is still there. */
export function madeCode(
  fake: FakeBigCommerce,
  hash: string,
  text: string,
): { code: FakeCouponCode; promotion: FakePromotion; deleted: boolean } | undefined {
  const state = stateOf(storeNamed(fake, hash));
  const made = state.made.get(text.toUpperCase());
  if (!made) return undefined;
  const deleted = state.promotions.get(made.promotion.id)?.codes.includes(made.code) !== true;
  return { ...made, deleted };
}

/** The next create of a promotion or of a code fails: before it is stored (500), or after (the connection drops). */
export function failNextCreate(fake: FakeBigCommerce, hash: string, failure: CreateFailure | undefined): void {
  stateOf(storeNamed(fake, hash)).fail = failure;
}
