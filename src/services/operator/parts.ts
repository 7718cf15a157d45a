// What the operator's service is handed by the composition root: the bridge's parts it reads and acts on, and the
// words the operator reads beside the codes, which the routes' layer keeps (src/http) and hands in as functions
// so that this layer never reaches up for them.
import type { Activity } from '../../activity.ts';
import type { AccountLoad } from '../../accounts/account-load.ts';
import type { AccountView } from '../../accounts/account-view.ts';
import type { AccountRegistry } from '../../accounts/registry.ts';
import type { BridgeSandbox } from '../../accounts/sandbox-trials.ts';
import type { Engine } from '../../core/engine.ts';
import type { OrderRecord } from '../../core/order-record.ts';
import type { OrderSummary } from '../../core/order-summary.ts';
import type { Platforms } from '../../core/platforms.ts';
import type { ResyncJobs } from '../../core/resync-jobs.ts';
import type { DeadLetter } from '../../core/store/ledger-store.ts';
import type { LoyaltyClient } from '../../loyalty/client.ts';
import type { UpstreamHealth } from '../../loyalty/health.ts';
import type { Logger } from '../../logger.ts';

/** An activity chart's minutes, as the activity counts them. */
export type ActivityMinutes = ReturnType<Activity['series']>;

/** The words of the operator's answers, as the routes' layer words them (problems.ts, order-words-view.ts, …). */
export interface OperatorWords {
  /** What stops orders earning, each with its cause and fix, given every account's load. */
  problems(loads: AccountLoad[]): Promise<object[]>;
  /** The order a dead letter is of, as the store shows it (#1001). */
  letterOrderName(letter: Pick<DeadLetter, 'orderKey'>): Promise<string | undefined>;
  /** Each order of a listing with its words and status line. */
  ordersInWords(orders: OrderSummary[]): Promise<OrderSummary[]>;
  /** One order's detail in words beside its codes (facts, service, calls). */
  orderDetail(order: OrderRecord): object;
  /** One order's own words: its target, its account's rules, its held calls. */
  orderWords(order: OrderRecord): Promise<object>;
  /** The bars of the states chart. */
  stateChart(byState: Readonly<Record<string, number>>): Promise<object[]>;
  /** The activity chart's series in words. */
  activityWords(minutes: ActivityMinutes, platformName: (platform: string) => string): object;
}

export interface OperatorParts {
  /** The loyalty service is the built-in sandbox. */
  sandbox: boolean;
  /** The bridge's own sandbox, in sandbox mode: the operator may make an account on it; null otherwise. */
  bridgeSandbox: BridgeSandbox | null;
  /** A first run: whether the built-in demo store sends orders now (until a store of the merchant's own is connected). */
  demo: () => boolean;
  /** A first run's demo shops while the demo plays (none otherwise): they send orders, so they are stores. */
  demoShops: () => ReadonlyArray<{ platform: string; shop: string }>;
  /** The loyalty accounts and which shop earns on which. */
  accounts: AccountRegistry;
  /** The environment's account as it may be shown: its key as a hint. */
  defaultAccount: () => AccountView;
  engine: Engine;
  platforms: Platforms;
  resyncJobs: ResyncJobs;
  client: LoyaltyClient;
  health: UpstreamHealth;
  activity: Activity;
  logger: Logger;
  words: OperatorWords;
}
