// Moving a ledger: everything the lowdb store holds, one item at a time, and
// items from another store taken in (loyalty-bridge migrate).
import type { InboxEntry } from '../../delivery.ts';
import type { LedgerItem } from '../ledger-store.ts';
import type { LowdbParts } from './parts.ts';

export async function* exportAll({
  active,
  settled,
  inbox,
  deadLetters,
  records,
  lpOrderIds,
}: LowdbParts): AsyncGenerator<LedgerItem> {
  for (const record of active.values()) yield { type: 'order', record: structuredClone(record) };
  for await (const record of settled.scan(() => true, false))
    if (!active.get(record.key)) yield { type: 'order', record: structuredClone(record) };
  for (const entry of inbox.all()) yield { type: 'inbox', entry: structuredClone(entry) };
  for (const [key, receivedAt] of inbox.seenKeys()) yield { type: 'seen', key, receivedAt };
  for await (const letter of deadLetters.all()) yield { type: 'dead-letter', letter };
  for (const kind of records.kinds())
    for (const { id, value } of records.list(kind)) yield { type: 'record', kind, id, value };
  for await (const [lpOrderId, key] of lpOrderIds.entries()) yield { type: 'lp-order-id', lpOrderId, orderKey: key };
}

export function importItems(parts: LowdbParts, items: LedgerItem[]): Promise<void> {
  const { active, inbox, deadLetters, records, lpOrderIds } = parts;
  return parts.serial.add(async () => {
    const seen: Array<[string, string]> = [];
    const entries: InboxEntry[] = [];
    for (const item of items) {
      if (item.type === 'order') active.put(structuredClone(item.record));
      else if (item.type === 'inbox') entries.push(item.entry);
      else if (item.type === 'seen') seen.push([item.key, item.receivedAt]);
      else if (item.type === 'dead-letter') await deadLetters.upsert(item.letter);
      else if (item.type === 'record') records.put(item.kind, item.id, item.value, { copied: true });
      else await lpOrderIds.setIfAbsent(item.lpOrderId, item.orderKey);
    }
    await inbox.importEntries(entries);
    if (seen.length > 0) await inbox.importSeen(seen);
    await parts.flush();
    parts.notify();
  }) as Promise<void>;
}
