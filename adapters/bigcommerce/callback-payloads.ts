// One purpose per signed payload. BigCommerce signs its load, uninstall and remove_user payloads alike,
// and a load payload lives a day in the merchant's browser: without this, it could also uninstall the
// app. Each payload's jti is kept with the callback that first used it until the payload expires; the
// record is added with store.addRecord, atomic across bridges on one ledger, so of two uses racing at
// different callbacks exactly one wins.
import { z } from 'zod';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { RecordRole } from '../../src/core/store/roles/records.ts';

export const BIGCOMMERCE_CALLBACKS = ['load', 'uninstall', 'remove_user'] as const;
export type BigCommerceCallback = (typeof BIGCOMMERCE_CALLBACKS)[number];

/** What is kept of a payload: no store, no user, nothing personal (so erasing a store's data keeps it, until it expires). */
export interface CallbackPayloadUse {
  callback: BigCommerceCallback;
  /** The payload's exp, ISO. */
  expiresAt: string;
  firstUsedAt: string;
  /** When the callback finished acting on it. */
  handledAt?: string | undefined;
  /** The hash of a secret of the browser that used it first, where the callback gave one. */
  browser?: string | undefined;
}

const USE = recordType<CallbackPayloadUse>(
  'callback-payload',
  z.looseObject({
    callback: z.enum(BIGCOMMERCE_CALLBACKS),
    expiresAt: z.string(),
    firstUsedAt: z.string(),
    handledAt: z.string().optional(),
    browser: z.string().optional(),
  }),
  'bigcommerce:',
);

export type PayloadUse =
  | { ok: true; again: false }
  /** Used at this callback before; `handled`: the callback acted on it then, and need not again; `browser`: as first kept. */
  | { ok: true; again: true; handled: boolean; browser: string | undefined }
  | { ok: false; refusal: 'used_elsewhere' | 'repeat_too_late'; usedAt: BigCommerceCallback; reason: string };

const MINUTE = 60_000;
/** How long after its first use a load payload still loads (a reload of the frame). */
export const LOAD_REPEAT_WITHIN_MS = 15 * MINUTE;
/** Uninstall acts once (handled) and remove_user not at all: their repeats are answered for as long as the payload lives. */
const REPEAT_WITHIN_MS: Record<BigCommerceCallback, number> = {
  load: LOAD_REPEAT_WITHIN_MS,
  uninstall: Infinity,
  remove_user: Infinity,
};

export interface CallbackPayloadsOptions {
  store: RecordRole;
  /** Seconds a payload is still accepted after its exp (the verification's leeway); its record is kept an hour beyond. */
  leewaySeconds: number;
  pruneEveryMs?: number;
  now?: () => number;
}

const PRUNE_EVERY_MS = 5 * MINUTE;
/** Beyond exp and the leeway: more than any clock difference between bridges. */
const KEEP_MARGIN_MS = 60 * MINUTE;
const recordId = (jti: string) => `bigcommerce:${jti}`;

export class CallbackPayloads {
  readonly #o: CallbackPayloadsOptions;
  readonly #now: () => number;
  #lastPrune = 0;
  #pruning: Promise<number> | undefined;

  constructor(options: CallbackPayloadsOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Claims the payload for this callback (from `browser`, where given); refused when another callback used it first. */
  async use(
    jti: string,
    expiresAtSeconds: number,
    callback: BigCommerceCallback,
    browser?: string,
  ): Promise<PayloadUse> {
    const use: CallbackPayloadUse = {
      callback,
      expiresAt: new Date(expiresAtSeconds * 1000).toISOString(),
      firstUsedAt: new Date(this.#now()).toISOString(),
      ...(browser ? { browser } : {}),
    };
    const kept = await this.#o.store.addRecord(USE, recordId(jti), use);
    if (kept.added) return { ok: true, again: false };
    const { value } = kept;
    if (value.callback !== callback) {
      const reason = `this signed_payload_jwt was already used at ${value.callback}; BigCommerce sends a fresh one to each callback`;
      return { ok: false, refusal: 'used_elsewhere', usedAt: value.callback, reason };
    }
    const within = REPEAT_WITHIN_MS[callback];
    // An unreadable time counts as too late: the record is ours, so that is not expected, and refusing is the safe side.
    if (!(this.#now() - Date.parse(value.firstUsedAt) <= within)) {
      const reason = `this signed_payload_jwt was first used more than ${within / MINUTE} minutes ago; BigCommerce sends a fresh one each time the app is opened`;
      return { ok: false, refusal: 'repeat_too_late', usedAt: callback, reason };
    }
    return { ok: true, again: true, handled: value.handledAt !== undefined, browser: value.browser };
  }

  /** The callback acted on the payload: a repeat need not act again. */
  async handled(jti: string): Promise<void> {
    const at = new Date(this.#now()).toISOString();
    await this.#o.store.changeRecord(USE, recordId(jti), (current) =>
      current && current.handledAt === undefined ? { put: { ...current, handledAt: at } } : undefined,
    );
  }

  /** Deletes the records of expired payloads, unless that was done less than PRUNE_EVERY_MS ago; resolves to how many went. */
  pruneIfDue(): Promise<number> {
    const now = this.#now();
    if (this.#pruning || now - this.#lastPrune < (this.#o.pruneEveryMs ?? PRUNE_EVERY_MS))
      return this.#pruning ?? Promise.resolve(0);
    this.#lastPrune = now;
    this.#pruning = this.#prune(now).finally(() => {
      this.#pruning = undefined;
    });
    return this.#pruning;
  }

  async #prune(now: number): Promise<number> {
    const gone = now - this.#o.leewaySeconds * 1000 - KEEP_MARGIN_MS;
    let pruned = 0;
    for (const { id, value } of await this.#o.store.listRecords(USE)) {
      const expiresAt = Date.parse(value.expiresAt);
      // A time that does not read is left alone rather than guessed at.
      if (Number.isNaN(expiresAt) || expiresAt >= gone) continue;
      await this.#o.store.deleteRecord(USE, id);
      pruned++;
    }
    return pruned;
  }
}
