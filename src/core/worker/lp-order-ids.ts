// Which lp_orderid an order goes to the loyalty service under. Two stores on one loyalty account can both
// have an order 4242, and the second's earn would update the first store's customer's earning. So a numeric
// prefix may be set per platform or shop (LOYALTY_ORDER_ID_PREFIXES), and every lp_orderid is registered to
// its order before the first call, so that a collision left stops that order instead of touching another's
// points.

import { DEFAULT_ACCOUNT } from '../accounts.ts';

/** platform, or platform:shop, to a numeric prefix. */
export type OrderIdPrefixes = Readonly<Record<string, string>>;

export function lpOrderIdFor(prefixes: OrderIdPrefixes, platform: string, shop: string, orderId: string): string {
  const prefix = prefixes[`${platform}:${shop}`] ?? prefixes[platform] ?? '';
  return `${prefix}${orderId}`;
}

/**
 * Prefixes must be digits, not start with 0 (it would vanish in an integer),
 * and none may be the start of another: then "1" + any id can never equal
 * "2" + any id. Returns what is wrong, for the configuration's error line.
 */
export function prefixProblems(prefixes: OrderIdPrefixes): string[] {
  const problems: string[] = [];
  const values = Object.entries(prefixes);
  for (const [target, prefix] of values) {
    if (!/^[1-9]\d{0,5}$/.test(prefix))
      problems.push(`${target}=${prefix}: a prefix is 1 to 6 digits and does not start with 0`);
  }
  for (const [a, first] of values) {
    for (const [b, second] of values) {
      if (a < b && (first.startsWith(second) || second.startsWith(first)))
        problems.push(`${a}=${first} and ${b}=${second}: one prefix starts the other, so their ids can collide`);
    }
  }
  return problems;
}

/**
 * The key an lp_orderid is registered under: lp_orderids need to be unique
 * within one loyalty account, not across accounts (two merchants' stores both
 * have an order 7801, each on its own account). The default account's keep
 * the plain id, as releases before accounts registered them.
 */
export function lpOrderIdClaim(lpOrderId: string, account: string): string {
  return account === DEFAULT_ACCOUNT ? lpOrderId : `${lpOrderId}@${account}`;
}

export function collisionReason(lpOrderId: string, orderKey: string, owner: string): string {
  return (
    `lp_orderid ${lpOrderId} of order ${orderKey} is already used by order ${owner} from another store on this loyalty account; ` +
    `sending it would change that order's points. Give each store its own prefix in LOYALTY_ORDER_ID_PREFIXES (for example <platform>=1,<platform>:<shop>=2), restart, then retry this dead letter`
  );
}
