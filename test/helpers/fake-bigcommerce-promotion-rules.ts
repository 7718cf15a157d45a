// A promotion's rules on the fake BigCommerce (fake-bigcommerce-promotions.ts): what POST v3/promotions takes, refuses
// and reads back, from BigCommerce's documentation:
// - Rule: `action` required; apply_once ("default: true") and stop; read back with both, as every example answer
//   has them (apply_once true, stop false where the request left them out)
//   (https://developer.bigcommerce.com/docs/rest-management/promotions, reference/promotions.v3.yml: Rule;
//   https://developer.bigcommerce.com/docs/store-operations/promotions/examples/customer).
// - Action: one of cart_value, cart_items, gift_item, fixed_price_set, shipping (promotions.v3.yml: Action). The fake
//   checks the two the bridge makes and keeps the others as sent.
// - cart_value: `discount` required (CartValueAction), a Discount: oneOf FixedDiscount {fixed_amount: Money, text
//   like "12.95", pattern [0-9]+(\.[0-9]+)?} or PercentageDiscount {percentage_amount: string, "the amount of
//   discount (percentage off)"}. The examples send percentage_amount as text ("10") and as a number (100) and read it
//   back as text ("100") (https://developer.bigcommerce.com/docs/store-operations/promotions/examples/category).
//   BigCommerce names no bound for it, nor its words for one outside: the fake refuses a percentage that is not more
//   than 0 and at most 100 (no share off is more than the whole) with the documented 422 ErrorResponse
//   {errors: [{status, title}]}, "The request payload was invalid"; its title is the fake's own.
// - shipping: zone_ids required, "*" for all zones or a list of unique zone ids of at least 1; free_shipping, a
//   boolean, "true to provide a separate free shipping method" (ShippingAction;
//   https://developer.bigcommerce.com/docs/store-operations/promotions/examples/shipping).
// - condition: cart.minimum_spend is Money (CartCondition).
// What a rule takes off a cart at checkout is fake-bigcommerce-checkout.ts's.

/** A rule as the fake keeps it: what was sent, apply_once and stop filled in, a percentage read back as text. */
export type SavedRule = Record<string, unknown> & {
  action: Record<string, unknown>;
  apply_once: boolean;
  stop: boolean;
};

const MONEY = /^[0-9]+(\.[0-9]+)?$/;
const ACTIONS = ['cart_value', 'cart_items', 'gift_item', 'fixed_price_set', 'shipping'];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A Discount as kept, or why it is refused. */
function savedDiscount(discount: unknown): Record<string, unknown> | string {
  if (!isRecord(discount)) return 'discount is required';
  const { fixed_amount: fixed, percentage_amount: percentage, ...rest } = discount;
  if ((fixed === undefined) === (percentage === undefined))
    return 'discount must have one of fixed_amount and percentage_amount';
  if (fixed !== undefined)
    return typeof fixed === 'string' && MONEY.test(fixed) ? discount : 'fixed_amount must be an amount like 12.95';
  const text = typeof percentage === 'number' ? String(percentage) : percentage;
  if (typeof text !== 'string' || !MONEY.test(text) || Number(text) <= 0 || Number(text) > 100)
    return 'percentage_amount must be a percentage more than 0 and at most 100';
  return { ...rest, percentage_amount: text };
}

/** A shipping action as kept, or why it is refused. */
function savedShipping(shipping: unknown): Record<string, unknown> | string {
  if (!isRecord(shipping)) return 'shipping must be an object';
  const zones = shipping.zone_ids;
  const listed =
    Array.isArray(zones) &&
    zones.length > 0 &&
    zones.every((zone) => Number.isInteger(zone) && (zone as number) >= 1) &&
    new Set(zones).size === zones.length;
  if (zones !== '*' && !listed) return 'zone_ids must be * or a list of shipping zone ids';
  if (shipping.free_shipping !== undefined && typeof shipping.free_shipping !== 'boolean')
    return 'free_shipping must be a boolean';
  return shipping;
}

/** An action as kept, or why it is refused. */
function savedAction(action: unknown): Record<string, unknown> | string {
  if (!isRecord(action)) return 'action is required';
  const kinds = Object.keys(action);
  if (kinds.length !== 1 || !ACTIONS.includes(kinds[0]!)) return `action must be one of ${ACTIONS.join(', ')}`;
  if (action.cart_value !== undefined) {
    if (!isRecord(action.cart_value)) return 'cart_value must be an object';
    const discount = savedDiscount(action.cart_value.discount);
    return typeof discount === 'string' ? discount : { cart_value: { ...action.cart_value, discount } };
  }
  if (action.shipping !== undefined) {
    const shipping = savedShipping(action.shipping);
    return typeof shipping === 'string' ? shipping : { shipping };
  }
  return action;
}

/** One rule as kept, or why it is refused. */
function savedRule(rule: unknown): SavedRule | string {
  if (!isRecord(rule)) return 'each rule must be an object';
  const action = savedAction(rule.action);
  if (typeof action === 'string') return action;
  for (const flag of ['apply_once', 'stop'])
    if (rule[flag] !== undefined && typeof rule[flag] !== 'boolean') return `${flag} must be a boolean`;
  const spend =
    isRecord(rule.condition) && isRecord(rule.condition.cart) ? rule.condition.cart.minimum_spend : undefined;
  if (spend !== undefined && (typeof spend !== 'string' || !MONEY.test(spend)))
    return 'minimum_spend must be an amount like 12.95';
  return { ...rule, action, apply_once: rule.apply_once !== false, stop: rule.stop === true };
}

/** The rules of a promotion as BigCommerce keeps and reads them back, or the title of its 422. */
export function savedRules(rules: unknown): SavedRule[] | string {
  if (!Array.isArray(rules) || rules.length === 0) return 'rules is required';
  const saved: SavedRule[] = [];
  for (const rule of rules) {
    const each = savedRule(rule);
    if (typeof each === 'string') return each;
    saved.push(each);
  }
  return saved;
}
