// A store's name as its platform tells it, for its merchant's own page ("Signed in to …"): read when the store
// connects, or at the first ask for a store connected before, and kept in a record of the module's own kind (it
// names the platform and shop, so it is erased with the shop). A read that fails or finds none leaves the name
// unknown, tried again after a while; whoever asks never waits on the platform for long, as a sign-in asks.
import { z } from 'zod';
import type { RecordKind } from '../../src/core/store/ledger-store.ts';
import { recordType, type RecordType } from '../../src/core/store/roles/record-types.ts';
import type { RecordRole } from '../../src/core/store/roles/records.ts';
import { waitAtMost } from '../../src/core/wait-at-most.ts';

/** The longest name the page shows: a store's name is its merchant's text, of any length they chose. */
export const STORE_NAME_MAX = 100;
/** How long an ask waits for a read under way; the read goes on, and keeps what it finds for the next ask. */
const ASK_WAITS_MS = 3_000;
/** How long after a read that found no name the platform is asked again. */
const AGAIN_AFTER_MS = 3_600_000;

export interface KeptStoreName {
  platform: string;
  shop: string;
  /** Null: the platform told none (or did not answer) at readAt. */
  name: string | null;
  readAt: string;
}

/** A module's own kind for its stores' names ("<platform>-store-name"). */
export const storeNameType = (kind: RecordKind): RecordType<KeptStoreName> =>
  recordType(
    kind,
    z.looseObject({ platform: z.string(), shop: z.string(), name: z.string().nullable(), readAt: z.string() }),
  );

/** A name as a person reads it on one line: no control characters, spaces folded, at most STORE_NAME_MAX characters. */
export function storeNameText(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const text = raw
    .replace(/\p{Cc}/gu, ' ')
    // Bidi controls, which would turn the rest of the page's line around ("Signed in to …").
    .replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return undefined;
  const characters = [...text];
  return characters.length <= STORE_NAME_MAX
    ? text
    : `${characters
        .slice(0, STORE_NAME_MAX - 1)
        .join('')
        .trimEnd()}…`;
}

export interface StoreNamesOptions {
  store: RecordRole;
  /** The module's own record kind for them (storeNameType). */
  type: RecordType<KeptStoreName>;
  platform: string;
  /** Reads the name from the platform (its raw text); undefined or a throw: none known now. */
  read(shop: string): Promise<unknown>;
  /** Whether the store is still connected: a name read while it was erased is not kept (nor its shop brought back). */
  served(shop: string): Promise<boolean>;
  now?: () => number;
}

export class StoreNames {
  readonly #o: StoreNamesOptions;
  readonly #reading = new Map<string, Promise<string | undefined>>();

  constructor(options: StoreNamesOptions) {
    this.#o = options;
  }

  #id(shop: string): string {
    return `${this.#o.platform}:${shop}`;
  }

  /** Reads the name now and keeps what was found (a store just connected, perhaps renamed since); one read per shop at a time. */
  learn(shop: string): Promise<string | undefined> {
    const under = this.#reading.get(shop);
    if (under) return under;
    const reading = this.#read(shop).finally(() => this.#reading.delete(shop));
    this.#reading.set(shop, reading);
    return reading;
  }

  async #read(shop: string): Promise<string | undefined> {
    const name = storeNameText(await this.#o.read(shop).catch(() => undefined)) ?? null;
    const readAt = new Date((this.#o.now ?? Date.now)()).toISOString();
    if (!(await this.#o.served(shop).catch(() => false))) return undefined;
    // Not kept (the ledger refused the write): asked again at the next sign-in, which is all the name is for.
    await this.#o.store
      .putRecord(this.#o.type, this.#id(shop), { platform: this.#o.platform, shop, name, readAt })
      .catch(() => undefined);
    // An erasure that ran between the check above and the put did not see this record: asked again, and taken
    // back, so that no record names an erased shop (an erasure after this check finds the record and erases it).
    if (!(await this.#o.served(shop).catch(() => false)))
      await this.#o.store.deleteRecord(this.#o.type, this.#id(shop)).catch(() => undefined);
    return name ?? undefined;
  }

  /** The kept name; for a store never read (or none found a while ago), read now, waiting a few seconds at most. */
  async name(shop: string): Promise<string | undefined> {
    const kept = await this.#o.store.getRecord(this.#o.type, this.#id(shop));
    if (kept?.name) return kept.name;
    const now = (this.#o.now ?? Date.now)();
    if (kept && now - Date.parse(kept.readAt) < AGAIN_AFTER_MS) return undefined;
    let found: string | undefined;
    const reading = this.learn(shop).then((name) => (found = name));
    await waitAtMost(reading, ASK_WAITS_MS);
    return found;
  }
}
