// npm run bench:accounts: the accounts row of the bench alone (issue 33), on
// lowdb and PostgreSQL, for work on the worker's budgets without the whole
// bench's half hour. BENCH_PROFILE=smoke runs it tiny.
import { PROFILES } from './run.ts';
import { accountsScenario } from './scenarios/accounts.ts';

const profile = PROFILES[process.env.BENCH_PROFILE ?? 'full'];
if (!profile) throw new Error(`BENCH_PROFILE must be one of ${Object.keys(PROFILES).join(', ')}`);
const runs = await accountsScenario(profile.accounts, (line) => process.stderr.write(`${line}\n`));
for (const run of runs)
  process.stdout.write(
    `${run.backend}: ${run.backlogged} accounts × ${run.backlogPerAccount} at ${run.limitPerMinute}/min: ` +
      `calls/min of limit min ${run.backloggedShare.min}, median ${run.backloggedShare.median} ` +
      `(of planned ${run.backloggedShareOfPlanned.min}), ${run.rateLimited} × 429; ` +
      `others' live p50 ${run.others.p50Ms} ms, p99 ${run.others.p99Ms} ms; ` +
      `ceiling ${run.ceiling.bridgePerSecond} calls/s against a bare loop's ${run.ceiling.barePerSecond} (${run.ceiling.ratio})\n`,
  );
