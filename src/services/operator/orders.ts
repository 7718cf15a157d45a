// The operator's orders: the list and one order in words with their points, points redeemed on a cancelled order
// (and giving them back), and resyncs (reading a platform's orders again).
import { pointsOf, pointsSourceOf, type PointsView } from '../../core/order-points-view.ts';
import type { OrderSummary } from '../../core/order-summary.ts';
import type { RedeemedOrder } from '../../core/redeemed-points.ts';
import type { ResyncJob, ResyncRequest } from '../../core/resync-jobs.ts';
import type { OrderQuery } from '../../core/store/roles/queries.ts';
import { BadInput } from '../refused.ts';
import { adjusted, type Adjusted } from './adjusted.ts';
import { Declined } from './declined.ts';
import type { OperatorParts } from './parts.ts';

export interface GiveBackInput {
  activityId?: string | undefined;
  reason?: string | undefined;
}

export interface OperatorOrders {
  /** A page of orders, each in words with its points. */
  orders(query: OrderQuery): Promise<{
    total: number;
    page: number;
    limit: number;
    orders: Array<OrderSummary & { points: PointsView | undefined }>;
  }>;
  /** One order's whole record, in words beside its codes, with its points. */
  order(key: string): Promise<{ order: object & { points: PointsView | undefined; words: object } }>;
  redeemedOnCancelled(): Promise<{ orders: RedeemedOrder[] }>;
  giveBackRedeemed(key: string, input: GiveBackInput, by: string): Promise<Adjusted>;
  startResync(request: ResyncRequest): Promise<{ job: ResyncJob }>;
  resyncs(): Promise<{ jobs: ResyncJob[] }>;
  resync(id: string): Promise<{ job: ResyncJob }>;
}

export const operatorOrders = ({ engine, resyncJobs, words }: OperatorParts): OperatorOrders => ({
  orders: async (query: OrderQuery) => {
    const { total, orders } = await engine.store.listOrders(query);
    const points = await pointsOf(orders, engine.accounts, 'operator');
    const worded = await words.ordersInWords(orders);
    return {
      total,
      page: query.page,
      limit: query.limit,
      orders: worded.map((order, i) => ({ ...order, points: points[i] })),
    };
  },
  order: async (key: string) => {
    const order = await engine.store.getOrder(key);
    if (!order) throw new Declined(404, `no order ${key}`);
    const [points] = await pointsOf([pointsSourceOf(order)], engine.accounts, 'operator');
    return { order: { ...words.orderDetail(order), points, words: await words.orderWords(order) } };
  },
  /** Orders whose redeemed points a cancellation left taken ("points redeemed on a cancelled order"). */
  redeemedOnCancelled: async () => ({ orders: await engine.redeemedPoints.list() }),
  giveBackRedeemed: async (key: string, input: GiveBackInput, by: string) => {
    const result = await engine.redeemedPoints.giveBack(key, {
      by,
      reason: input.reason,
      activityId: input.activityId,
    });
    switch (result.kind) {
      case 'given':
        return { taken: true, adjustment: result.adjustment } as const;
      case 'refused':
        throw new Declined(result.status, result.reason);
      case 'failed':
        return adjusted({ adjustment: result.adjustment, error: result.error });
      case 'unknown':
        return adjusted({ adjustment: result.adjustment, deadLetter: result.deadLetter });
    }
  },
  startResync: async (request: ResyncRequest) => {
    const started = await resyncJobs.start(request);
    if (!started.ok)
      throw new BadInput(
        started.reason.startsWith('loyalty-bridge has no API access to') ? 'shop' : 'platform',
        started.reason,
      );
    return { job: started.job };
  },
  resyncs: async () => ({ jobs: await resyncJobs.list() }),
  resync: async (id: string) => {
    const job = await resyncJobs.get(id);
    if (!job) throw new Declined(404, `no resync ${id}`);
    return { job };
  },
});
