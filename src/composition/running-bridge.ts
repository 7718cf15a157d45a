// What startBridge is given and what it answers (main.ts): the running bridge's parts, for the CLI and the tests.
import type { AccountRegistry } from '../accounts/registry.ts';
import type { Activity } from '../activity.ts';
import type { Engine } from '../core/engine.ts';
import type { AnyPlatformModule } from '../core/platform-module.ts';
import type { Reconciler } from '../core/reconciler.ts';
import type { ResyncJobs } from '../core/resync-jobs.ts';
import type { Listening } from '../http/listen.ts';
import type { LoyaltyClient } from '../loyalty/client.ts';
import type { UpstreamHealth } from '../loyalty/health.ts';
import type { Metrics } from '../metrics.ts';
import type { Sandbox } from '../sandbox/app.ts';
import type { DemoStore } from './demo-store.ts';
import type { DemoPace, FirstRun } from './first-run.ts';
import type { PlatformOverrides, Platforms } from './platforms.ts';

export interface RunningBridge {
  http: Listening;
  client: LoyaltyClient;
  metrics: Metrics;
  health: UpstreamHealth;
  activity: Activity;
  engine: Engine;
  /** The loyalty accounts, which shop earns on which, and the audit of changes to them. */
  accounts: AccountRegistry;
  platforms: Platforms;
  reconciler: Reconciler;
  resyncJobs: ResyncJobs;
  /** Present in sandbox mode. */
  sandbox?: Sandbox;
  /** Present on a first run: the built-in demo store sending its orders. */
  demo?: DemoStore;
  /** Present on a first run: the demo, its shop's page and the links told at the terminal. */
  firstRun?: FirstRun;
  /**
   * In sandbox mode without ADMIN_TOKEN: the dashboard link with this run's
   * one-time token in its fragment (never sent to a server, so never in a log).
   */
  signInUrl?: string;
  loyaltyBaseUrl: string;
  stop(): Promise<void>;
}

export interface BridgeOptions {
  /** Where platform APIs answer, for tests that serve them locally. */
  platformOverrides?: PlatformOverrides;
  /** Between two orders of the demo store's first handful (tests hurry it). */
  demoPaceMs?: number;
  /** How the demo store is paced after it, or its waits counted (tests). */
  demoPace?: Omit<DemoPace, 'paceMs'>;
  /** Between two reconciliations, instead of RECONCILE_INTERVAL_MINUTES (tests hurry it). */
  reconcileIntervalMs?: number;
  /** How long a reward code's make may take before the sweeper repairs it (tests hurry it; 2 minutes). */
  rewardRepairMs?: number;
  /** How often storefront widgets are checked, in ms (STOREFRONT_WIDGET_CHECK_MINUTES otherwise): tests hurry it. */
  widgetCheckMs?: number;
  /** How long an account's calls are used up before it is a problem to show (tests hurry it; 3 minutes). */
  budgetSpentLongMs?: number;
  /** Platforms registered as modules beside the shipped ones; the configuration must be loaded with them too. */
  modules?: readonly AnyPlatformModule[];
  /** Each platform's own options, by its name, as its module reads them (tests hurry its timers). */
  platformOptions?: Readonly<Record<string, unknown>>;
}
