// npm run bench: the bridge at the limits that matter, each beside its
// baseline, in one run on this machine. Prints a table and writes it as JSON
// under bench/results/ (git-ignored). BENCH_PROFILE=smoke runs every scenario
// at a tiny size (what the test suite does, so the bench cannot rot).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { ackScenario, growthScenario } from './scenarios/ack.ts';
import { drainScenario } from './scenarios/drain.ts';
import { latencyScenario } from './scenarios/latency.ts';

export interface BenchProfile {
  name: string;
  ack: { runs: number; seconds: number; connections: number };
  growth: { sizes: number[]; runs: number; seconds: number; connections: number };
  drain: { jobs: number; limitPerMinute: number };
  latency: { orders: number };
}

export const PROFILES: Record<string, BenchProfile> = {
  full: {
    name: 'full',
    ack: { runs: 3, seconds: 10, connections: 50 },
    growth: { sizes: [1_000, 10_000, 100_000], runs: 3, seconds: 8, connections: 50 },
    drain: { jobs: 3_000, limitPerMinute: 6_000 },
    latency: { orders: 20 },
  },
  smoke: {
    name: 'smoke',
    ack: { runs: 1, seconds: 1, connections: 5 },
    growth: { sizes: [50], runs: 1, seconds: 1, connections: 5 },
    drain: { jobs: 30, limitPerMinute: 60_000 },
    latency: { orders: 2 },
  },
};

export async function runBench(profile: BenchProfile, log: (line: string) => void = () => undefined) {
  const started = Date.now();
  log('acknowledgement: bare route, HMAC route, bridge ...');
  const ack = await ackScenario(profile.ack);
  log('growth with history ...');
  const growth = await growthScenario(profile.growth.sizes, profile.growth);
  log('drain at the rate limit ...');
  const drain = await drainScenario(profile.drain.jobs, profile.drain.limitPerMinute);
  log('end-to-end latency ...');
  const latency = await latencyScenario(profile.latency.orders);
  const first = growth[0];
  const last = growth.at(-1);
  const targets = {
    ackThroughput: { value: Number(ack.ratioToBare.toFixed(2)), target: '>= 0.50 of bare', met: ack.ratioToBare >= 0.5 },
    ackP99: { value: ack.bridge.p99, target: '< 50 ms', met: ack.bridge.p99 < 50 },
    growthP99: { value: first && last ? Number((last.ack.p99 / Math.max(1, first.ack.p99)).toFixed(2)) : null, target: '<= 1.5x from smallest to largest', met: !!first && !!last && last.ack.p99 <= 1.5 * Math.max(1, first.ack.p99) },
    memory: { value: last?.rssMb ?? null, target: '< 300 MB at the largest', met: (last?.rssMb ?? Infinity) < 300 },
    startup: { value: last?.startupMs ?? null, target: '< 2000 ms at the largest', met: (last?.startupMs ?? Infinity) < 2_000 },
    drainRate: { value: drain.fractionOfLimit, target: '>= 0.95 of the limit', met: drain.fractionOfLimit >= 0.95 },
    drain429: { value: drain.rateLimited, target: '0', met: drain.rateLimited === 0 },
    latencyP50: { value: latency.p50, target: '< 100 ms', met: latency.p50 < 100 },
  };
  return {
    profile: profile.name,
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? '', memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
    seconds: Math.round((Date.now() - started) / 1000),
    ack,
    growth,
    drain,
    latency,
    targets,
  };
}

export function table(result: Awaited<ReturnType<typeof runBench>>): string {
  const { ack, growth, drain, latency, targets } = result;
  const row = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
  const lines = [
    `loyalty-bridge bench (${result.profile}), ${result.at}, node ${result.machine.node}, ${result.machine.cpus} cores, ${result.seconds} s`,
    '',
    '| acknowledgement (medians) | req/s | p50 ms | p99 ms | max ms | errors | vs bare |',
    '|---|---|---|---|---|---|---|',
    row(['bare express route', ack.bare.requestsPerSecond, ack.bare.p50, ack.bare.p99, ack.bare.max, ack.bare.non2xx, '1.00']),
    row(['route + HMAC', ack.hmac.requestsPerSecond, ack.hmac.p50, ack.hmac.p99, ack.hmac.max, ack.hmac.non2xx, (ack.hmac.requestsPerSecond / ack.bare.requestsPerSecond).toFixed(2)]),
    row(['bridge (durable ack)', ack.bridge.requestsPerSecond, ack.bridge.p50, ack.bridge.p99, ack.bridge.max, ack.bridge.non2xx, ack.ratioToBare.toFixed(2)]),
    '',
    '| orders in ledger | req/s | p50 ms | p99 ms | start-up ms | RSS MB at start | RSS MB after the run |',
    '|---|---|---|---|---|---|---|',
    ...growth.map((point) => row([point.orders.toLocaleString('en'), point.ack.requestsPerSecond, point.ack.p50, point.ack.p99, point.startupMs, point.rssMb, point.rssAfterLoadMb])),
    '',
    '| drain | jobs | limit/min | calls/min | of limit | 429s | seconds |',
    '|---|---|---|---|---|---|---|',
    row(['backlog into the sandbox', drain.jobs, drain.limitPerMinute, drain.callsPerMinute, drain.fractionOfLimit, drain.rateLimited, drain.seconds]),
    '',
    '| end to end | orders | p50 ms | p90 ms | max ms |',
    '|---|---|---|---|---|',
    row(['delivery to earn in sandbox', latency.orders, latency.p50, latency.p90, latency.max]),
    '',
    '| target | value | wanted | met |',
    '|---|---|---|---|',
    ...Object.entries(targets).map(([name, target]) => row([name, String(target.value), target.target, target.met ? 'yes' : 'NO'])),
  ];
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const profile = PROFILES[process.env.BENCH_PROFILE ?? 'full'];
  if (!profile) throw new Error(`BENCH_PROFILE must be one of ${Object.keys(PROFILES).join(', ')}`);
  const result = await runBench(profile, (line) => process.stderr.write(`${line}\n`));
  const text = table(result);
  process.stdout.write(`${text}\n`);
  const dir = new URL('./results/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${result.at.replace(/[:.]/g, '-')}.json`, `${JSON.stringify(result, null, 2)}\n`);
  process.stderr.write(`written to bench/results/\n`);
}
