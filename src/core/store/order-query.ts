// The admin's order query as a predicate over summaries: what the lowdb
// backend filters with, and what the PostgreSQL backend's SQL must agree with.
import type { OrderSummary } from '../order-summary.ts';
import type { OrderQuery } from './ledger-store.ts';

export function matchesQuery(order: OrderSummary, query: Omit<OrderQuery, 'page' | 'limit'>): boolean {
  if (query.platform && order.platform !== query.platform) return false;
  if (query.shop && order.shop !== query.shop) return false;
  if (query.state && order.state !== query.state) return false;
  if (query.reason && order.reason !== query.reason) return false;
  const at = Date.parse(order.updatedAt);
  if (query.since && at < query.since.getTime()) return false;
  if (query.until && at > query.until.getTime()) return false;
  if (query.q) {
    const needle = query.q.toLowerCase();
    if (![order.orderId, order.orderName, order.email ?? ''].some((field) => field.toLowerCase().includes(needle)))
      return false;
  }
  return true;
}

/** Newest first; the key breaks ties so pages never overlap. */
export const newestFirst = (a: OrderSummary, b: OrderSummary) =>
  b.updatedAt.localeCompare(a.updatedAt) || a.key.localeCompare(b.key);
