// Per-store records read on the acknowledgement path (the secret a delivery
// is checked with), cached so that a delivery costs no ledger read: a record
// another bridge on the same ledger wrote is read at most a minute late, and
// a name nobody connected is asked about at most every few seconds, however
// many forged deliveries name it. Bounded, oldest first out.
import type { RecordRole, RecordType } from '../../src/core/store/roles/records.ts';

const FOUND_MS = 60_000;
const MISSING_MS = 5_000;
const MAX_ENTRIES = 1_000;

export class CachedRecords<T> {
  readonly #store: RecordRole;
  readonly #idOf: (name: string) => string;
  readonly #now: () => number;
  readonly #type: RecordType<T>;
  readonly #entries = new Map<string, { value: T | undefined; at: number }>();

  constructor(store: RecordRole, type: RecordType<T>, idOf: (name: string) => string, now: () => number = Date.now) {
    this.#store = store;
    this.#type = type;
    this.#idOf = idOf;
    this.#now = now;
  }

  /** The record of a store (of this cache's kind); `fresh` reads the ledger whatever the cache holds. */
  async get(name: string, fresh = false): Promise<T | undefined> {
    const cached = this.#entries.get(name);
    const age = cached ? this.#now() - cached.at : Infinity;
    if (!fresh && cached && age < (cached.value ? FOUND_MS : MISSING_MS)) return cached.value;
    const value = await this.#store.getRecord(this.#type, this.#idOf(name));
    this.set(name, value);
    return value;
  }

  /** Every record of this cache's type: the ids its type names (a connect in progress lives under others). */
  async all(): Promise<T[]> {
    return (await this.#store.listRecords(this.#type)).map(({ value }) => value);
  }

  set(name: string, value: T | undefined): void {
    this.#entries.delete(name);
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(name, { value, at: this.#now() });
  }

  forget(name: string): void {
    this.#entries.delete(name);
  }
}
