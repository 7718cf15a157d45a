// The loyalty accounts of a running bridge (the core's Accounts): the default account, the accounts kept in
// the ledger, and which account each shop uses. They change while the bridge runs: this instance sees its own
// changes at once, another instance on the same PostgreSQL within REFRESH_MS. What each account needs (its
// client, its rate limit, its pause) is made when it is first used, and made again when it changes
// (account-runtimes.ts); what a person sends is checked in account-fields.ts.
import { randomUUID } from 'node:crypto';
import { DEFAULT_ACCOUNT, type AccountRuntime, type Accounts } from '../core/accounts.ts';
import type { OrderWorkRole, RecordRole } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import {
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
import { accountFields, mergeSettings, shownFields, updateRefusals, type AccountInput } from './account-fields.ts';
import { defaultIsTheEnvironment, keepAccount, replaceAccount, type Change, type Still } from './account-changes.ts';
import { AccountRuntimes, REFRESH_MS, settingsOf, type Cached, type RuntimeFactory } from './account-runtimes.ts';
import type { ProgramInput, ProgramSettings } from './program-settings.ts';
import { sameShop } from './reach.ts';
import type { ReachFacts } from './reach.ts';

export type { AccountInput } from './account-fields.ts';
export type { Change, Still } from './account-changes.ts';
export type { RuntimeFactory } from './account-runtimes.ts';
export { credentialsCheckOf } from './credentials-check.ts';

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

export class AccountRegistry implements Accounts {
  readonly #o: Required<Omit<AccountRegistryOptions, 'onLinked' | 'onCredentialsWork'>> &
    Pick<AccountRegistryOptions, 'onLinked' | 'onCredentialsWork'>;
  readonly #runtimes: AccountRuntimes;
  readonly #links = new Map<string, Cached<string | undefined>>();

  constructor(options: AccountRegistryOptions) {
    this.#o = { now: () => new Date(), ...options };
    this.#runtimes = new AccountRuntimes(this.#o);
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
    return this.#runtimes.get(id);
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
    this.#runtimes.stop();
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
    const fields = accountFields(input, errors, true, this.#o.checkBaseUrl);
    const settings = mergeSettings(input.settings ?? {}, {}, errors, this.#o.programDefaults);
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
    const refused = await keepAccount(this.#o.store, record);
    if (refused) return refused;
    await this.#audit({
      by,
      action: 'account.create',
      account: record.id,
      changes: shownFields({ ...fields, settings }),
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
    const fields = accountFields(input, errors, false, this.#o.checkBaseUrl);
    updateRefusals(current, fields, errors);
    if (errors.length > 0 || !fields) return { ok: false, status: 400, errors };
    const next: AccountRecord = { ...current, ...fields, updatedAt: this.#o.now().toISOString() };
    // A new address is the merchant's own service: the trial on the bridge's sandbox is over.
    // (The page sends the address back unchanged with every save: that keeps the trial.)
    if (fields.baseUrl !== undefined && fields.baseUrl !== current.baseUrl) delete next.onBridgeSandbox;
    if (fields.apiKey !== undefined || fields.brandId !== undefined || fields.baseUrl !== undefined)
      next.check = await this.#o.probe(next);
    const refused = await replaceAccount(this.#o.store, current, next, still);
    if (refused) return refused;
    this.#forget(id);
    await this.#audit({ by, action: 'account.update', account: id, changes: shownFields(fields) });
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
    const settings = mergeSettings(input, current.settings, errors, this.#o.programDefaults);
    if (!settings) return { ok: false, status: 400, errors };
    const next: AccountRecord = { ...current, settings, updatedAt: this.#o.now().toISOString() };
    const refused = await replaceAccount(this.#o.store, current, next, still);
    if (refused) return refused;
    this.#forget(id);
    await this.#audit({ by, action: 'account.settings', account: id, changes: input as Record<string, unknown> });
    return { ok: true, value: next };
  }

  /** The settings in force: saved over defaults (the default account's are the environment's). */
  async effectiveSettings(id: string): Promise<ProgramSettings | undefined> {
    if (id === DEFAULT_ACCOUNT) return this.#o.defaultSettings;
    const record = await this.get(id);
    return record && settingsOf(record, this.#o.programDefaults, this.#o.logger).settings;
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

  #forget(id: string): void {
    this.#runtimes.forget(id);
  }

  async #audit(entry: Omit<AuditEntry, 'at'>): Promise<void> {
    const at = this.#o.now().toISOString();
    await this.#o.store.putRecord(AUDIT_KIND, `${at}:${randomUUID()}`, { at, ...entry });
  }
}
