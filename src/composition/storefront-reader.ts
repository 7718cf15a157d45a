// The storefront's reader of customers' points and its reward codes, wired: the accounts and ledger they read,
// the worker's budgets the reader comes after, the calls that make what it keeps stale, the worker's redeems of
// the codes, the sweeper of open codes, and the privacy requests that reach what they keep; and the storefront's
// service over them (src/services/storefront.ts), which the storefront's routes of every platform call.
import type { AccountRegistry } from '../accounts/registry.ts';
import type { Config } from '../config.ts';
import type { CustomerCall } from '../core/customer-calls.ts';
import type { Engine } from '../core/engine.ts';
import type { PlatformParts } from '../core/platform-module.ts';
import { CodeSweeper } from '../core/storefront/code-sweeper.ts';
import { CoverChecks } from '../core/storefront/cover-checks.ts';
import { CustomerPace } from '../core/storefront/customer-pace.ts';
import { takeBacksOf } from '../core/storefront/customer-ledger.ts';
import { fenceOf, holderId } from '../core/storefront/reservations.ts';
import { RewardCodes } from '../core/storefront/reward-codes.ts';
import { RewardPrivacy } from '../core/storefront/reward-privacy.ts';
import { StorefrontReader } from '../core/storefront/storefront-reader.ts';
import { setStorefront } from '../core/storefront/storefront-switch.ts';
import { WidgetKeeper } from '../core/storefront/widget-keeper.ts';
import { takeBackChecks } from '../core/storefront/take-back-checks.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import { storefrontService, type StorefrontService } from '../services/storefront.ts';
import type { Platforms } from './platforms.ts';
import { trimTrailing } from '../trim-trailing.ts';

export interface StorefrontWiring {
  reader: StorefrontReader;
  rewardCodes: RewardCodes;
  sweeper: CodeSweeper;
  widgets: WidgetKeeper;
  /** What a customer's page asks of their points, for every platform's storefront routes. */
  service: StorefrontService;
  /** Its sweeper's loop, as http-surface.ts's BackgroundWork. */
  background: { what: string; start(): void; stop(): Promise<void> };
  /** The widget keeper's checks, likewise. */
  widgetChecks: { what: string; start(): void; stop(): Promise<void> };
}

export interface StorefrontWiringParts {
  config: Pick<
    Config,
    | 'STOREFRONT_SHARE'
    | 'REWARD_SETTLE_MINUTES'
    | 'REWARD_SWEEP_SECONDS'
    | 'STOREFRONT_WIDGET_CHECK_MINUTES'
    | 'PUBLIC_URL'
  >;
  engine: Engine;
  accounts: AccountRegistry;
  store: LedgerStore;
  platforms: Pick<Platforms, 'onSubscriptionsChanged' | 'onStorefrontClosed' | 'modules'>;
  logger: Logger;
  /** How long a reward code's make may take before the sweeper repairs it (tests hurry it; REPAIR_MS). */
  rewardRepairMs?: number | undefined;
  /** How often storefront widgets are checked (tests hurry it; STOREFRONT_WIDGET_CHECK_MINUTES). */
  widgetCheckMs?: number | undefined;
}

type PartsOf = (platform: string) => PlatformParts | undefined;

export function storefrontReader(parts: StorefrontWiringParts): StorefrontWiring {
  const { config, accounts, store, platforms, logger } = parts;
  const partsOf: PartsOf = (platform) => platforms.modules.find(({ module }) => module.name === platform)?.parts;
  const codesOf = (platform: string) => partsOf(platform)?.codes;
  const { reader, rewardCodes, checks } = readerAndCodes(parts, codesOf);
  const sweeper = new CodeSweeper({
    store,
    codes: rewardCodes,
    checks,
    codesOf,
    served: async (platform, shop) => (await partsOf(platform)?.storefront?.served(shop)) ?? true,
    accounts,
    logger,
    settleMs: config.REWARD_SETTLE_MINUTES * 60_000,
    ...(parts.rewardRepairMs !== undefined ? { repairMs: parts.rewardRepairMs } : {}),
  });
  keepFresh(parts, reader, codesOf);
  const widgets = widgetKeeper(parts, partsOf);
  // A module closed a shop's storefront (its plugin disconnected): off as the merchant's switch turns it off, with
  // its widget; the sweep that removes its open codes talks to the store, so it runs after the module's answer.
  platforms.onStorefrontClosed = async (platform, shop, by) => {
    const served = async () => (await partsOf(platform)?.storefront?.served(shop)) ?? true;
    await setStorefront(store, { platform, shop, on: false, by }, served);
    await widgets.turnedOff(platform, shop);
    logger.info({ platform, shop }, 'a shop’s storefront was closed by its store; its open codes are removed');
    void sweeper.sweep().catch(() => undefined);
  };
  // One pace for every platform's storefront routes: a customer's requests counted wherever they come in.
  const pace = new CustomerPace({ sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
  const service = storefrontService({ partsOf, store, accounts, reader, rewardCodes, pace });
  const sweeps = config.REWARD_SWEEP_SECONDS * 1000;
  const widgetMs = parts.widgetCheckMs ?? config.STOREFRONT_WIDGET_CHECK_MINUTES * 60_000;
  return {
    reader,
    rewardCodes,
    sweeper,
    widgets,
    service,
    background: every('the sweeper of open reward codes', sweeps, () => sweeper.sweep(), logger),
    widgetChecks: every('the checks of storefront widgets', widgetMs, () => widgets.check(), logger),
  };
}

/** The reader and the reward codes, each asking the other, and the worker's and adjustments' hooks into them. */
function readerAndCodes(
  { config, engine, accounts, store, logger }: StorefrontWiringParts,
  codesOf: (platform: string) => PlatformParts['codes'],
): { reader: StorefrontReader; rewardCodes: RewardCodes; checks: CoverChecks } {
  // An account's pool (AccountPool); one no longer there is alone.
  const poolOf = async (id: string) => (await (await accounts.runtime(id))?.pool()) ?? { holder: id, members: [id] };
  const reader: StorefrontReader = new StorefrontReader({
    accounts,
    store,
    liveFirst: (budgetId) => engine.worker.liveFirst(budgetId),
    share: config.STOREFRONT_SHARE,
    held: (account, customer, source, readStartedAt) => rewardCodes.held(account, customer, source, readStartedAt),
    // The fence of the holder a reservation goes under: the account's pool's first's (AccountPool).
    fence: async (account, customer) => fenceOf(store, holderId((await poolOf(account)).holder, customer)),
    takeBacks: (account, customer) => takeBacksOf(store, account, customer),
    logger,
  });
  const rewardCodes = new RewardCodes({ store, codesOf, reader, logger, pools: poolOf });
  engine.worker.rewardCodes = rewardCodes;
  const checks = new CoverChecks({ store, codesOf, reader, codes: rewardCodes, logger, now: () => new Date() });
  engine.worker.coverChecks = checks;
  engine.adjustments.takeBackChecks = takeBackChecks(store, checks);
  return { reader, rewardCodes, checks };
}

/** What makes the reader's kept balances, contacts and refusals stale, and the privacy requests that reach them. */
function keepFresh(
  { config, engine, accounts, store, platforms, logger }: StorefrontWiringParts,
  reader: StorefrontReader,
  codesOf: (platform: string) => PlatformParts['codes'],
): void {
  const stale = (call: CustomerCall) => {
    reader.dropBalance(call.account, call.customer);
    // A conversion rewards its referrer: theirs is stale too.
    if (call.referrer) reader.dropBalance(call.account, call.referrer);
  };
  engine.worker.customerCalls.add(stale);
  // Points given or taken by hand (the operator's or the merchant's page) change the balance as the worker's do.
  engine.adjustments.customerCalls.add(stale);
  engine.privacy.inMemory.add(reader);
  engine.privacy.kept.add(
    new RewardPrivacy({ store, accounts, codesOf, logger, settleMs: config.REWARD_SETTLE_MINUTES * 60_000 }),
  );
  // A platform says what the app may read of a shop changed (its scopes webhook): a contact refused for
  // lack of a scope may be allowed now, so the refusals kept for the shop go at once, before the shop is checked.
  const checkAgain = platforms.onSubscriptionsChanged;
  platforms.onSubscriptionsChanged = (platform, shop) => {
    reader.forgetRefusals(platform, shop);
    checkAgain?.(platform, shop);
  };
}

/** The widget's script, where the platform loads it from the bridge: its storefront routes' widget.js, per shop. */
function widgetKeeper({ config, store, logger }: StorefrontWiringParts, partsOf: PartsOf): WidgetKeeper {
  return new WidgetKeeper({
    store,
    widgetOf: (platform) => partsOf(platform)?.widget,
    scriptUrl: (platform, shop) =>
      config.PUBLIC_URL
        ? `${trimTrailing(config.PUBLIC_URL, '/')}/${platform}/storefront/widget.js?store=${encodeURIComponent(shop)}`
        : undefined,
    logger,
  });
}

/** Work on a timer, one run at a time, as http-surface.ts's BackgroundWork: a run that fails is logged and runs again. */
function every(
  what: string,
  ms: number,
  run: () => Promise<unknown>,
  logger: Logger,
): { what: string; start(): void; stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  return {
    what,
    start() {
      timer = setInterval(() => {
        running ??= run()
          .catch((error: unknown) => logger.warn({ kind: (error as Error)?.name }, `${what} failed; it runs again`))
          .finally(() => (running = undefined));
      }, ms);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
