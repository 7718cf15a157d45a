// orders/journal.jsonl: the active orders' changes since their partitions
// were last written, one batch per group commit. A worker changes an order
// two or three times per call; rewriting the order's whole 100-order
// partition for each change made the partitions' JSON the drain's limit
// (issue 33: a fifth of the process's time serialising, and one fdatasync
// per partition touched). A batch appends only the orders that changed, with
// one fdatasync, and the partitions are written again only when the journal
// has grown (active-orders.ts).
//
// A batch is its lines, then a line that closes it with their count:
//   {"p":{...order}}   the order as it now is
//   {"d":"key"}        the order left the active orders (settled, erased)
//   {"c":2}            the batch is whole
// A batch is applied only when its closing line is there: a crash during an
// append leaves at most the last batch cut short (never acknowledged, since
// its fdatasync had not returned), and that batch is ignored. Anything that
// does not read after a whole batch that follows it is damage, not a cut.
import type { OrderRecord } from '../../order-record.ts';

export const JOURNAL_FILE = 'journal.jsonl';

export type JournalEntry = { put: OrderRecord } | { remove: string };

/** A batch's text: each order as it is now (`current`), or its removal, then the closing line. */
export function encodeBatch(keys: Iterable<string>, current: (key: string) => OrderRecord | undefined): string {
  let text = '';
  let count = 0;
  for (const key of keys) {
    const record = current(key);
    text += record ? `{"p":${JSON.stringify(record)}}\n` : `${JSON.stringify({ d: key })}\n`;
    count++;
  }
  return count === 0 ? '' : `${text}{"c":${count}}\n`;
}

export class JournalDamage extends Error {}

/**
 * The entries of every whole batch, in order. The cut-short last batch of a
 * crash is left out; a line that does not read followed by a later whole
 * batch throws JournalDamage.
 */
export function readBatches(text: string): JournalEntry[] {
  const entries: JournalEntry[] = [];
  let batch: JournalEntry[] = [];
  const lines = text.split('\n');
  // What follows the last newline is a line the crash cut short.
  lines.pop();
  for (const [index, line] of lines.entries()) {
    const entry = parseLine(line);
    if (entry === undefined) {
      if (lines.slice(index + 1).some((later) => closes(parseLine(later)))) {
        throw new JournalDamage(`line ${index + 1} is not one loyalty-bridge writes, and whole batches follow it`);
      }
      return entries;
    }
    if ('close' in entry) {
      if (entry.close !== batch.length) throw new JournalDamage(`the batch closed at line ${index + 1} is not whole`);
      entries.push(...batch);
      batch = [];
    } else {
      batch.push(entry);
    }
  }
  return entries;
}

const closes = (entry: JournalEntry | { close: number } | undefined) => entry !== undefined && 'close' in entry;

function parseLine(line: string): JournalEntry | { close: number } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { p, d, c } = value as { p?: unknown; d?: unknown; c?: unknown };
  if (typeof p === 'object' && p !== null && typeof (p as OrderRecord).key === 'string')
    return { put: p as OrderRecord };
  if (typeof d === 'string') return { remove: d };
  if (typeof c === 'number' && Number.isInteger(c) && c > 0) return { close: c };
  return undefined;
}
