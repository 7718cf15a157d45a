// loyalty-bridge status: orders by state and platform, skipped by reason,
// dead letters, and what needs attention (refused credentials, subscriptions
// a platform turned off), from a running bridge or the ledger itself.
import type { AccountLoad } from '../accounts/account-load.ts';
import type { Config } from '../config.ts';
import { LANES, laneStatus, type Lane, type LaneStatus } from '../core/lanes.ts';
import type { SubscriptionHealth } from '../core/order-source.ts';
import type { OrderCounts, SecretsStatus } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import { out, withReadOnlyStore, type Remote } from './common.ts';
import { platformDirectory, SHIPPED_MODULES } from '../platform-registry.ts';
import type { AnyPlatformModule } from '../core/platform-module.ts';
import { declaredPoints } from '../accounts/declared-points.ts';
import { newestOrders, type RecentOrder } from '../core/order-points-view.ts';
import { reasonWords, stateWords, wordsLine } from '../core/order-words.ts';
import { deadLetterProblem, type Problem } from '../http/problems.ts';
import { counted } from '../counted.ts';
import { HEALTH_KIND } from '../core/order-source.ts';

/** What a platform's module says of topics not yet seen delivered. */
const unconfirmedWhy = (platform: string) =>
  (SHIPPED_MODULES as readonly AnyPlatformModule[]).find(({ name }) => name === platform)?.unconfirmedWhy ??
  'not yet seen delivered (each is confirmed by its first delivery)';

interface StatusBody {
  /** What stops orders earning, each with its cause and fix (problems.ts); absent from older bridges. */
  problems?: Problem[];
  orders: Omit<OrderCounts, 'attention'> & Partial<Pick<OrderCounts, 'attention'>>;
  deadLetters: number;
  upstream?: { credentialsRefused: boolean; lastSuccessAt: string | null };
  connections?: Array<{ platform: string; subscriptions: SubscriptionHealth[] }>;
  lanes?: Record<Lane, LaneStatus>;
  /** Per loyalty account, from a running bridge (its limiters and budgets live there). */
  accounts?: AccountLoad[];
  /** Absent from bridges older than secrets at rest. */
  secrets?: SecretsStatus;
  /** The newest orders with their points; absent from bridges older than points as numbers. */
  recentOrders?: RecentOrder[];
}

export async function status(config: Config, logger: Logger, remote: Remote | undefined): Promise<number> {
  let body: StatusBody;
  if (remote) {
    body = (await remote.get<StatusBody>('status')).body;
  } else {
    body = await ledgerStatus(config, logger);
  }
  printAttention(body);
  printOrders(body);
  out(`dead letters: ${body.deadLetters}`);
  printWork(body);
  printSecrets(body);
  return 0;
}

/** The status from the ledger itself, without a running bridge. */
function ledgerStatus(config: Config, logger: Logger): Promise<StatusBody> {
  return withReadOnlyStore(config, logger, async (store) => ({
    orders: await store.countOrders(),
    deadLetters: await store.countDeadLetters(),
    connections: [
      {
        platform: 'all',
        subscriptions: (await store.listRecords(HEALTH_KIND)).map(({ value }) => value),
      },
    ],
    lanes: laneStatus(
      await store.laneCounts(),
      { live: { inFlight: 0, callsLastMinute: 0 }, backfill: { inFlight: 0, callsLastMinute: 0 } },
      new Date(),
    ),
    secrets: await store.secretsStatus(),
    recentOrders: await newestOrders(store, await declaredPoints(config, store)),
    // Without a running bridge its accounts' state is unknown: the ledger's own problems only.
    problems: [await deadLetterProblem(store, [])].filter((problem) => problem !== undefined),
  }));
}

/** What needs attention first: problems, refused credentials, subscriptions a platform turned off. */
function printAttention(body: StatusBody): void {
  for (const problem of body.problems ?? []) out(`!! ${problem.cause} ${problem.fix}`);
  // An older bridge says no problems: its refused credentials, as it reported them.
  if (body.upstream?.credentialsRefused && !body.problems)
    out(
      '!! the loyalty service refuses our credentials: every call is paused. Check LOYALTY_API_KEY and LOYALTY_BRAND_ID',
    );
  for (const report of (body.connections ?? []).flatMap((connection) => connection.subscriptions)) {
    for (const problem of report.problems)
      out(`!! ${report.platform} ${report.shop}: ${problem.detail}. ${problem.fix}`);
    if (report.error) out(`!! ${report.platform} ${report.shop}: could not check the subscriptions: ${report.error}`);
    if (report.unconfirmed?.length)
      out(`.. ${report.platform} ${report.shop}: ${report.unconfirmed.join(', ')}: ${unconfirmedWhy(report.platform)}`);
  }
  if (body.upstream) out(`last successful call: ${body.upstream.lastSuccessAt ?? 'none yet'}`);
}

function table(title: string, map: Record<string, number>): void {
  out(title);
  const entries = Object.entries(map);
  if (entries.length === 0) out('  none');
  for (const [name, value] of entries.sort()) out(`  ${name.padEnd(22)} ${value}`);
}

// Each code in words, the code a detail after them.
function worded(title: string, map: Record<string, number>, words: (code: string) => string): void {
  out(title);
  const entries = Object.entries(map);
  if (entries.length === 0) out('  none');
  for (const [code, count] of entries.sort()) out(`  ${String(count).padStart(5)}  ${words(code)} (${code})`);
}

/** Orders by state, platform and reason, then the newest with their points. */
function printOrders(body: StatusBody): void {
  worded('orders by state', body.orders.byState, (state) => stateWords(state));
  // Each platform by the name a person reads; one registered at start by its code name.
  const labels = new Map(platformDirectory().map(({ name, names }) => [name, names.platform]));
  table(
    'orders by platform',
    Object.fromEntries(
      Object.entries(body.orders.byPlatform).map(([name, count]) => [labels.get(name) ?? name, count]),
    ),
  );
  // Each reason with its fix and (a detail for operators) its setting.
  const reason = (code: string) => wordsLine(reasonWords(code, { audience: 'operator' }));
  worded('skipped, by reason', body.orders.skipped, reason);
  // A bridge or ledger older than these reasons has none to show.
  worded('needing your eye, by reason', body.orders.attention ?? {}, reason);
  const redeemed = body.orders.attention?.points_redeemed_on_cancelled_order ?? 0;
  if (redeemed > 0)
    out(
      `!! ${counted(redeemed, 'cancelled order')} had points redeemed on them: give them back from the dashboard (points redeemed on a cancelled order)`,
    );
  if (body.recentOrders) {
    out('newest orders, with their points');
    if (body.recentOrders.length === 0) out('  none');
    // An order listed for a reason (a skip, a wait) says why beside its points.
    for (const order of body.recentOrders)
      out(
        `  ${order.orderName.padEnd(22)} ${order.points.text}${order.reason ? ` · ${reasonWords(order.reason, { audience: 'operator' }).says}` : ''}`,
      );
  }
}

/** The work per lane, then per loyalty account. */
function printWork(body: StatusBody): void {
  for (const lane of LANES) {
    const figures = body.lanes?.[lane];
    if (!figures) continue;
    const since = figures.oldestDueAt ? `, oldest waiting since ${figures.oldestDueAt}` : '';
    const finish = figures.estimatedFinishAt ? `, done at this pace by ${figures.estimatedFinishAt}` : '';
    out(
      `${lane.padEnd(8)} work: ${figures.due} due now, ${figures.waiting} waiting, ${figures.callsLastMinute} calls in the last minute${since}${finish}`,
    );
  }
  for (const account of body.accounts ?? []) {
    const { live, backfill } = account.lanes;
    const calls =
      account.callsLastMinute === null
        ? ''
        : `, ${account.limitWords?.replace(/\.$/, '') ?? `${account.callsLastMinute} of ${account.limitPerMinute} calls a minute`}`;
    const spent = account.budgetSpentUntil ? `, budget spent until ${account.budgetSpentUntil}` : '';
    const oldest = [live.oldestDueAt, backfill.oldestDueAt].filter((at) => at !== null).sort()[0];
    out(
      `account ${account.name} (${account.id}): live ${live.due} due of ${live.waiting}, backfill ${backfill.due} due of ${backfill.waiting}${oldest ? `, oldest waiting since ${oldest}` : ''}${calls}${spent}`,
    );
    // A bridge older than problems: its paused rules, as it listed them (a newer one says them in a !! line).
    if (!body.problems)
      for (const paused of account.pausedRules ?? [])
        out(
          `account ${account.name} (${account.id}): ${paused.key} is off (${paused.rule}): the pattern ${paused.why}; fix it in the account's settings`,
        );
  }
}

function printSecrets(body: StatusBody): void {
  if (!body.secrets) return;
  const { counts, keyId, previousKeyId } = body.secrets;
  out(
    `secrets at rest: ${counts.current} sealed under SECRETS_KEY${keyId ? ` (key ${keyId})` : ''}, ${counts.previous} under SECRETS_KEY_PREVIOUS${previousKeyId ? ` (key ${previousKeyId})` : ''}, ${counts.plain} plain, ${counts.unknown} under another key`,
  );
  for (const note of body.secrets.notes) out(`${note.level === 'warn' ? '!!' : '..'} ${note.message}`);
}
