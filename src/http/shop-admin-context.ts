// What every route of a shop's admin API (shop-admin-api.ts) is given: the bridge's parts, and the shop's
// reach (src/accounts/reach.ts) judged anew on each request, with the caps on what a shop's page may do.
import type { Response } from 'express';
import type { AccountCalls } from '../accounts/account-calls.ts';
import { allowedFor, WHY_NOT, type Allowed, type Standing } from '../accounts/reach.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import type { BridgeSandbox } from '../accounts/sandbox-trials.ts';
import type { PlatformParts } from '../core/platform-module.ts';
import type { Engine } from '../core/engine.ts';
import type { Ingest } from '../core/ingest.ts';
import type { ResyncJobs } from '../core/resync-jobs.ts';
import type { Privacy } from '../core/privacy.ts';
import type {
  OrderWorkRole,
  OperatorQueries,
  DeadLetterRole,
  RecordRole,
  PrivacyRole,
  LedgerLifecycle,
} from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { AttentionParts } from './shop-attention.ts';
import { shopRefOf } from './shop-ref.ts';
import { shopCaps, type ShopCaps } from './shop-caps.ts';
import type { shopStorefrontApi } from './shop-storefront-api.ts';
import type { WordsParts } from './order-words-view.ts';
import { refuse } from './admin-accounts.ts';

/** A shop acts on its own account, which it never names. */
export const NAMES_NO_ACCOUNT = 'account: a shop acts on its own account, which it never names';

export interface ShopAdminApiParts {
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
  /** Since when an account's spent rate budget has been spent, where its own orders found it so: Home says when it is for long. */
  spentSince?: AttentionParts['spentSince'];
  /** How long a budget is spent before Home says so (the worker's budgetSpentLongMs). */
  spentLongMs?: number;
  /** The shop's storefront was turned on (the storefront reader forgets the contacts refused for the shop). */
  storefrontTurnedOn?: (platform: string, shop: string) => void;
  /** The shop's rewards or its storefront changed: open codes of what is no longer offered go now, not at the next sweep. */
  rewardsChanged?: () => void;
  /** The storefront's widget where the bridge puts it on the store (shop-storefront-api.ts). */
  storefrontWidget?: Parameters<typeof shopStorefrontApi>[0]['widget'];
  logger: Logger;
}

export interface ShopReach {
  standing: Standing;
  allowed: Allowed;
  account: string | undefined;
}

export interface ShopAdminContext extends ShopAdminApiParts, ShopCaps {
  /** The account the shop earns on, judged now (another instance may have changed a link a moment ago). */
  reachOf(res: Response): Promise<ShopReach>;
  /**
   * The shop's own account, for what only an account of its own allows (a
   * customer's points, points by hand), judged before the request is read:
   * a shop without one is told 403, whatever it sent. Otherwise the refusal
   * is sent and undefined returned.
   */
  ownAccount(res: Response, need: 'read' | 'change'): Promise<string | undefined>;
  /** Asked again right before a change is written: the operator may have shared the account in the meantime. */
  stillOwn(res: Response, account: string): () => Promise<boolean>;
  /** The words of the shop's orders: a fix in Set up is the operator's where the program is not the shop's to change. */
  wordsFor(res: Response): Promise<WordsParts>;
}

export function shopAdminContext(parts: ShopAdminApiParts): ShopAdminContext {
  const { store, accounts, partsOf } = parts;
  const { oneAtATime, hourly } = shopCaps(store);
  async function reachOf(res: Response): Promise<ShopReach> {
    const facts = await accounts.reachFacts(shopRefOf(res));
    const { standing, ...allowed } = allowedFor(shopRefOf(res), facts);
    return { standing, allowed, account: facts.account };
  }
  async function ownAccount(res: Response, need: 'read' | 'change') {
    const { standing, allowed, account } = await reachOf(res);
    if (!allowed[need] || !account) return void refuse(res, 403, [WHY_NOT[standing]]);
    return account;
  }
  function stillOwn(res: Response, account: string) {
    return async () => {
      const now = await reachOf(res);
      return now.allowed.change && now.account === account;
    };
  }
  const wordsFor = async (res: Response): Promise<WordsParts> => {
    const { allowed } = await reachOf(res);
    return { store, accounts, partsOf, audience: 'merchant', mayChangeProgram: allowed.change || allowed.create };
  };
  return { ...parts, oneAtATime, hourly, reachOf, ownAccount, stillOwn, wordsFor };
}
