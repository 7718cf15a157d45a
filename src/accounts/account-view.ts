// An account as every answer shows it (the operator's admin API, a
// merchant's, the CLI, the dashboard): its fields picked one by one, so that
// a field added to the record later is not shown until someone decides it
// may be, and its API key as its last four characters only.
import { DEFAULT_ACCOUNT } from '../core/accounts.ts';
import { keyHint, type AccountRecord, type CredentialsCheck, type ShopRef } from './account-records.ts';
import type { PausedRule } from '../core/accounts.ts';
import { pausedRulesOf, type ProgramInput } from './program-settings.ts';

export interface AccountView {
  id: string;
  name: string;
  baseUrl: string;
  brandId: string;
  rateLimitPerMinute: number;
  /** The key's last four characters, to tell two keys apart. */
  apiKeyHint: string;
  /** The settings saved for it, as given; the ones in force are at …/settings. */
  settings: ProgramInput;
  check: CredentialsCheck | null;
  /** Saved rules that cannot run (a pattern RE2 cannot compile), each off until its setting is fixed. */
  pausedRules: PausedRule[];
  madeFor: ShopRef | null;
  /** A trial on the bridge's own sandbox (account-records.ts). */
  onBridgeSandbox: boolean;
  /** The default account is the environment's: changed there, not here. */
  readOnly: boolean;
  createdAt: string | null;
  updatedAt: string | null;
}

export function accountView(record: AccountRecord): AccountView {
  return {
    id: record.id,
    name: record.name,
    baseUrl: record.baseUrl,
    brandId: record.brandId,
    rateLimitPerMinute: record.rateLimitPerMinute,
    apiKeyHint: keyHint(record.apiKey),
    settings: record.settings,
    check: record.check ?? null,
    pausedRules: pausedRulesOf(record.settings),
    madeFor: record.madeFor ?? null,
    onBridgeSandbox: record.onBridgeSandbox === true,
    readOnly: false,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** What may be shown of the environment's account: the composition root knows its address and credentials. */
export interface DefaultAccountFacts {
  baseUrl: string;
  brandId: string;
  apiKey: string;
  rateLimitPerMinute: number;
}

export function defaultAccountView(facts: DefaultAccountFacts): AccountView {
  return {
    id: DEFAULT_ACCOUNT,
    name: 'default (the environment’s)',
    baseUrl: facts.baseUrl,
    brandId: facts.brandId,
    rateLimitPerMinute: facts.rateLimitPerMinute,
    apiKeyHint: keyHint(facts.apiKey),
    settings: {},
    check: null,
    // The environment's patterns are checked at start-up: a bad one stops the bridge, with its line.
    pausedRules: [],
    madeFor: null,
    onBridgeSandbox: false,
    readOnly: true,
    createdAt: null,
    updatedAt: null,
  };
}
