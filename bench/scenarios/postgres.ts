// The PostgreSQL figures of npm run bench beyond acknowledgements: takeover
// after a SIGKILL with default settings, pruneSeen at its worst case, and
// what a NOTIFY per commit costs. Left out when no server answers.
import { probePostgres } from '../lib/databases.ts';
import type { AckScenario } from './ack.ts';
import { notifyCommitsScenario, type NotifyResult } from './notify-commits.ts';
import { takeoverScenario, type TakeoverResult } from './postgres-takeover.ts';
import { pruneSeenScenario, type PruneResult } from './prune-seen.ts';

export interface PostgresProfile {
  takeoverOrders: number;
  pruneExpired: number;
  pruneInbox: number;
  notifySeconds: number;
}

export interface PostgresFigures {
  takeover: TakeoverResult;
  prune: PruneResult;
  notify: NotifyResult;
}

export async function postgresScenarios(
  profile: PostgresProfile,
  log: (line: string) => void,
): Promise<PostgresFigures | undefined> {
  if (!(await probePostgres())) return undefined;
  log('PostgreSQL: takeover after SIGKILL ...');
  const takeover = await takeoverScenario(profile.takeoverOrders);
  log('PostgreSQL: pruneSeen ...');
  const prune = await pruneSeenScenario(profile.pruneExpired, profile.pruneInbox);
  log('PostgreSQL: commits with and without NOTIFY ...');
  const notify = await notifyCommitsScenario(profile.notifySeconds);
  return { takeover, prune, notify };
}

/** PostgreSQL's acknowledgement throughput over lowdb's, measured in the same run. */
export const postgresAckRatio = (ack: AckScenario): number | undefined =>
  ack.postgres ? ack.postgres.requestsPerSecond / ack.lowdb.requestsPerSecond : undefined;

export function postgresTargets(ack: AckScenario, figures: PostgresFigures | undefined) {
  const ratio = postgresAckRatio(ack);
  return {
    ...(ratio === undefined
      ? {}
      : { ackPostgresToLowdb: { value: Number(ratio.toFixed(2)), target: '>= 0.50 of lowdb', met: ratio >= 0.5 } }),
    ...(figures
      ? {
          takeoverAfterKill: {
            value: figures.takeover.takeoverMs,
            target: '< 15000 ms, default settings',
            met: figures.takeover.takeoverMs < 15_000,
          },
        }
      : {}),
  };
}

export function postgresTable(
  ack: AckScenario,
  figures: PostgresFigures | undefined,
  row: (cells: Array<string | number>) => string,
): string[] {
  if (!figures) return [];
  const { takeover, prune, notify } = figures;
  return [
    '',
    '| PostgreSQL | figure |',
    '|---|---|',
    row(['acknowledgements, PostgreSQL over lowdb (same run)', (postgresAckRatio(ack) ?? Number.NaN).toFixed(2)]),
    row([
      `takeover after SIGKILL, default lease (${takeover.orders} orders; victim held ${takeover.heldOrders} orders, ${takeover.heldInbox} entries)`,
      `all claimed ${takeover.takeoverMs} ms, all earned ${takeover.earnedMs} ms after the kill`,
    ]),
    row([
      `pruneSeen, ${prune.expired.toLocaleString('en')} expired keys, ${prune.inbox.toLocaleString('en')} inbox entries`,
      `${prune.ms} ms (${prune.kept.toLocaleString('en')} keys kept)`,
    ]),
    row([
      `commits/s from ${notify.connections} connections: without NOTIFY, with a NOTIFY each`,
      `${notify.withoutNotify}, ${notify.withNotify}`,
    ]),
  ];
}
