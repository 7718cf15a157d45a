// The accounts a sandbox serves, kept apart as the service keeps its
// merchants': each is an API key and a brand id with its own activities, its
// own rate limit (the service limits per API key) and its own state. The
// first is the one the sandbox was configured with (SANDBOX_API_KEY and
// SANDBOX_BRAND_ID, or the bridge's own); more join at run time.
import type { Buffer } from 'node:buffer';
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { sameSecret, secretDigest } from '../same-secret.ts';
import {
  arePublic,
  PUBLIC_SANDBOX_CREDENTIALS,
  randomSandboxCredentials,
  type SandboxCredentials,
} from './credentials.ts';
import { SlidingWindowCounter, type WindowDecision } from './sliding-window.ts';
import { SandboxStore } from './store.ts';

/** DESIGN.md's defaults: activity 1 earns 100 points; 500 calls a minute per API key. */
export const DEFAULT_ACTIVITIES: Readonly<Record<string, number>> = { '1': 100 };
export const DEFAULT_RATE_LIMIT = 500;
/** Enough for any test; a bound on what the control route can make the process hold. */
export const MAX_ACCOUNTS = 1000;

// Sent back as headers: visible ASCII, no spaces.
const credential = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(200, { error: 'must be at most 200 characters' })
  .regex(/^[\x21-\x7e]+$/, { error: 'must be visible ASCII characters without spaces' });

/** An account as the control route (POST /_sandbox/accounts) and createSandbox's `accounts` take it. */
export const accountInputSchema = z.strictObject({
  /** Random when not given, like the bridge's own sandbox's. */
  apiKey: credential.optional(),
  brandId: credential.optional(),
  /** Activity id to the points it earns; DESIGN.md's default (1 earns 100) when not given. */
  activities: z
    .record(
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'activity ids are letters, digits, _ or -' })
        .refine((id) => id !== '__proto__', { error: 'activity ids are letters, digits, _ or -' }),
      z.number().int({ error: 'points must be a whole number' }).min(0).max(1_000_000_000),
    )
    .optional(),
  /** Calls per window (a minute, unless the sandbox's rateWindowMs scales it) for this account's API key. */
  rateLimitPerMinute: z.number().int().min(1).max(1_000_000).optional(),
});

export type AccountInput = z.input<typeof accountInputSchema>;

/** Why an account cannot be added: its input (400), or a key or brand another account has (409). */
export class SandboxAccountError extends Error {
  readonly status: 400 | 409;

  constructor(message: string, status: 400 | 409) {
    super(message);
    this.name = 'SandboxAccountError';
    this.status = status;
  }
}

/** What the control routes show of an account: never its key, but for its last four characters. */
export interface AccountView {
  brandId: string;
  apiKeyEnding: string;
  activities: Record<string, number>;
  rateLimitPerMinute: number;
  refusedForRate: number;
}

export class SandboxAccount {
  readonly credentials: Readonly<SandboxCredentials>;
  /** What a call's credentials are compared with (in constant time: same-secret.ts). */
  readonly digests: { readonly apiKey: Buffer; readonly brandId: Buffer };
  /** Activity id to the points it earns. */
  readonly activities: ReadonlyMap<string, number>;
  readonly rateLimit: number;
  readonly store: SandboxStore;
  readonly #window: SlidingWindowCounter;
  #refusedForRate = 0;

  constructor(settings: {
    credentials: SandboxCredentials;
    activities: Readonly<Record<string, number>>;
    rateLimit: number;
    rateWindowMs: number;
  }) {
    this.credentials = Object.freeze({ ...settings.credentials });
    this.digests = { apiKey: secretDigest(this.credentials.apiKey), brandId: secretDigest(this.credentials.brandId) };
    this.activities = new Map(Object.entries(settings.activities));
    this.rateLimit = settings.rateLimit;
    this.store = new SandboxStore();
    this.#window = new SlidingWindowCounter(settings.rateLimit, settings.rateWindowMs);
  }

  /** Counts a call against this account's API key, or refuses it for being over the limit. */
  takeCall(): WindowDecision {
    const decision = this.#window.take(this.credentials.apiKey);
    if (!decision.allowed) this.#refusedForRate++;
    return decision;
  }

  /** Calls refused for being over this account's limit (not injected faults). */
  get refusedForRate(): number {
    return this.#refusedForRate;
  }

  /** Empties what it holds and its rate window; the account itself stays. */
  reset(): void {
    this.store.reset();
    this.#window.reset();
  }

  view(): AccountView {
    return {
      brandId: this.credentials.brandId,
      apiKeyEnding: this.credentials.apiKey.slice(-4),
      activities: Object.fromEntries(this.activities),
      rateLimitPerMinute: this.rateLimit,
      refusedForRate: this.#refusedForRate,
    };
  }
}

export class SandboxAccounts {
  readonly #accounts: SandboxAccount[] = [];
  readonly #rateWindowMs: number;

  /** The first account: the sandbox's own, as configured (the public defaults allowed, for a developer's loopback sandbox). */
  constructor(first: {
    credentials: SandboxCredentials;
    activities?: Record<string, number> | undefined;
    rateLimit?: number | undefined;
    rateWindowMs: number;
  }) {
    this.#rateWindowMs = first.rateWindowMs;
    this.#accounts.push(
      new SandboxAccount({
        credentials: first.credentials,
        activities: first.activities ?? DEFAULT_ACTIVITIES,
        rateLimit: first.rateLimit ?? DEFAULT_RATE_LIMIT,
        rateWindowMs: first.rateWindowMs,
      }),
    );
  }

  get first(): SandboxAccount {
    return this.#accounts[0] as SandboxAccount;
  }

  get all(): readonly SandboxAccount[] {
    return [...this.#accounts];
  }

  /**
   * Adds an account. Credentials not given are random; the public default key
   * is refused (it would let anyone in), and so are a key or a brand id that
   * another account has: a call names one account, never two.
   */
  add(input: unknown = {}): SandboxAccount {
    const parsed = accountInputSchema.safeParse(input ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SandboxAccountError(`${issue?.path.join('.') || 'account'}: ${issue?.message}`, 400);
    }
    if (this.#accounts.length >= MAX_ACCOUNTS)
      throw new SandboxAccountError(`the sandbox serves at most ${MAX_ACCOUNTS} accounts`, 400);
    const random = randomSandboxCredentials();
    const credentials = { apiKey: parsed.data.apiKey ?? random.apiKey, brandId: parsed.data.brandId ?? random.brandId };
    if (arePublic(credentials))
      throw new SandboxAccountError(
        `apiKey: the public ${PUBLIC_SANDBOX_CREDENTIALS.apiKey} lets anyone in; leave it out for a random one`,
        400,
      );
    if (this.#accounts.some((account) => sameSecret(account.credentials.apiKey, credentials.apiKey)))
      throw new SandboxAccountError('apiKey: another account has this key', 409);
    if (this.byBrand(credentials.brandId))
      throw new SandboxAccountError('brandId: another account has this brand id', 409);
    const account = new SandboxAccount({
      credentials,
      activities: parsed.data.activities ?? DEFAULT_ACTIVITIES,
      rateLimit: parsed.data.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT,
      rateWindowMs: this.#rateWindowMs,
    });
    this.#accounts.push(account);
    return account;
  }

  /** Takes an account away (never the first): a trial the bridge made and could not keep. True if it was there. */
  remove(brandId: string): boolean {
    const index = this.#accounts.findIndex((account, at) => at > 0 && account.credentials.brandId === brandId);
    if (index < 0) return false;
    this.#accounts.splice(index, 1);
    return true;
  }

  /**
   * The account these credentials are, if any. Every account's key and brand
   * are compared, always, so timing says neither which account nor which
   * half was wrong.
   */
  find(apiKey: string, brandId: string): SandboxAccount | undefined {
    // The caller's two halves are hashed once, each account's when it was added: with many accounts, two
    // hashes a call rather than four per account, and every account still compared.
    const key = secretDigest(apiKey);
    const brand = secretDigest(brandId);
    let found: SandboxAccount | undefined;
    for (const account of this.#accounts) {
      const keyOk = timingSafeEqual(key, account.digests.apiKey);
      const brandOk = timingSafeEqual(brand, account.digests.brandId);
      if (keyOk && brandOk && found === undefined) found = account;
    }
    return found;
  }

  /** By brand id, for the operator's views (a brand id names an account; it hides nothing). */
  byBrand(brandId: string): SandboxAccount | undefined {
    return this.#accounts.find((account) => account.credentials.brandId === brandId);
  }
}
