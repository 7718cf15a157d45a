// The loyalty accounts of a running bridge (the core's Accounts): the default account, the accounts kept in
// the ledger, and which account each shop uses. They change while the bridge runs: this instance sees its own
// changes at once, another instance on the same PostgreSQL within REFRESH_MS. What each account needs (its
// client, its rate limit, its pause) is made when it is first used, and made again when it changes.
import { randomUUID } from 'node:crypto';
import { DEFAULT_ACCOUNT, type AccountRuntime, type Accounts, type PausedRule } from '../core/accounts.ts';
import type { OrderWorkRole, RecordRole } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import { BridgeError } from '../errors.ts';
import { documentedFailure, LoyaltyError } from '../loyalty/errors.ts';
import {
  keyHint,
  shopLinkId,
  type AccountRecord,
  type AuditEntry,
  type CredentialsCheck,
  type ShopLink,
  type ShopRef,
  ACCOUNT_KIND,
  AUDIT_KIND,
  SHOP_LINK_KIND,
} from './account-records.ts';
import {
  parseProgramSettings,
  readSavedSettings,
  type ProgramInput,
  type ProgramSettings,
} from './program-settings.ts';
import { sameShop } from './reach.ts';
import type { ReachFacts } from './reach.ts';
import { trimTrailing } from '../trim-trailing.ts';

/** How long a link or an account read from the ledger is taken as current (another instance may change it). */
const REFRESH_MS = 5_000;
/** C0 and C1 controls, DEL among them (ESC starts a terminal's escape sequences). */
const CONTROL_CHARACTER = /\p{Cc}/u;

/** Makes the runtime of a stored account: its client and pause (the composition root knows how). */
export type RuntimeFactory = (record: AccountRecord, settings: ProgramSettings) => AccountRuntime;
/** Asks the service whether an account's credentials work, with the client a runtime would use. */
export type CredentialsProbe = (record: AccountRecord) => Promise<CredentialsCheck>;

export interface AccountRegistryOptions {
  store: OrderWorkRole & RecordRole;
  logger: Logger;
  /** The environment's account, and its settings (the environment's). */
  defaultAccount: AccountRuntime;
  defaultSettings: ProgramSettings;
  /** config/default.json's program settings: an account's until it says otherwise. */
  programDefaults: ProgramInput;
  makeRuntime: RuntimeFactory;
  probe: CredentialsProbe;
  /** The shops the operator chose (named in the environment, installed or connected by the operator): the default account's unless linked elsewhere. */
  chosenByOperator: (platform: string, shop: string) => Promise<boolean>;
  /** An account's base URL must pass this (https, no credentials in it); undefined when it does, else why not. */
  checkBaseUrl: (url: string) => string | undefined;
  /** Told of a shop linked to an account: its waiting orders go (the worker is woken). */
  onLinked?: (shop: ShopRef) => Promise<void>;
  /** Told of an account whose new credentials the service accepted: its orders waiting on a pause go. */
  onCredentialsWork?: (account: string) => Promise<void>;
  now?: () => Date;
}

export interface AccountInput {
  name?: unknown;
  baseUrl?: unknown;
  apiKey?: unknown;
  brandId?: unknown;
  rateLimitPerMinute?: unknown;
  settings?: unknown;
}

/** Whether the caller may still make its change, asked right before it is written. */
export type Still = () => Promise<boolean>;

export type Change<T> = { ok: true; value: T } | { ok: false; status: 400 | 403 | 404 | 409; errors: string[] };

interface Cached<T> {
  value: T;
  readAt: number;
}

export class AccountRegistry implements Accounts {
  readonly #o: Required<Omit<AccountRegistryOptions, 'onLinked' | 'onCredentialsWork'>> &
    Pick<AccountRegistryOptions, 'onLinked' | 'onCredentialsWork'>;
  readonly #runtimes = new Map<string, Cached<{ runtime: AccountRuntime; updatedAt: string } | undefined>>();
  /** Bumped by each change this instance makes to an account: a read begun before it must not be kept. */
  readonly #changes = new Map<string, number>();
  readonly #links = new Map<string, Cached<string | undefined>>();
  readonly #reading = new Map<string, Promise<AccountRuntime | undefined>>();

  constructor(options: AccountRegistryOptions) {
    this.#o = { now: () => new Date(), ...options };
  }

  // --- what the core asks --------------------------------------------------

  async forShop(platform: string, shop: string): Promise<string | undefined> {
    const id = shopLinkId({ platform, shop });
    const cached = this.#links.get(id);
    if (cached && Date.now() - cached.readAt < REFRESH_MS) return cached.value;
    const link = await this.#o.store.getRecord(SHOP_LINK_KIND, id);
    const account = link?.account ?? ((await this.#o.chosenByOperator(platform, shop)) ? DEFAULT_ACCOUNT : undefined);
    // "None" is read fresh every time: an order is made to wait on it, and a link another instance just made must count.
    if (account !== undefined) this.#links.set(id, { value: account, readAt: Date.now() });
    return account;
  }

  /**
   * An erased shop goes with its data: its link; the accounts it made, with
   * their keys (one another shop was linked to since stays, no longer the
   * shop's); the audit entries that name it. The privacy log records the
   * erasure. A name connected again later, perhaps by someone else, starts
   * with nothing.
   */
  async forgetShop(platform: string, shop: string): Promise<void> {
    const ref = { platform, shop };
    const id = shopLinkId(ref);
    await this.#o.store.deleteRecord(SHOP_LINK_KIND, id);
    this.#links.delete(id);
    const gone = new Set<string>();
    for (const { value } of await this.#o.store.listRecords(ACCOUNT_KIND)) {
      if (!value.madeFor || !sameShop(value.madeFor, ref)) continue;
      if (value.sharedAt) {
        await this.#o.store.changeRecord(ACCOUNT_KIND, value.id, (now) =>
          now ? { put: { ...now, madeFor: undefined } } : undefined,
        );
      } else {
        await this.#o.store.deleteRecord(ACCOUNT_KIND, value.id);
        gone.add(value.id);
      }
      this.#forget(value.id);
    }
    const by = `${platform} ${shop}`;
    for (const { id: entry, value } of await this.#o.store.listRecords(AUDIT_KIND)) {
      const names =
        (value.shop && sameShop(value.shop, ref)) ||
        value.by === by ||
        value.by.startsWith(`${by} (`) ||
        (value.account !== undefined && gone.has(value.account));
      if (names) await this.#o.store.deleteRecord(AUDIT_KIND, entry);
    }
  }

  async runtime(id: string): Promise<AccountRuntime | undefined> {
    if (id === DEFAULT_ACCOUNT) return this.#o.defaultAccount;
    const cached = this.#runtimes.get(id);
    if (cached && Date.now() - cached.readAt < REFRESH_MS) return cached.value?.runtime;
    // One read at a time per account: orders asking together would each build a runtime of their own, each
    // with its own limiter and pause, and the account's budget would be handed out once per runtime.
    const reading = this.#reading.get(id);
    if (reading) return reading;
    const read = this.#readRuntime(id).finally(() => {
      if (this.#reading.get(id) === read) this.#reading.delete(id);
    });
    this.#reading.set(id, read);
    return read;
  }

  async #readRuntime(id: string): Promise<AccountRuntime | undefined> {
    const change = this.#changes.get(id) ?? 0;
    const cached = this.#runtimes.get(id);
    const record = await this.#o.store.getRecord(ACCOUNT_KIND, id);
    // Changed while this read was on its way: what it read may be from before the change. The read the change
    // left to come (joined, not one of its own: one runtime per account) answers instead.
    if ((this.#changes.get(id) ?? 0) !== change) return this.runtime(id);
    if (!record) {
      cached?.value?.runtime.authPause.stop();
      this.#runtimes.set(id, { value: undefined, readAt: Date.now() });
      return undefined;
    }
    if (cached?.value && cached.value.updatedAt === record.updatedAt) {
      cached.readAt = Date.now();
      return cached.value.runtime;
    }
    cached?.value?.runtime.authPause.stop();
    const { settings, paused } = this.#settingsOf(record);
    const runtime: AccountRuntime = { ...this.#o.makeRuntime(record, settings), pausedRules: paused };
    for (const { key, why } of paused)
      this.#o.logger.warn(
        { account: id, key },
        `an account’s saved ${key} cannot run (${why}): its rule is off until the setting is fixed`,
      );
    this.#runtimes.set(id, { value: { runtime, updatedAt: record.updatedAt }, readAt: Date.now() });
    return runtime;
  }

  async all(): Promise<AccountRuntime[]> {
    const runtimes = [this.#o.defaultAccount];
    for (const { id } of await this.#o.store.listRecords(ACCOUNT_KIND)) {
      const runtime = await this.runtime(id);
      if (runtime) runtimes.push(runtime);
    }
    return runtimes;
  }

  stop(): void {
    this.#o.defaultAccount.authPause.stop();
    for (const cached of this.#runtimes.values()) cached.value?.runtime.authPause.stop();
  }

  // --- what people change ----------------------------------------------------

  /** Every account kept in the ledger, but those the operator removed (retired). */
  async list(): Promise<AccountRecord[]> {
    return (await this.#o.store.listRecords(ACCOUNT_KIND))
      .map(({ value }) => value)
      .filter((account) => !account.retiredAt);
  }

  /** An account, unless the operator removed it (its runtime stays, for its orders: runtime()). */
  async get(id: string): Promise<AccountRecord | undefined> {
    const record = await this.#o.store.getRecord(ACCOUNT_KIND, id);
    return record?.retiredAt ? undefined : record;
  }

  /** A new account, its credentials checked by a call to the service before it is saved. */
  async create(
    input: AccountInput,
    by: string,
    madeFor?: ShopRef,
    where: { onBridgeSandbox?: true } = {},
  ): Promise<Change<AccountRecord>> {
    const errors: string[] = [];
    const fields = this.#fields(input, errors, true);
    const settings = this.#parseSettings(input.settings ?? {}, {}, errors);
    if (errors.length > 0 || !fields || !settings) return { ok: false, status: 400, errors };
    const at = this.#o.now().toISOString();
    const record: AccountRecord = {
      id: randomUUID(),
      ...fields,
      settings,
      ...(madeFor ? { madeFor } : {}),
      ...(where.onBridgeSandbox ? { onBridgeSandbox: true } : {}),
      createdAt: at,
      updatedAt: at,
    };
    record.check = await this.#o.probe(record);
    const refused = await this.#keep(record);
    if (refused) return refused;
    await this.#audit({
      by,
      action: 'account.create',
      account: record.id,
      changes: this.#shown({ ...fields, settings }),
    });
    return { ok: true, value: record };
  }

  /**
   * Changes name, address, credentials or limit; new credentials are checked
   * again. `still` is asked right before the write (a merchant's reach,
   * judged again after the seconds the check may take); the write takes only
   * if nothing changed the account meanwhile.
   */
  async update(id: string, input: AccountInput, by: string, still?: Still): Promise<Change<AccountRecord>> {
    if (id === DEFAULT_ACCOUNT) return defaultIsTheEnvironment();
    const current = await this.get(id);
    if (!current || current.retiredAt) return { ok: false, status: 404, errors: [`no account ${id}`] };
    const errors: string[] = [];
    const fields = this.#fields(input, errors, false);
    // The key goes with its address: a new address with the key kept would send the key there on its first call.
    if (fields?.baseUrl !== undefined && fields.baseUrl !== current.baseUrl && fields.apiKey === undefined)
      errors.push('apiKey: is required with a new baseUrl (the key is never sent to an address it was not given for)');
    // A trial's key and brand are the sandbox's own: ones of the merchant's choosing go with their own address.
    const keepsAddress = fields?.baseUrl === undefined || fields.baseUrl === current.baseUrl;
    if (
      current.onBridgeSandbox &&
      keepsAddress &&
      ((fields?.apiKey !== undefined && fields.apiKey !== current.apiKey) ||
        (fields?.brandId !== undefined && fields.brandId !== current.brandId))
    )
      errors.push(
        'baseUrl: is required with a new key or brand id on a trial (its own are the sandbox’s): give your loyalty service’s address too',
      );
    if (errors.length > 0 || !fields) return { ok: false, status: 400, errors };
    const next: AccountRecord = { ...current, ...fields, updatedAt: this.#o.now().toISOString() };
    // A new address is the merchant's own service: the trial on the bridge's sandbox is over.
    // (The page sends the address back unchanged with every save: that keeps the trial.)
    if (fields.baseUrl !== undefined && fields.baseUrl !== current.baseUrl) delete next.onBridgeSandbox;
    if (fields.apiKey !== undefined || fields.brandId !== undefined || fields.baseUrl !== undefined)
      next.check = await this.#o.probe(next);
    const refused = await this.#replace(current, next, still);
    if (refused) return refused;
    this.#forget(id);
    await this.#audit({ by, action: 'account.update', account: id, changes: this.#shown(fields) });
    // Credentials put right: what waited for them goes now, not at the next probe.
    if (next.check?.status === 'connected') await this.#o.onCredentialsWork?.(id);
    return { ok: true, value: next };
  }

  /** Settings as given, over the ones saved (null puts one back to its default). */
  async setSettings(id: string, input: unknown, by: string, still?: Still): Promise<Change<AccountRecord>> {
    if (id === DEFAULT_ACCOUNT) return defaultIsTheEnvironment();
    const current = await this.get(id);
    if (!current || current.retiredAt) return { ok: false, status: 404, errors: [`no account ${id}`] };
    const errors: string[] = [];
    const settings = this.#parseSettings(input, current.settings, errors);
    if (!settings) return { ok: false, status: 400, errors };
    const next: AccountRecord = { ...current, settings, updatedAt: this.#o.now().toISOString() };
    const refused = await this.#replace(current, next, still);
    if (refused) return refused;
    this.#forget(id);
    await this.#audit({ by, action: 'account.settings', account: id, changes: input as Record<string, unknown> });
    return { ok: true, value: next };
  }

  /** The settings in force: saved over defaults (the default account's are the environment's). */
  async effectiveSettings(id: string): Promise<ProgramSettings | undefined> {
    if (id === DEFAULT_ACCOUNT) return this.#o.defaultSettings;
    const record = await this.get(id);
    return record && this.#settingsOf(record).settings;
  }

  /**
   * Refused while a shop is linked to it, or an order of it has a call due.
   * Otherwise it is retired, not erased: an order that earned on it and waits
   * for its fulfilment (or a refund years later) still approves or cancels
   * there; it is no longer listed, changed or linked to.
   */
  async remove(id: string, by: string): Promise<Change<{ id: string }>> {
    if (id === DEFAULT_ACCOUNT) return defaultIsTheEnvironment();
    const current = await this.get(id);
    if (!current || current.retiredAt) return { ok: false, status: 404, errors: [`no account ${id}`] };
    const linked = (await this.links()).filter((link) => link.account === id);
    if (linked.length > 0)
      return {
        ok: false,
        status: 409,
        errors: [
          `shops are linked to it (${linked.map((link) => `${link.platform} ${link.shop}`).join(', ')}): link them elsewhere first`,
        ],
      };
    if (await this.#o.store.hasWorkFor(id))
      return {
        ok: false,
        status: 409,
        errors: ['orders of this account still have calls to make: wait until they are done'],
      };
    await this.#o.store.changeRecord(ACCOUNT_KIND, id, (now) =>
      now
        ? { put: { ...now, retiredAt: this.#o.now().toISOString(), updatedAt: this.#o.now().toISOString() } }
        : undefined,
    );
    await this.#audit({ by, action: 'account.delete', account: id });
    return { ok: true, value: { id } };
  }

  /** Every explicit link (the environment's shops are the default account's without one). */
  async links(): Promise<Array<ShopRef & ShopLink>> {
    return (await this.#o.store.listRecords(SHOP_LINK_KIND)).map(({ id, value }) => {
      const at = id.indexOf(':');
      return { platform: id.slice(0, at), shop: id.slice(at + 1), ...value };
    });
  }

  /**
   * The account a shop earns on, read now (forShop keeps an answer for a few
   * seconds): its link, else the default account if the operator chose the
   * shop, else none. `links` when the caller has them already.
   */
  async accountOf(shop: ShopRef, links?: ReadonlyArray<ShopRef & ShopLink>): Promise<string | undefined> {
    const link = links
      ? links.find((each) => each.platform === shop.platform && each.shop === shop.shop)
      : await this.#o.store.getRecord(SHOP_LINK_KIND, shopLinkId(shop));
    if (link) return link.account;
    return (await this.#o.chosenByOperator(shop.platform, shop.shop)) ? DEFAULT_ACCOUNT : undefined;
  }

  /** What a merchant's reach is judged on (reach.ts): the shop's account, its record, and every shop on it. */
  async reachFacts(shop: ShopRef): Promise<ReachFacts> {
    const links = await this.links();
    const account = await this.accountOf(shop, links);
    const record = account !== undefined && account !== DEFAULT_ACCOUNT ? await this.get(account) : undefined;
    return { account, record, linked: links.filter((link) => link.account === account) };
  }

  /** Links a shop to an account (undefined: to none); its waiting orders go to the new account. */
  async link(
    shop: ShopRef,
    account: string | undefined,
    by: string,
  ): Promise<Change<ShopRef & { account: string | undefined }>> {
    const target = account !== undefined && account !== DEFAULT_ACCOUNT ? await this.get(account) : undefined;
    if (account !== undefined && account !== DEFAULT_ACCOUNT && (!target || target.retiredAt))
      return { ok: false, status: 404, errors: [`no account ${account}`] };
    // Another merchant's shop on an account a merchant made: from now on, not that merchant's alone (reach.ts).
    if (target?.madeFor && !sameShop(target.madeFor, shop) && !target.sharedAt) {
      await this.#o.store.changeRecord(ACCOUNT_KIND, target.id, (now) =>
        now && !now.sharedAt
          ? { put: { ...now, sharedAt: this.#o.now().toISOString(), updatedAt: this.#o.now().toISOString() } }
          : undefined,
      );
      this.#forget(target.id);
    }
    const id = shopLinkId(shop);
    if (account === undefined) await this.#o.store.deleteRecord(SHOP_LINK_KIND, id);
    else
      await this.#o.store.putRecord(SHOP_LINK_KIND, id, {
        account,
        linkedAt: this.#o.now().toISOString(),
        by,
      });
    this.#links.delete(id);
    await this.#audit({ by, action: account === undefined ? 'shop.unlink' : 'shop.link', account, shop });
    if (account !== undefined) await this.#o.onLinked?.(shop);
    return { ok: true, value: { ...shop, account } };
  }

  /** Asks the service again whether the account's credentials work, and keeps the answer. */
  async check(id: string): Promise<Change<CredentialsCheck>> {
    if (id === DEFAULT_ACCOUNT) return defaultIsTheEnvironment();
    const current = await this.get(id);
    if (!current) return { ok: false, status: 404, errors: [`no account ${id}`] };
    const check = await this.#o.probe(current);
    await this.#o.store.changeRecord(ACCOUNT_KIND, id, (now) => (now ? { put: { ...now, check } } : undefined));
    return { ok: true, value: check };
  }

  async audit(limit = 200): Promise<AuditEntry[]> {
    return (await this.#o.store.listRecords(AUDIT_KIND))
      .map(({ value }) => value)
      .sort((a, b) => b.at.localeCompare(a.at))
      .slice(0, limit);
  }

  // --- inside ---------------------------------------------------------------

  #settingsOf(record: AccountRecord): { settings: ProgramSettings; paused: PausedRule[] } {
    const parsed = readSavedSettings(record.settings, this.#o.programDefaults);
    if (parsed.ok) return { settings: parsed.settings, paused: parsed.paused };
    // Saved settings were valid when saved; a later release that reads one differently keeps the defaults, and says so.
    this.#o.logger.error(
      { account: record.id, errors: parsed.errors },
      'an account’s saved settings do not read: its defaults are used',
    );
    const defaults = parseProgramSettings({}, this.#o.programDefaults);
    if (!defaults.ok)
      throw new Error(`config/default.json's program settings do not read: ${defaults.errors.join('; ')}`);
    return { settings: defaults.settings, paused: [] };
  }

  #parseSettings(input: unknown, saved: ProgramInput, errors: string[]): ProgramInput | undefined {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      errors.push('settings: must be an object of program settings by their configuration names');
      return undefined;
    }
    // Keys are outside input: a Map, so that "__proto__" is a key like any other (and refused as one), not the object's prototype.
    const merged = new Map<string, unknown>(Object.entries(saved));
    for (const [key, value] of Object.entries(input)) {
      if (value === null) merged.delete(key);
      else merged.set(key, value);
    }
    const next = Object.fromEntries(merged) as ProgramInput;
    const parsed = parseProgramSettings(next, this.#o.programDefaults);
    if (!parsed.ok) {
      errors.push(...parsed.errors);
      return undefined;
    }
    return next;
  }

  #fields(input: AccountInput, errors: string[], required: boolean) {
    const fields: Partial<Pick<AccountRecord, 'name' | 'baseUrl' | 'apiKey' | 'brandId' | 'rateLimitPerMinute'>> = {};
    const text = (key: 'name' | 'apiKey' | 'brandId', max: number) => {
      const value = input[key];
      if (value === undefined) {
        if (required) errors.push(`${key}: is required`);
        return;
      }
      if (typeof value !== 'string' || value.trim() === '' || value.length > max)
        errors.push(`${key}: must be text of 1 to ${max} characters`);
      // Names and brands are shown in the operator's terminal and pages: no escape sequence rides along.
      else if (CONTROL_CHARACTER.test(value.trim())) errors.push(`${key}: must hold no control characters`);
      else fields[key] = value.trim();
    };
    text('name', 100);
    text('apiKey', 500);
    text('brandId', 200);
    if (input.baseUrl === undefined) {
      if (required) errors.push('baseUrl: is required');
    } else if (typeof input.baseUrl !== 'string') {
      errors.push('baseUrl: must be the service’s https address');
    } else if (input.baseUrl.length > 2_000) {
      // A merchant's text, read by more than one check: bounded before any of them.
      errors.push('baseUrl: must be the service’s https address, of at most 2000 characters');
    } else {
      const problem = this.#o.checkBaseUrl(input.baseUrl.trim());
      if (problem) errors.push(`baseUrl: ${problem}`);
      else fields.baseUrl = trimTrailing(input.baseUrl.trim(), '/');
    }
    if (input.rateLimitPerMinute === undefined) {
      if (required) fields.rateLimitPerMinute = 500;
    } else if (
      !Number.isInteger(input.rateLimitPerMinute) ||
      (input.rateLimitPerMinute as number) < 1 ||
      (input.rateLimitPerMinute as number) > 1_000_000
    ) {
      errors.push(
        'rateLimitPerMinute: must be a whole number from 1 to 1000000 (the service allows 500 a minute per key)',
      );
    } else {
      fields.rateLimitPerMinute = input.rateLimitPerMinute as number;
    }
    for (const key of Object.keys(input)) {
      if (!['name', 'baseUrl', 'apiKey', 'brandId', 'rateLimitPerMinute', 'settings'].includes(key))
        errors.push(
          `${key}: is not a field of an account (name, baseUrl, apiKey, brandId, rateLimitPerMinute, settings)`,
        );
    }
    return errors.length > 0 ? undefined : (fields as Required<typeof fields>);
  }

  /** What an audit line or an answer may show of fields: the key as its last four characters. */
  #shown(fields: Partial<AccountRecord>): Record<string, unknown> {
    const { apiKey, ...rest } = fields;
    return { ...rest, ...(apiKey !== undefined ? { apiKey: keyHint(apiKey) } : {}) };
  }

  /** Saves an account; without SECRETS_KEY outside sandbox mode the store refuses its key, and the line says how to make one. */
  /** The account as read replaced by its next version, unless something else changed it meanwhile (compare-and-set). */
  async #replace(
    read: AccountRecord,
    next: AccountRecord,
    still: Still | undefined,
  ): Promise<{ ok: false; status: 403 | 409; errors: string[] } | undefined> {
    if (still && !(await still()))
      return { ok: false, status: 403, errors: ['this account is no longer this shop’s alone to change'] };
    try {
      const { changed } = await this.#o.store.changeRecord(ACCOUNT_KIND, read.id, (now) =>
        now && !now.retiredAt && now.updatedAt === read.updatedAt ? { put: next } : undefined,
      );
      if (!changed)
        return { ok: false, status: 409, errors: ['the account changed meanwhile: read it again, then change it'] };
      return undefined;
    } catch (error) {
      if (error instanceof BridgeError && error.code === 'secrets_key_missing')
        return { ok: false, status: 409, errors: [error.message] };
      throw error;
    }
  }

  async #keep(record: AccountRecord): Promise<{ ok: false; status: 409; errors: string[] } | undefined> {
    try {
      await this.#o.store.putRecord(ACCOUNT_KIND, record.id, record);
      return undefined;
    } catch (error) {
      if (error instanceof BridgeError && error.code === 'secrets_key_missing')
        return { ok: false, status: 409, errors: [error.message] };
      throw error;
    }
  }

  #forget(id: string): void {
    this.#changes.set(id, (this.#changes.get(id) ?? 0) + 1);
    this.#runtimes.get(id)?.value?.runtime.authPause.stop();
    this.#runtimes.delete(id);
    // A read already under way is not handed to the callers that come after the change.
    this.#reading.delete(id);
  }

  async #audit(entry: Omit<AuditEntry, 'at'>): Promise<void> {
    const at = this.#o.now().toISOString();
    await this.#o.store.putRecord(AUDIT_KIND, `${at}:${randomUUID()}`, { at, ...entry });
  }
}

const defaultIsTheEnvironment = (): { ok: false; status: 409; errors: string[] } => ({
  ok: false,
  status: 409,
  errors: [
    'the default account is the environment’s configuration (LOYALTY_* and the program settings): change it there',
  ],
});

/** What the service's answer to a harmless read says of the credentials. */
export function credentialsCheckOf(error: unknown, at: string): CredentialsCheck {
  if (error === undefined) return { status: 'connected', at };
  if (error instanceof LoyaltyError) {
    if (error.kind === 'invalid_auth') return { status: 'refused', at, detail: error.summary };
    // Let in, and told no in the service's own words (no such customer): the credentials work. Any other
    // refusal (a 403 or 404 from another address, a bare 400, a 402 for an unknown path) says nothing of them.
    if (
      (error.kind === 'invalid_source' || error.kind === 'not_found') &&
      documentedFailure(error.serviceMessage, error.detail) === error.kind
    )
      return { status: 'connected', at };
    if (error.kind === 'refused_address')
      return { status: 'unreachable', at, detail: error.summary, addressRefused: true };
    return { status: 'unreachable', at, detail: error.summary };
  }
  return { status: 'unreachable', at, detail: (error as Error).message };
}
