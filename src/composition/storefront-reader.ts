// The storefront's reader of customers' points, wired: the accounts and ledger it reads, the worker's budgets it
// comes after, the calls that make what it keeps stale, and the privacy requests that reach what it keeps.
import type { AccountRegistry } from '../accounts/registry.ts';
import type { Config } from '../config.ts';
import type { CustomerCall } from '../core/customer-calls.ts';
import type { Engine } from '../core/engine.ts';
import { StorefrontReader } from '../core/storefront/storefront-reader.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { Platforms } from './platforms.ts';

export function storefrontReader(parts: {
  config: Pick<Config, 'STOREFRONT_SHARE'>;
  engine: Engine;
  accounts: AccountRegistry;
  store: LedgerStore;
  platforms: Pick<Platforms, 'onSubscriptionsChanged'>;
  logger: Logger;
}): StorefrontReader {
  const { config, engine, accounts, store, platforms, logger } = parts;
  const reader = new StorefrontReader({
    accounts,
    store,
    liveFirst: (budgetId) => engine.worker.liveFirst(budgetId),
    share: config.STOREFRONT_SHARE,
    logger,
  });
  const stale = (call: CustomerCall) => {
    reader.dropBalance(call.account, call.customer);
    // A conversion rewards its referrer: theirs is stale too.
    if (call.referrer) reader.dropBalance(call.account, call.referrer);
  };
  engine.worker.customerCalls.add(stale);
  // Points given or taken by hand (the operator's or the merchant's page) change the balance as the worker's do.
  engine.adjustments.customerCalls.add(stale);
  engine.privacy.inMemory.add(reader);
  // A platform says what the app may read of a shop changed (its scopes webhook): a contact refused for
  // lack of a scope may be allowed now, so the refusals kept for the shop go at once, before the shop is checked.
  const checkAgain = platforms.onSubscriptionsChanged;
  platforms.onSubscriptionsChanged = (platform, shop) => {
    reader.forgetRefusals(platform, shop);
    checkAgain?.(platform, shop);
  };
  return reader;
}
