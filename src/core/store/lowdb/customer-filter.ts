// Which customers a settled chunk may hold, in a few bytes per order: a Bloom filter of its orders' e-mails
// (normalised) and phones (E.164), kept in the chunk's summary (orders/chunks.json), so that a customer's orders
// are read from the chunks that may hold them only, without an index that grows in memory with every order.
// A filter says "no" for certain, "maybe" wrongly about one time in a hundred (10 bits and 7 probes a key).
import { createHash } from 'node:crypto';
import type { OrderRecord } from '../../order-record.ts';
import { internationalPhone, normalEmail } from '../customer-data.ts';

const BITS_PER_KEY = 10;
const PROBES = 7;

/** A customer as the service keys them: by e-mail, or by phone. */
export type CustomerKey = { email: string } | { mobile: string };

/** The filter's keys for a customer: their e-mail as the ledger compares it, their phone in E.164. */
export function filterKey(customer: CustomerKey): string {
  return 'email' in customer
    ? `e:${normalEmail(customer.email)}`
    : `m:${internationalPhone(customer.mobile) ?? customer.mobile.trim()}`;
}

/** The keys an order's customer is found by. */
export function orderKeys(record: Pick<OrderRecord, 'snapshot'>): string[] {
  const { email, mobile } = record.snapshot.customer;
  return [...(email ? [filterKey({ email })] : []), ...(mobile ? [filterKey({ mobile })] : [])];
}

function probes(key: string, bits: number): number[] {
  const digest = createHash('sha256').update(key).digest();
  const [a, b] = [digest.readUInt32LE(0), (digest.readUInt32LE(4) | 1) >>> 0];
  return Array.from({ length: PROBES }, (_, i) => (a + i * b) % bits);
}

/** The filter of these orders' customers, base64. */
export function customerFilter(orders: Iterable<Pick<OrderRecord, 'snapshot'>>): string {
  const keys = new Set<string>();
  for (const order of orders) for (const key of orderKeys(order)) keys.add(key);
  const bytes = Buffer.alloc(Math.max(8, Math.ceil((keys.size * BITS_PER_KEY) / 8)));
  for (const key of keys) for (const bit of probes(key, bytes.length * 8)) bytes[bit >> 3]! |= 1 << (bit & 7);
  return bytes.toString('base64');
}

/** Whether a chunk of this filter may hold the customer; without a filter (a summary from before them), it may. */
export function mayHold(filter: string | undefined, key: string): boolean {
  if (filter === undefined) return true;
  const bytes = Buffer.from(filter, 'base64');
  return probes(key, bytes.length * 8).every((bit) => (bytes[bit >> 3]! & (1 << (bit & 7))) !== 0);
}
