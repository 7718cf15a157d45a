// Prometheus metrics (prom-client), on a registry of the bridge's own so that
// several bridges in one process (tests) do not share counters.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AccountLoad } from './accounts/account-load.ts';
import { addLaneCounts, emptyLaneCounts, LANES, type Lane, type LaneStatus } from './core/lanes.ts';
import { SUBSCRIPTION_PROBLEM_KINDS, type SubscriptionHealth } from './core/order-source.ts';

export interface MetricSources {
  /** Read at scrape time. */
  inFlight?: () => number;
  store?: () => Promise<{ inboxBacklog: number; activeOrders: number }>;
  deadLetters?: () => Promise<number>;
  limiter?: () => { queued: number; running: number; startedInWindow: number; effectiveLimit: number };
  /** Whether the service refuses the credentials of a loyalty account (any, without per-account labels). */
  paused?: () => boolean | Promise<boolean>;
  lanes?: () => Promise<Record<Lane, LaneStatus>>;
  /** Per loyalty account: calls against its limit, its budget, its due work per lane. */
  accounts?: () => Promise<AccountLoad[]>;
}

/**
 * Accounts labelled one by one on /metrics, the busiest first (by due work);
 * the rest are summed under account="other", so that a bridge with
 * thousands of accounts does not make thousands of series.
 */
export const MAX_ACCOUNT_LABELS = 100;

/** The accounts as labelled: at most MAX_ACCOUNT_LABELS, then one "other" summing the rest. */
export function labelledAccounts(loads: AccountLoad[], max = MAX_ACCOUNT_LABELS): AccountLoad[] {
  if (loads.length <= max) return loads;
  const due = (load: AccountLoad) => load.lanes.live.due + load.lanes.backfill.due;
  const sorted = [...loads].sort((a, b) => due(b) - due(a) || a.id.localeCompare(b.id));
  const other: AccountLoad = {
    id: 'other',
    name: 'other',
    callsLastMinute: 0,
    limitPerMinute: 0,
    budgetSpentUntil: null,
    budgetSpentSince: null,
    lanes: emptyLaneCounts(),
    pausedRules: [],
  };
  for (const load of sorted.slice(max - 1)) {
    // "other" counts as spent while any account summed into it is.
    if (load.budgetSpentUntil !== null) other.budgetSpentUntil ??= load.budgetSpentUntil;
    other.callsLastMinute = (other.callsLastMinute ?? 0) + (load.callsLastMinute ?? 0);
    other.limitPerMinute = (other.limitPerMinute ?? 0) + (load.limitPerMinute ?? 0);
    addLaneCounts(other.lanes, load.lanes);
  }
  return [...sorted.slice(0, max - 1), other];
}

/**
 * The process's own figures (memory, event loop, garbage collection), collected once per process: prom-client's
 * collectors of them never stop (a GC observer, a 10-ms event-loop monitor), so one set per bridge would keep every
 * bridge a process ever started, and its timer, alive (several bridges in one process: the tests).
 */
let processFigures: Registry | undefined;
function processRegistry(): Registry {
  if (!processFigures) {
    processFigures = new Registry();
    collectDefaultMetrics({ register: processFigures, prefix: 'loyalty_bridge_' });
  }
  return processFigures;
}

export class Metrics {
  readonly registry = new Registry();
  readonly webhooks = new Counter({
    name: 'loyalty_bridge_webhooks_received_total',
    help: 'Webhook deliveries received, by platform, topic and result (accepted, duplicate, ignored, rejected_401, rejected_400, too_large, unavailable)',
    labelNames: ['platform', 'topic', 'result'] as const,
    registers: [this.registry],
  });
  readonly ackLatency = new Histogram({
    name: 'loyalty_bridge_webhook_ack_seconds',
    help: 'Time from a webhook arriving to its acknowledgement',
    labelNames: ['platform'] as const,
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly upstreamCalls = new Counter({
    name: 'loyalty_bridge_upstream_calls_total',
    help: 'Attempts of calls to the loyalty service, by operation and outcome',
    labelNames: ['operation', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly upstreamLatency = new Histogram({
    name: 'loyalty_bridge_upstream_call_seconds',
    help: 'Duration of attempts of calls to the loyalty service',
    labelNames: ['operation'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly authFailures = new Counter({
    name: 'loyalty_bridge_upstream_auth_failures_total',
    help: 'Calls the loyalty service refused with Invalid auth: the API key or brand id is wrong',
    registers: [this.registry],
  });

  readonly subscriptionProblems: Gauge<'platform' | 'shop' | 'kind'> | Gauge<'platform' | 'kind'>;
  /** Per shop (platform:shop), its problems by kind at its last check: summed per platform when shops are not labels. */
  readonly #problemsByShop = new Map<string, { platform: string; byKind: Map<string, number> }>();
  readonly #shopLabels: boolean;
  readonly deliveriesRead = new Counter({
    name: 'loyalty_bridge_deliveries_read_total',
    help: 'Stored deliveries read after the answer, by platform and outcome (events, ignored, recorded, dead_lettered, deferred, uninstalled, privacy)',
    labelNames: ['platform', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Bound once the parts exist: the client needs the metrics before the worker is built. */
  #sources: MetricSources = {};

  /**
   * `shopLabels` (METRICS_SHOP_LABELS): /metrics is scraped without
   * credentials, so by default it names no shop (which would tell anyone
   * who the bridge's merchants are); an operator whose /metrics is private
   * may have figures per shop.
   */
  constructor({ shopLabels = false }: { shopLabels?: boolean } = {}) {
    this.#shopLabels = shopLabels;
    this.subscriptionProblems = subscriptionProblemsGauge(this.registry, shopLabels);
    const sources = () => this.#sources;
    shareProcessFigures(this.registry);
    workGauges(this.registry, sources);
    laneGauges(this.registry, sources);
    accountGauges(this.registry, sources);
    scrapedGauge(
      this.registry,
      'loyalty_bridge_rate_limiter_limit',
      'Calls a minute the limiter allows',
      () => sources().limiter?.().effectiveLimit,
    );
  }

  /** One shop's last check: every kind is set, to 0 when gone, and other shops' figures are left as they are. */
  reportSubscriptions(health: SubscriptionHealth): void {
    const byKind = new Map(
      SUBSCRIPTION_PROBLEM_KINDS.map((kind) => [
        kind as string,
        health.problems.filter((problem) => problem.kind === kind).length,
      ]),
    );
    this.#problemsByShop.set(`${health.platform}:${health.shop}`, { platform: health.platform, byKind });
    for (const kind of SUBSCRIPTION_PROBLEM_KINDS) {
      if (this.#shopLabels) {
        (this.subscriptionProblems as Gauge<'platform' | 'shop' | 'kind'>).set(
          { platform: health.platform, shop: health.shop, kind },
          byKind.get(kind) ?? 0,
        );
        continue;
      }
      let sum = 0;
      for (const shop of this.#problemsByShop.values())
        if (shop.platform === health.platform) sum += shop.byKind.get(kind) ?? 0;
      (this.subscriptionProblems as Gauge<'platform' | 'kind'>).set({ platform: health.platform, kind }, sum);
    }
  }

  bind(sources: MetricSources): void {
    this.#sources = { ...this.#sources, ...sources };
  }
}

/** The sources as bound at scrape time (Metrics.bind). */
type Sources = () => MetricSources;

function subscriptionProblemsGauge(
  registry: Registry,
  shopLabels: boolean,
): Gauge<'platform' | 'shop' | 'kind'> | Gauge<'platform' | 'kind'> {
  const help =
    'Subscriptions (webhooks, hooks) the platform reports deleted, deactivated, disabled or missing, at the last check of each shop';
  return shopLabels
    ? new Gauge({
        name: 'loyalty_bridge_subscription_problems',
        help: `${help}, by platform, shop and kind`,
        labelNames: ['platform', 'shop', 'kind'] as const,
        registers: [registry],
      })
    : new Gauge({
        name: 'loyalty_bridge_subscription_problems',
        help: `${help}, by platform and kind (shops summed; METRICS_SHOP_LABELS=true for each shop)`,
        labelNames: ['platform', 'kind'] as const,
        registers: [registry],
      });
}

/** The process's figures, collected once per process (processRegistry), shown on every bridge's registry. */
function shareProcessFigures(registry: Registry): void {
  const figures = processRegistry();
  for (const { name } of figures.getMetricsAsArray()) {
    const metric = figures.getSingleMetric(name);
    if (metric) registry.registerMetric(metric);
  }
}

/** A gauge without labels, read at scrape time; undefined leaves it as it was. */
function scrapedGauge(
  registry: Registry,
  name: string,
  help: string,
  read: () => number | undefined | Promise<number | undefined>,
): Gauge {
  return new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      const value = await read();
      if (value !== undefined) this.set(value);
    },
  });
}

/** The work in hand: orders, deliveries, dead letters, the pause and the limiter's queue. */
function workGauges(registry: Registry, sources: Sources): void {
  const gauge = (name: string, help: string, read: () => number | undefined | Promise<number | undefined>) =>
    scrapedGauge(registry, name, help, read);
  gauge(
    'loyalty_bridge_jobs_pending',
    'Orders not yet where they belong (in memory or in the database): due, under way, or waiting for a retry or a pending period',
    async () => (await sources().store?.())?.activeOrders,
  );
  gauge('loyalty_bridge_calls_in_flight', 'Orders a worker of this instance is calling for now', () =>
    sources().inFlight?.(),
  );
  gauge(
    'loyalty_bridge_inbox_backlog',
    'Acknowledged deliveries not yet read and folded into their orders',
    async () => (await sources().store?.())?.inboxBacklog,
  );
  gauge('loyalty_bridge_dead_letters', 'Dead letters waiting for a person', () => sources().deadLetters?.());
  gauge(
    'loyalty_bridge_upstream_paused',
    '1 while the calls of a loyalty account are paused because the service refuses its credentials',
    async () => {
      const paused = await sources().paused?.();
      return paused === undefined ? undefined : Number(paused);
    },
  );
  gauge(
    'loyalty_bridge_rate_limiter_queued',
    'Calls waiting for their turn in the outbound rate limiter',
    () => sources().limiter?.().queued,
  );
  gauge(
    'loyalty_bridge_rate_limiter_window_calls',
    'Calls started in the last minute',
    () => sources().limiter?.().startedInWindow,
  );
}

function laneGauges(registry: Registry, sources: Sources): void {
  // One read of the lanes per scrape, shared by the three gauges (it counts the backlog).
  let lanesRead: { at: number; value: Promise<Record<Lane, LaneStatus>> | undefined } | undefined;
  const lanes = () => {
    if (!lanesRead || Date.now() - lanesRead.at > 1_000) lanesRead = { at: Date.now(), value: sources().lanes?.() };
    return lanesRead.value;
  };
  const perLane = (name: string, help: string, read: (lane: LaneStatus) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['lane'] as const,
      registers: [registry],
      async collect() {
        const figures = await lanes();
        if (!figures) return;
        for (const lane of LANES) this.set({ lane }, read(figures[lane]));
      },
    });
  perLane(
    'loyalty_bridge_lane_due',
    'Orders due now, per lane (live: webhooks and a person’s action on one order; backfill: resyncs, reconciliation, bulk retries)',
    (lane) => lane.due,
  );
  perLane(
    'loyalty_bridge_lane_calls_last_minute',
    'Loyalty calls this instance made in the last minute, per lane',
    (lane) => lane.callsLastMinute,
  );
  perLane(
    'loyalty_bridge_lane_oldest_wait_seconds',
    'How long the longest-waiting due order of the lane has waited',
    (lane) => (lane.oldestDueAt ? Math.max(0, (Date.now() - Date.parse(lane.oldestDueAt)) / 1000) : 0),
  );
}

type AccountsRead = () => Promise<AccountLoad[] | undefined>;

/** Per account: one read per scrape, shared by the gauges of accountGauges, as labelled (labelledAccounts). */
function accountsReader(sources: Sources): AccountsRead {
  let accountsRead: { at: number; value: Promise<AccountLoad[]> | undefined } | undefined;
  return async () => {
    if (!accountsRead || Date.now() - accountsRead.at > 1_000)
      accountsRead = { at: Date.now(), value: sources().accounts?.() };
    const loads = await accountsRead.value;
    return loads && labelledAccounts(loads);
  };
}

function perAccountGauge(
  registry: Registry,
  accounts: AccountsRead,
  name: string,
  help: string,
  read: (load: AccountLoad) => number | null,
): Gauge<'account'> {
  return new Gauge({
    name,
    help,
    labelNames: ['account'] as const,
    registers: [registry],
    async collect() {
      const loads = await accounts();
      if (!loads) return;
      // Which accounts are labelled changes with their load: no series is left behind from the last scrape.
      this.reset();
      for (const load of loads) {
        const value = read(load);
        if (value !== null) this.set({ account: load.id }, value);
      }
    },
  });
}

function perAccountLaneGauge(
  registry: Registry,
  accounts: AccountsRead,
  name: string,
  help: string,
  read: (load: AccountLoad, lane: Lane) => number,
): Gauge<'account' | 'lane'> {
  return new Gauge({
    name,
    help,
    labelNames: ['account', 'lane'] as const,
    registers: [registry],
    async collect() {
      const loads = await accounts();
      if (!loads) return;
      this.reset();
      for (const load of loads) for (const lane of LANES) this.set({ account: load.id, lane }, read(load, lane));
    },
  });
}

function accountGauges(registry: Registry, sources: Sources): void {
  const accounts = accountsReader(sources);
  perAccountGauge(
    registry,
    accounts,
    'loyalty_bridge_account_calls_last_minute',
    'Loyalty calls this instance started for the account in the last minute (the busiest accounts by id, the rest as "other")',
    (load) => load.callsLastMinute,
  );
  perAccountGauge(
    registry,
    accounts,
    'loyalty_bridge_account_limit_per_minute',
    'Calls a minute the account’s limiter allows',
    (load) => load.limitPerMinute,
  );
  perAccountGauge(
    registry,
    accounts,
    'loyalty_bridge_account_budget_spent',
    '1 while the account’s rate budget is spent and its shops are passed over',
    (load) => (load.budgetSpentUntil === null ? 0 : 1),
  );
  perAccountLaneGauge(
    registry,
    accounts,
    'loyalty_bridge_account_due',
    'Orders due now, per account and lane',
    (load, lane) => load.lanes[lane].due,
  );
  perAccountLaneGauge(
    registry,
    accounts,
    'loyalty_bridge_account_oldest_wait_seconds',
    'How long the account’s longest-waiting due order of the lane has waited',
    (load, lane) => {
      const oldest = load.lanes[lane].oldestDueAt;
      return oldest ? Math.max(0, (Date.now() - Date.parse(oldest)) / 1000) : 0;
    },
  );
}
