// What the merchant's service (src/services/merchant.ts) is given, who asks it, and the shop's reach
// (src/accounts/reach.ts) judged anew on each call: another instance may have changed a link a moment ago.
import type { AccountCalls } from '../../accounts/account-calls.ts';
import type { ShopRef } from '../../accounts/account-records.ts';
import { allowedFor, WHY_NOT, type Allowed, type Standing } from '../../accounts/reach.ts';
import type { AccountRegistry } from '../../accounts/registry.ts';
import type { BridgeSandbox } from '../../accounts/sandbox-trials.ts';
import type { Engine } from '../../core/engine.ts';
import type { Ingest } from '../../core/ingest.ts';
import type { WordsParts } from '../../core/order-words-view.ts';
import type { PlatformParts } from '../../core/platform-module.ts';
import type { Privacy } from '../../core/privacy.ts';
import type { ResyncJobs } from '../../core/resync-jobs.ts';
import type {
  OrderWorkRole,
  OperatorQueries,
  DeadLetterRole,
  RecordRole,
  PrivacyRole,
  LedgerLifecycle,
} from '../../core/store/ledger-store.ts';
import type { Logger } from '../../logger.ts';
import { Refused } from '../refused.ts';
import type { AttentionParts } from './attention.ts';
import type { ShopCaps } from './caps.ts';

/** Who asks: the shop a door let in, and who that is in the audit (the shop's session, its staff member). */
export interface MerchantAsker {
  shop: ShopRef;
  by: string;
}

export interface MerchantParts {
  store: OrderWorkRole & OperatorQueries & DeadLetterRole & RecordRole & PrivacyRole & LedgerLifecycle;
  /** A platform's module's parts (platform-module.ts): a shop's own access from its installs, its skip reasons' words. */
  partsOf: (platform: string) => PlatformParts | undefined;
  accounts: AccountRegistry;
  privacy: Privacy;
  /** Sends a dead letter's delivery or call again (engine.retryDeadLetter). */
  retryDeadLetter: Engine['retryDeadLetter'];
  /** A shop's page reads a window of its orders again. */
  resyncJobs: ResyncJobs;
  /** The bridge's own sandbox, in sandbox mode: a merchant's trial account is made there. */
  bridgeSandbox: BridgeSandbox | undefined;
  /** Test orders enter the ledger as a platform's would. */
  ingest: Pick<Ingest, 'events'>;
  /** Each account's own calls in the last minute (account-calls.ts). */
  accountCalls: Pick<AccountCalls, 'lastMinute'>;
  /** Manual earns, recorded with who asked and why. */
  adjustments: Engine['adjustments'];
  /** Since when an account's spent rate budget has been spent, where its own orders found it so; null: not known. */
  spentSince: NonNullable<AttentionParts['spentSince']> | null;
  /** How long a budget is spent before Home says so (the worker's budgetSpentLongMs); null: the worker's default. */
  spentLongMs: number | null;
  logger: Logger;
}

export interface ShopReach {
  standing: Standing;
  allowed: Allowed;
  account: string | undefined;
}

/** The parts with the shop's reach and caps: what each group of use cases is handed. */
export interface MerchantContext extends MerchantParts, ShopCaps {
  /** The account the shop earns on, judged now. */
  reachOf(shop: ShopRef): Promise<ShopReach>;
  /**
   * The shop's own account, for what only an account of its own allows (a customer's points, points by hand), judged
   * before the request is read: a shop without one is refused 403, whatever it sent.
   */
  ownAccount(shop: ShopRef, need: 'read' | 'change'): Promise<string>;
  /** Asked again right before a change is written: the operator may have shared the account in the meantime. */
  stillOwn(shop: ShopRef, account: string): () => Promise<boolean>;
  /** The words of the shop's orders: a fix in Set up is the operator's where the program is not the shop's to change. */
  wordsFor(shop: ShopRef): Promise<WordsParts>;
}

export function merchantContext(parts: MerchantParts, caps: ShopCaps): MerchantContext {
  const { store, accounts, partsOf } = parts;
  async function reachOf(shop: ShopRef): Promise<ShopReach> {
    const facts = await accounts.reachFacts(shop);
    const { standing, ...allowed } = allowedFor(shop, facts);
    return { standing, allowed, account: facts.account };
  }
  async function ownAccount(shop: ShopRef, need: 'read' | 'change'): Promise<string> {
    const { standing, allowed, account } = await reachOf(shop);
    if (!allowed[need] || !account) throw new Refused(403, [WHY_NOT[standing]]);
    return account;
  }
  const stillOwn = (shop: ShopRef, account: string) => async () => {
    const now = await reachOf(shop);
    return now.allowed.change && now.account === account;
  };
  const wordsFor = async (shop: ShopRef): Promise<WordsParts> => {
    const { allowed } = await reachOf(shop);
    return { store, accounts, partsOf, audience: 'merchant', mayChangeProgram: allowed.change || allowed.create };
  };
  return { ...parts, ...caps, reachOf, ownAccount, stillOwn, wordsFor };
}

/** A shop acts on its own account, which it never names. */
export const NAMES_NO_ACCOUNT = 'account: a shop acts on its own account, which it never names';

/** Read the request's input after the reach is judged: a shop refused is told so whatever it sent. */
export type ReadLater<T> = () => T;
