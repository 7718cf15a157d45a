// Dead letters' orders and a spent budget's time as a person reads them: the merchant's Home, the operator's
// problems (src/http/problems.ts) and the CLI say them alike.
import type { DeadLetter, OrderWorkRole, OperatorQueries, DeadLetterRole } from './store/ledger-store.ts';

/** How many of the letters' orders are named; the rest are counted. */
const NAMED_ORDERS = 3;

/** How long a budget has been spent, as a person says it ("4 minutes"): a threshold may be under one. */
export function lastedWords(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  return minutes < 1 ? 'less than a minute' : minutes === 1 ? 'a minute' : `${minutes} minutes`;
}

/** The order a letter is of, as the store shows it (#1001); its key where the order is gone. */
export async function letterOrderName(
  store: Pick<OrderWorkRole & OperatorQueries & DeadLetterRole, 'getOrder'>,
  letter: Pick<DeadLetter, 'orderKey'>,
): Promise<string | undefined> {
  if (!letter.orderKey) return undefined;
  const order = await store.getOrder(letter.orderKey);
  return order?.snapshot.orderName || order?.orderId;
}

/**
 * The orders of letters (newest first) as the store shows them, the first few named and the rest counted:
 * " (orders #1001, #1002 and 3 more)"; empty where none can be named.
 */
export async function lettersOrdersNamed(
  store: Pick<OrderWorkRole & OperatorQueries & DeadLetterRole, 'getOrder'>,
  newestFirst: ReadonlyArray<Pick<DeadLetter, 'orderKey'>>,
): Promise<string> {
  const names: string[] = [];
  for (const letter of newestFirst) {
    if (names.length === NAMED_ORDERS) break;
    const name = await letterOrderName(store, letter);
    if (name && !names.includes(name)) names.push(name);
  }
  const more = newestFirst.length - names.length;
  return names.length === 0
    ? ''
    : ` (order${names.length > 1 ? 's' : ''} ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''})`;
}
