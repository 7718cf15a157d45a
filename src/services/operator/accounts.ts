// The operator's loyalty accounts, shops and audit. A refusal is a Refused with one line per bad field, as the
// registry reports them. No answer carries an API key: accounts are shown through accountView, the key as its last
// four characters.
import type { Change } from '../../accounts/account-changes.ts';
import type { AuditEntry, CredentialsCheck, ShopRef } from '../../accounts/account-records.ts';
import type { ProgramInput, ProgramSettings } from '../../accounts/program-settings.ts';
import { accountView, type AccountView } from '../../accounts/account-view.ts';
import { trialAccountInput } from '../../accounts/sandbox-trials.ts';
import { DEFAULT_ACCOUNT } from '../../core/accounts.ts';
import { Refused } from '../refused.ts';
import type { OperatorParts } from './parts.ts';
import { knownShops, withHealthOf, type AccountHealth, type ShopView } from './shops.ts';

/** Settings have their own route: a change to an account's fields never resets them by accident. */
export const SETTINGS_ELSEWHERE = 'settings: change them at …/settings (PATCH, by the configuration’s names)';

/** A change the registry made, or its refusal thrown. */
const made = <T>(change: Change<T>): T => {
  if (!change.ok) throw new Refused(change.status, change.errors);
  return change.value;
};
const noAccount = (id: string) => new Refused(404, [`no account ${id}`]);

/** An account's settings: in effect (the environment's where it saves none) and as saved. */
export interface AccountSettings {
  account: string;
  settings: ProgramSettings | undefined;
  saved: ProgramInput;
}

export interface OperatorAccounts {
  /** The environment's account, then every other, each with its shops and health. */
  accounts(): Promise<{ accounts: AccountHealth[] }>;
  account(id: string): Promise<{ account: AccountHealth }>;
  /** An account given by hand, or ({ sandbox: true }) one on the bridge's own sandbox, as a merchant's trial is. */
  makeAccount(given: Record<string, unknown>, by: string): Promise<{ account: AccountView }>;
  changeAccount(id: string, given: Record<string, unknown>, by: string): Promise<{ account: AccountView }>;
  removeAccount(id: string, by: string): Promise<{ deleted: string }>;
  settings(id: string): Promise<AccountSettings>;
  changeSettings(id: string, given: Record<string, unknown>, by: string): Promise<AccountSettings>;
  checkAccount(id: string): Promise<{ check: CredentialsCheck }>;
  shops(): Promise<{ shops: ShopView[] }>;
  /** Links a shop to an account (null: unlinks it); answered with the shop as the list shows it. */
  linkShop(shop: ShopRef, account: string | null, by: string): Promise<{ shop: ShopView }>;
  audit(limit: number): Promise<{ audit: AuditEntry[] }>;
}

export const operatorAccounts = (parts: OperatorParts): OperatorAccounts => {
  const { accounts } = parts;
  const viewOf = async (id: string): Promise<AccountView | undefined> => {
    if (id === DEFAULT_ACCOUNT) return parts.defaultAccount();
    const record = await accounts.get(id);
    return record && accountView(record);
  };
  return {
    accounts: async () => {
      const [records, health] = await Promise.all([accounts.list(), withHealthOf(parts)]);
      return { accounts: await Promise.all([parts.defaultAccount(), ...records.map(accountView)].map(health)) };
    },
    account: async (id: string) => {
      const view = await viewOf(id);
      if (!view) throw noAccount(id);
      return { account: await (await withHealthOf(parts))(view) };
    },
    makeAccount: async (given: Record<string, unknown>, by: string) => {
      // On the bridge's own sandbox: its address is on this machine, which an account given by hand may not name.
      const trial = 'sandbox' in given ? trialAccountInput(parts.bridgeSandbox ?? undefined, given) : undefined;
      if (trial && !trial.ok) throw new Refused(trial.status as Refused['status'], trial.errors);
      const input = trial?.input ?? given;
      const created = await accounts.create(input, by, undefined, trial ? { onBridgeSandbox: true } : {});
      if (!created.ok && trial) parts.bridgeSandbox?.removeAccount(String(input.brandId));
      return { account: accountView(made(created)) };
    },
    changeAccount: async (id: string, given: Record<string, unknown>, by: string) => {
      if ('settings' in given) throw new Refused(400, [SETTINGS_ELSEWHERE]);
      return { account: accountView(made(await accounts.update(id, given, by))) };
    },
    removeAccount: async (id: string, by: string) => ({ deleted: made(await accounts.remove(id, by)).id }),
    settings: async (id: string) => {
      const settings = await accounts.effectiveSettings(id);
      if (!settings) throw noAccount(id);
      const record = id === DEFAULT_ACCOUNT ? undefined : await accounts.get(id);
      return { account: id, settings, saved: record?.settings ?? {} };
    },
    changeSettings: async (id: string, given: Record<string, unknown>, by: string) => {
      const changed = made(await accounts.setSettings(id, given, by));
      return { account: id, settings: await accounts.effectiveSettings(id), saved: changed.settings };
    },
    checkAccount: async (id: string) => ({ check: made(await accounts.check(id)) }),
    shops: async () => ({ shops: await knownShops(parts) }),
    linkShop: async (shop: ShopRef, account: string | null, by: string) => {
      made(await accounts.link(shop, account ?? undefined, by));
      const view = (await knownShops(parts)).find((each) => each.platform === shop.platform && each.shop === shop.shop);
      return { shop: view ?? { ...shop, account: null, accountName: null, link: null } };
    },
    audit: async (limit: number) => ({ audit: await accounts.audit(limit) }),
  };
};
