// The operator's overview: the status (the dashboard's top and the CLI's status), the loyalty service's probe, the
// platforms the bridge knows, their connections, and the activity chart's series.
import { accountLoads, operatorView } from '../../accounts/account-load.ts';
import { laneStatus } from '../../core/lanes.ts';
import { reasonWords, STATE_LABELS, stateWords } from '../../core/order-words.ts';
import { newestOrders } from '../../core/order-points-view.ts';
import type { Platforms } from '../../core/platforms.ts';
import { limitWords, type RateLimiterStats } from '../../loyalty/rate-limiter.ts';
import type { ActivityMinutes, OperatorParts } from './parts.ts';
import { connectionsState, reconciledState } from './state.ts';

/** Each account's calls against its limit, its budget, and its due work per lane (account-load.ts). */
export const accountLoadsNow = ({ accounts, engine }: Pick<OperatorParts, 'accounts' | 'engine'>) =>
  accountLoads({
    accounts,
    store: engine.store,
    view: operatorView(
      () => engine.worker.spentBudgets,
      () => engine.worker.spentBudgetsSince,
    ),
  });

/** The status: every figure the dashboard's top and the CLI's status show. */
export type OperatorStatusBody = Awaited<ReturnType<typeof statusBody>>;
export type ConnectionState = Awaited<ReturnType<typeof connectionsState>>[number];
export type ReconciledState = Awaited<ReturnType<typeof reconciledState>>;

export interface OperatorStatus {
  status(): Promise<OperatorStatusBody>;
  /** "Try again now" after the credentials were put right: every paused account is asked now; what stays paused is listed. */
  probe(): Promise<{ paused: boolean; accounts: string[] }>;
  /** Every platform the bridge knows, with the names a person reads; installs: its app is installed from the dashboard. */
  platforms(): { platforms: Array<Platforms['directory'][number] & { installs: boolean }> };
  connections(): Promise<{ connections: ConnectionState[] }>;
  /** The activity chart, the minutes asked for (NaN: the default) kept between ten and a day. */
  activity(minutes: number): { minutes: ActivityMinutes; words: object };
  /** How far each resync source has read. */
  reconciliation(): Promise<{ platforms: ReconciledState }>;
}

export const operatorStatus = (parts: OperatorParts): OperatorStatus => ({
  status: async () => statusBody(parts, await statusFigures(parts)),
  probe: async () => {
    const still: string[] = [];
    for (const account of await parts.engine.accounts.all())
      if (await account.authPause.probeNow()) still.push(account.id);
    return { paused: still.length > 0, accounts: still };
  },
  platforms: () => {
    const { platforms } = parts;
    const installs = new Set(
      platforms.modules.flatMap(({ module, parts: built }) => (built.installs ? [module.name] : [])),
    );
    return { platforms: platforms.directory.map((each) => ({ ...each, installs: installs.has(each.name) })) };
  },
  connections: async () => ({ connections: await connectionsState(parts) }),
  // Between ten minutes and a day of it, three hours unless asked.
  activity: (asked) => {
    const minutes = Math.min(24 * 60, Math.max(10, asked || 180));
    const series = parts.activity.series(minutes);
    // Each series named in words (the chart's legend); the codes stay the keys.
    const platformName = (name: string) =>
      parts.platforms.directory.find((each) => each.name === name)?.names.platform ?? name;
    return { minutes: series, words: parts.words.activityWords(series, platformName) };
  },
  reconciliation: async () => ({ platforms: await reconciledState(parts) }),
});

/** Everything the status reads, at once; then what stops orders earning, which needs the accounts' loads among them. */
async function statusFigures(parts: OperatorParts) {
  const { engine } = parts;
  const { store, privacy } = engine;
  const [
    orders,
    deadLetters,
    ledger,
    reconciliation,
    connections,
    dataRequests,
    laneCounts,
    secrets,
    accounts,
    recentOrders,
  ] = await Promise.all([
    store.countOrders(),
    store.countDeadLetters(),
    store.stats(),
    reconciledState(parts),
    connectionsState(parts),
    privacy.dataRequests(),
    store.laneCounts(),
    store.secretsStatus(),
    accountLoadsNow(parts),
    newestOrders(store, engine.accounts),
  ]);
  // Whether this bridge's demo store sends orders now (first-run.ts stops it when a store of the merchant's own is
  // connected, and never starts it beside one), so the dashboard's demo banner goes when it stops.
  const demo = parts.demo();
  const problems = await parts.words.problems(accounts);
  const figures = { orders, deadLetters, ledger, reconciliation, connections, dataRequests, laneCounts, secrets };
  return { ...figures, accounts, recentOrders, demo, problems };
}

async function statusBody(
  { engine, platforms, client, health, sandbox, words }: OperatorParts,
  figures: Awaited<ReturnType<typeof statusFigures>>,
) {
  const { orders, ledger, laneCounts, accounts, demo, problems } = figures;
  const { store } = engine;
  return {
    // What stops orders earning, each with its cause and fix: the top of the dashboard, status's !! lines.
    problems,
    orders,
    deadLetters: figures.deadLetters,
    worker: engine.worker.stats,
    lanes: laneStatus(laneCounts, engine.worker.lanes, new Date()),
    // Per loyalty account: calls against its limit, its budget, its due work per lane.
    accounts,
    rateLimit: rateLimitView(client.limiter.stats()),
    // Each state and reason listed above in words, with its fix (the codes stay the keys).
    stateWords: Object.fromEntries(Object.keys(orders.byState).map((state) => [state, stateWords(state)])),
    // Each state in a few words, where a sentence does not fit (the orders' filter).
    stateLabels: STATE_LABELS,
    // The states chart's bars, each with its words and tone: a held order apart from the state it plans.
    stateChart: await words.stateChart(orders.byState),
    reasonWords: Object.fromEntries(
      [...Object.keys(orders.skipped), ...Object.keys(orders.attention)].map((reason) => [
        reason,
        reasonWords(reason, { audience: 'operator', platformReasons: skipReasonsOf(platforms, reason) }),
      ]),
    ),
    upstream: health.snapshot(),
    ledger: { store: store.kind, ...ledger },
    reconciliation: figures.reconciliation,
    connections: figures.connections,
    privacy: { openDataRequests: figures.dataRequests.length },
    // Key ids are digests, counts are counts: nothing here is a secret.
    secrets: figures.secrets,
    // demo: the demo store sends orders now (it stops once a store of the merchant's own is connected).
    mode: { sandbox, demo },
    // The newest orders, each with its points as a number (status prints them).
    recentOrders: figures.recentOrders,
  };
}

// A platform's own words for a reason only it gives, from whichever module gives it.
const skipReasonsOf = (platforms: Platforms, reason: string) =>
  platforms.modules.find(({ parts: built }) => built.notes?.skipReasons[reason])?.parts.notes?.skipReasons;

/** The limiter's figures, and the same in words: why it sends fewer calls than the service allows. */
const rateLimitView = (stats: RateLimiterStats) => ({ ...stats, words: limitWords(stats.startedInWindow, stats) });
