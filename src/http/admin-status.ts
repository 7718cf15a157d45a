// The admin API's overview: /status (the dashboard's top and the CLI's status), the loyalty service's probe, the
// platforms the bridge knows, their connections, and the activity chart's series.
import type { Request, Response, Router } from 'express';
import { laneStatus } from '../core/lanes.ts';
import { activityWords } from './activity-words.ts';
import { reasonWords, STATE_LABELS, stateWords } from '../core/order-words.ts';
import { limitWords, type RateLimiterStats } from '../loyalty/rate-limiter.ts';
import type { Platforms } from '../core/platforms.ts';
import { operatorProblems } from './problems.ts';
import { newestOrders } from '../core/order-points-view.ts';
import { stateChart } from './state-chart.ts';
import { accountLoadsNow, type AdminApiParts } from './admin-parts.ts';
import { connectionsState, reconciledState } from './admin-state.ts';

export function adminStatusRoutes(router: Router, parts: AdminApiParts): void {
  router.get('/status', status(parts));
  // "Try again now" after the credentials were put right at the service, instead of waiting for the next probe.
  router.post('/upstream/probe', probe(parts));
  // Every platform the bridge knows, with the names a person reads: the pages name none of their own.
  router.get('/platforms', platformList(parts));
  router.get('/connections', connections(parts));
  router.get('/activity', activitySeries(parts));
}

const status = (parts: AdminApiParts) => async (_req: Request, res: Response) => {
  res.json(await statusBody(parts, await statusFigures(parts)));
};

const probe =
  ({ engine }: AdminApiParts) =>
  async (_req: Request, res: Response) => {
    // Every paused account is asked now; what stays paused is listed.
    const still: string[] = [];
    for (const account of await engine.accounts.all()) if (await account.authPause.probeNow()) still.push(account.id);
    res.json({ paused: still.length > 0, accounts: still });
  };

const platformList =
  ({ platforms }: AdminApiParts) =>
  (_req: Request, res: Response) => {
    const installs = new Set(
      platforms.modules.flatMap(({ module, parts: built }) => (built.installs ? [module.name] : [])),
    );
    // installs: the operator installs its app on a shop from the dashboard (/admin/api/<name>/shops and /installs).
    res.json({ platforms: platforms.directory.map((each) => ({ ...each, installs: installs.has(each.name) })) });
  };

const connections = (parts: AdminApiParts) => async (_req: Request, res: Response) => {
  res.json({ connections: await connectionsState(parts) });
};

const activitySeries =
  ({ activity, platforms }: AdminApiParts) =>
  (req: Request, res: Response) => {
    const minutes = Math.min(24 * 60, Math.max(10, Number(req.query.minutes) || 180));
    const series = activity.series(minutes);
    // Each series named in words (the chart's legend); the codes stay the keys.
    const platformName = (name: string) =>
      platforms.directory.find((each) => each.name === name)?.names.platform ?? name;
    res.json({ minutes: series, words: activityWords(series, platformName) });
  };

/** Everything /status reads, at once; then what stops orders earning, which needs the accounts' loads among them. */
async function statusFigures(parts: AdminApiParts) {
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
  const demo = parts.demo?.() ?? false;
  const problems = await operatorProblems({
    store,
    runtimes: () => engine.accounts.all(),
    records: () => parts.accounts.list(),
    accountOf: (shop) => parts.accounts.accountOf(shop),
    loads: accounts,
    spentLongMs: engine.worker.budgetSpentLongMs,
    now: new Date(),
  });
  const figures = { orders, deadLetters, ledger, reconciliation, connections, dataRequests, laneCounts, secrets };
  return { ...figures, accounts, recentOrders, demo, problems };
}

async function statusBody(
  { engine, platforms, client, health, sandbox }: AdminApiParts,
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
    stateChart: await stateChart(orders.byState, store),
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
    mode: { sandbox: sandbox ?? false, demo },
    // The newest orders, each with its points as a number (status prints them).
    recentOrders: figures.recentOrders,
  };
}

// A platform's own words for a reason only it gives, from whichever module gives it.
const skipReasonsOf = (platforms: Platforms, reason: string) =>
  platforms.modules.find(({ parts: built }) => built.notes?.skipReasons[reason])?.parts.notes?.skipReasons;

/** The limiter's figures, and the same in words: why it sends fewer calls than the service allows. */
const rateLimitView = (stats: RateLimiterStats) => ({ ...stats, words: limitWords(stats.startedInWindow, stats) });
