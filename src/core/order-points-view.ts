// Each order's points as a number, for the pages, the API and status: its activity's points under its account's
// declared list (src/core/activity-points.ts). Accounts are looked up once per answer.
import { DEFAULT_ACCOUNT, type AccountRuntime } from './accounts.ts';
import { activityGiving, givableAmounts, orderPoints, pointsText, type OrderPoints } from './activity-points.ts';
import type { UpstreamPoints } from './order-record.ts';
import { redemptionSummary } from './redeems.ts';
import type { OperatorQueries } from './store/ledger-store.ts';

/** What an order's points are read from: a summary's fields, or a record's upstream under these names. */
export interface PointsSource {
  upstream: UpstreamPoints;
  earnActivityId?: string | undefined;
  account?: string | undefined;
  redeemedPoints?: number | undefined;
}

/**
 * The people who read: the operator puts the list right in the account's settings, a merchant in Set up, and a
 * merchant on an account the operator set up (mayChangeProgram false) asks the operator.
 */
export type PointsReader = 'operator' | 'merchant' | 'merchantViaOperator';
const WHERE: Record<PointsReader, string> = {
  operator: "in the account's settings (LOYALTY_ACTIVITY_POINTS)",
  merchant: 'in Set up (Points each activity gives)',
  merchantViaOperator: 'ask the bridge’s operator, who runs your program',
};
const UNDECLARED: Record<PointsReader, (activityId: string) => string> = {
  operator: (id) => `declare how many points activity ${id} gives, ${WHERE.operator}`,
  merchant: (id) => `declare how many points activity ${id} gives, ${WHERE.merchant}`,
  merchantViaOperator: (id) => `${WHERE.merchantViaOperator}, to declare how many points activity ${id} gives`,
};

/** The merchant's reader: Set up where the program is theirs to change, the operator where it is not. */
export const merchantReader = (mayChangeProgram: boolean | undefined): PointsReader =>
  mayChangeProgram === false ? 'merchantViaOperator' : 'merchant';

/** `activityId` is the operator's to read: a merchant's answer leaves it out. */
export type PointsView = Omit<OrderPoints, 'activityId'> & { activityId?: string | null; text: string };

/** What of an account the points are read from. */
export type PointsAccount = Pick<AccountRuntime, 'activityPoints' | 'earnActivityId'> & {
  policy: Pick<AccountRuntime['policy'], 'earnBands'>;
};
export interface PointsAccounts {
  runtime(id: string): Promise<PointsAccount | undefined>;
}

/** Each order's points, in the order given. */
export async function pointsOf(
  orders: readonly PointsSource[],
  accounts: PointsAccounts,
  reader: PointsReader,
): Promise<PointsView[]> {
  const runtimes = new Map<string, Promise<PointsAccount | undefined>>();
  const runtimeOf = (id: string) => {
    let runtime = runtimes.get(id);
    if (!runtime) runtimes.set(id, (runtime = accounts.runtime(id).catch(() => undefined)));
    return runtime;
  };
  return Promise.all(
    orders.map(async (order) => {
      const runtime = await runtimeOf(order.account ?? DEFAULT_ACCOUNT);
      // An order earned before the activity was kept with it: the account's one activity, when it has no bands.
      const earnActivityId =
        order.earnActivityId ??
        (order.upstream !== 'none' && runtime && runtime.policy.earnBands.length === 0
          ? runtime.earnActivityId
          : undefined);
      const points = orderPoints({ ...order, earnActivityId }, runtime?.activityPoints, UNDECLARED[reader]);
      // Which activity an order went under is the account's program: a merchant's page needs only the number.
      const { activityId: _activityId, ...shown } = points;
      return { ...(reader === 'operator' ? points : shown), text: pointsText(points) };
    }),
  );
}

/** A record's fields under the names pointsOf reads. */
export const pointsSourceOf = (record: {
  upstream: {
    points: UpstreamPoints;
    earnActivityId?: string | undefined;
    account?: string | undefined;
  } & Parameters<typeof redemptionSummary>[0];
}): PointsSource => ({
  upstream: record.upstream.points,
  earnActivityId: record.upstream.earnActivityId,
  account: record.upstream.account,
  // Every point spent on the order, its own redeem's and its reward codes'.
  redeemedPoints: redemptionSummary(record.upstream).redeemedPoints,
});

/** How many of the newest orders status shows, each with its points. */
const RECENT_ORDERS = 10;

/** The newest orders as status prints them: the store's name for each, its state, its points. */
const recentOrdersOf = (
  orders: ReadonlyArray<{
    orderName: string;
    orderId: string;
    platform: string;
    shop: string;
    state: string;
    reason?: string | undefined;
  }>,
  points: readonly PointsView[],
) =>
  orders.flatMap((order, i) => {
    const each = points[i];
    if (!each) return [];
    const { orderName, orderId, platform, shop, state, reason } = order;
    return [{ orderName: orderName || orderId, platform, shop, state, reason: reason ?? null, points: each }];
  });

export type RecentOrder = ReturnType<typeof recentOrdersOf>[number];

/** The newest orders of the ledger with their points, for status (the admin API's, and the CLI's on the ledger). */
export async function newestOrders(
  store: Pick<OperatorQueries, 'listOrders'>,
  accounts: PointsAccounts,
): Promise<RecentOrder[]> {
  const { orders } = await store.listOrders({ page: 1, limit: RECENT_ORDERS });
  return recentOrdersOf(orders, await pointsOf(orders, accounts, 'operator'));
}

/**
 * Points given by hand, asked for in points: the activity of the account that gives exactly that many. None does:
 * why, naming the amounts that can be given (a 400 on `points`). An earn that names its activity (callers from
 * before) goes as it is.
 */
export async function earnByPoints<Body extends { points?: number | undefined; activityId?: string | undefined }>(
  body: Body,
  accounts: PointsAccounts,
  account: string,
  reader: PointsReader,
): Promise<{ ok: true; request: Body & { activityId: string } } | { ok: false; why: string }> {
  if (body.activityId !== undefined) return { ok: true, request: { ...body, activityId: body.activityId } };
  const points = body.points ?? 0;
  const declared = (await accounts.runtime(account))?.activityPoints;
  const activityId = activityGiving(declared, points);
  if (activityId !== undefined) return { ok: true, request: { ...body, activityId } };
  const amounts = givableAmounts(declared);
  return {
    ok: false,
    why:
      amounts.length === 0
        ? `no activity's points are declared, so none can be given by hand: declare how many points each activity gives, ${WHERE[reader]}`
        : `no activity gives exactly ${points} points; the amounts that can be given are ${amounts.join(', ')} (declare more ${WHERE[reader]})`,
  };
}
