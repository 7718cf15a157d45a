// A customer's orders on an account as the bridge's ledger keeps them: the figures the storefront shows where
// the service gives none (customer-points.ts, pointsFromLedger).
import type { LoyaltyRejectedError } from '../../loyalty/errors.ts';
import { DEFAULT_ACCOUNT, type Accounts, type AccountRuntime } from '../accounts.ts';
import { orderPoints } from '../activity-points.ts';
import type { Adjustment, OperatorQueries, RecordRole } from '../store/ledger-store.ts';
import { emailLastEarned } from './customer-holders.ts';
import { customerKey, type LedgerOrder, type ServiceCustomer } from './customer-points.ts';
import type { TakeBack } from './take-backs.ts';
import { ADJUSTMENT_KIND } from '../store/roles/core-kinds.ts';

/** The customer's orders on the account, as the ledger keeps them, with the points each activity gives. */
export async function customerLedgerOrders(
  parts: { store: Pick<OperatorQueries & RecordRole, 'customerOrders'>; accounts: Pick<Accounts, 'forShop'> },
  account: AccountRuntime,
  customer: ServiceCustomer,
): Promise<LedgerOrder[]> {
  const orders: LedgerOrder[] = [];
  let found = await parts.store.customerOrders(customer);
  // The service answers a phone with the customer of the e-mail last earned with it (customer-holders.ts): their
  // orders, for the bridge's own check of what its codes hold (a page by such a phone shows nothing: needsEmail). A
  // phone no earned order paired with an e-mail has those without one.
  const email = 'mobile' in customer ? emailLastEarned(found, account.id) : undefined;
  if (email !== undefined) found = await parts.store.customerOrders({ email });
  for (const order of found) {
    const owner = order.upstream.account ?? (await parts.accounts.forShop(order.platform, order.shop));
    if (owner !== account.id) continue;
    if ('mobile' in customer && email === undefined && order.snapshot.customer.email) continue;
    // The order's own redeem only: a reward code's is counted by its reservation (heldPoints, 'ledger'), on the
    // account that issued it, for the code's customer.
    const points = orderPoints(
      { ...order.upstream, upstream: order.upstream.points },
      account.activityPoints,
      () => '',
    );
    orders.push({
      orderName: order.snapshot.orderName,
      state: points.state,
      earned: points.earned,
      redeemed: points.redeemed,
      earnedAt: order.upstream.earnedAt,
      updatedAt: order.updatedAt,
    });
  }
  return orders;
}

/**
 * The service refused the read because it has never seen the customer (the sandbox: 400 "no customer found for
 * lp_email"; the real service documents no words, so only a refusal that says the customer or user was not found
 * counts): nothing of theirs exists elsewhere. Any other refusal says nothing about them.
 */
export const saysNeverSeen = (error: LoyaltyRejectedError): boolean =>
  /\b(customer|user)\b[^.]*\bnot found\b|\bno (customer|user)\b[^.]*\bfound\b/i.test(
    [error.serviceMessage, error.detail].filter(Boolean).join(': '),
  );

/** The customer's take-backs by hand on the account, the service's key for them being the customer's. */
export async function takeBacksOf(
  store: Pick<OperatorQueries & RecordRole, 'listRecords'>,
  account: string,
  customer: ServiceCustomer,
): Promise<TakeBack[]> {
  const key = customerKey(customer);
  // As adjustments.ts sends a take-back: the e-mail where there is one, else the phone.
  const keyOf = ({ email, mobile }: Adjustment['customer']) =>
    email ? customerKey({ email }) : mobile ? customerKey({ mobile }) : undefined;
  return (await store.listRecords(ADJUSTMENT_KIND)).flatMap(({ value }) =>
    value.kind === 'redeem' &&
    value.outcome !== 'failed' &&
    value.points !== undefined &&
    (value.account ?? DEFAULT_ACCOUNT) === account &&
    keyOf(value.customer) === key
      ? [{ at: value.at, points: value.points }]
      : [],
  );
}
