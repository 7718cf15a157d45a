// A customer's orders by one identifier (the storefront's count): active ones from memory, settled ones from the
// chunks whose filter may hold the customer.
import type { OrderRecord } from '../../order-record.ts';
import { filterKey, mayHold, orderKeys } from './customer-filter.ts';
import type { LowdbParts } from './parts.ts';

export async function customerOrders(
  p: LowdbParts,
  customer: { email: string } | { mobile: string },
): Promise<OrderRecord[]> {
  const { active, settled } = p;
  const key = filterKey(customer);
  const theirs = (record: OrderRecord) => orderKeys(record).includes(key);
  const orders: OrderRecord[] = [];
  const seen = new Set<string>();
  const take = (record: OrderRecord) => {
    if (seen.has(record.key) || !theirs(record)) return;
    seen.add(record.key);
    orders.push(structuredClone(record));
  };
  // Active orders are in memory; settled ones are read from the chunks whose filter may hold the customer.
  // The chunks are read outside the serial queue, so orders move meanwhile: one settled after the first pass is
  // taken once (seen), and one an event brought back before its chunk was read left that chunk and is active
  // now, so active orders are looked at again after the chunks. An active copy is the newer one.
  for (const record of active.values()) take(record);
  for await (const record of settled.scan((summary) => mayHold(summary.customers, key)))
    take(active.get(record.key) ?? record);
  for (const record of active.values()) take(record);
  return orders;
}
