// The records as the lowdb files keep them, for the typed role above the backends (record-types.ts): each write
// durable before it resolves.
import type { RawRecords } from '../roles/record-types.ts';
import type { LowdbParts } from './parts.ts';

export const rawRecords = (p: LowdbParts): RawRecords => ({
  get: async (kind, id) => p.records.get(kind, id),
  put: async (kind, id, value) => {
    p.records.put(kind, id, value);
    await p.flush();
  },
  add: async (kind, id, value) => {
    // One process holds the data directory, and get-then-put runs without a turn of the event loop between them.
    const existing = p.records.get(kind, id);
    if (existing !== undefined) return { added: false, value: existing };
    p.records.put(kind, id, value);
    await p.flush();
    return { added: true, value };
  },
  change: async (kind, id, change) => {
    const result = p.records.change<unknown>(kind, id, change);
    if (result.changed) await p.flush();
    return result;
  },
  delete: async (kind, id) => {
    p.records.delete(kind, id);
    await p.flush();
  },
  list: async (kind, under) => p.records.list(kind).filter(({ id }) => id.startsWith(under)),
});
