// npm run bench:accounts: the accounts row of the bench alone (issue 33), on
// lowdb and PostgreSQL, for work on the worker's budgets without the whole
// bench's half hour. BENCH_PROFILE=smoke runs it tiny. Options:
//   --backend lowdb|postgres   one backend only
//   --ceiling                  the drain ceiling only (every limit lifted)
import { parseArgs } from 'node:util';
import { PROFILES } from './run.ts';
import type { CpuPer } from './lib/cpu-time.ts';
import { accountsScenario, ceilingScenario } from './scenarios/accounts.ts';

const profile = PROFILES[process.env.BENCH_PROFILE ?? 'full'];
if (!profile) throw new Error(`BENCH_PROFILE must be one of ${Object.keys(PROFILES).join(', ')}`);
const { values } = parseArgs({ options: { backend: { type: 'string' }, ceiling: { type: 'boolean' } } });
const BACKENDS = ['lowdb', 'postgres'] as const;
const backends = BACKENDS.filter((backend) => values.backend === undefined || values.backend === backend);
if (backends.length === 0) throw new Error('--backend is lowdb or postgres');
const log = (line: string) => process.stderr.write(`${line}\n`);

/** This process's CPU, then the sandbox's and PostgreSQL's where seen. */
const cpuText = ({ self, sandbox, postgres }: CpuPer) =>
  [
    `${self}`,
    ...(sandbox === undefined ? [] : [`sandbox ${sandbox}`]),
    ...(postgres === undefined ? [] : [`PostgreSQL ${postgres}`]),
  ].join(' + ');

if (values.ceiling) {
  for (const backend of backends) {
    const ceiling = await ceilingScenario(backend, profile.accounts, log);
    process.stdout.write(
      `${backend}: ceiling ${ceiling.bridgePerSecond} calls/s against a bare loop's ${ceiling.barePerSecond} (${ceiling.ratio}), ${ceiling.orders} orders; ` +
        `CPU ms a call: bridge ${cpuText(ceiling.cpuMsPerCall.bridge)}, bare loop ${cpuText(ceiling.cpuMsPerCall.bare)}\n`,
    );
  }
} else {
  const runs = await accountsScenario(profile.accounts, log, { backends });
  for (const run of runs)
    process.stdout.write(
      `${run.backend}: ${run.backlogged} accounts × ${run.backlogPerAccount} at ${run.limitPerMinute}/min: ` +
        `calls/min of limit min ${run.backloggedShare.min}, median ${run.backloggedShare.median} ` +
        `(of planned ${run.backloggedShareOfPlanned.min}), ${run.rateLimited} × 429; ` +
        `others' live p50 ${run.others.p50Ms} ms, p99 ${run.others.p99Ms} ms; ` +
        `ceiling ${run.ceiling.bridgePerSecond} calls/s against a bare loop's ${run.ceiling.barePerSecond} (${run.ceiling.ratio})\n`,
    );
}
