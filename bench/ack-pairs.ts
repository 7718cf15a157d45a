// A change's effect on the acknowledgement path, measured in turns: node bench/ack-pairs.ts <before> <after> [rounds]
// Each round loads the durable baseline then the bridge on lowdb, from each checkout (the order alternating by
// round), and prints each pair's ratio and the medians: this machine's speed drifts by a fifth from minute to
// minute, so runs minutes apart measure the drift, and only pairs taken side by side compare two versions.
// <before> and <after> are checkouts with their dependencies (a `git worktree add`, node_modules linked in).
import { resolve } from 'node:path';
import type * as ackModule from './scenarios/ack.ts';
import type * as processModule from './lib/bridge-process.ts';
import type * as loadModule from './lib/load.ts';
import type { AckResult } from './lib/load.ts';

interface Side {
  ack: typeof ackModule;
  proc: typeof processModule;
  load: typeof loadModule;
}

const sideOf = async (root: string): Promise<Side> => ({
  ack: (await import(resolve(root, 'bench/scenarios/ack.ts'))) as Side['ack'],
  proc: (await import(resolve(root, 'bench/lib/bridge-process.ts'))) as Side['proc'],
  load: (await import(resolve(root, 'bench/lib/load.ts'))) as Side['load'],
});

async function pair(side: Side, sandboxUrl: string): Promise<{ lowdb: AckResult; durable: AckResult }> {
  const options = { runs: 1, seconds: 10, connections: 50 };
  const baseline = await side.proc.startServer([side.proc.BASELINE], {
    BASELINE: 'durable',
    SHOPIFY_API_SECRET: side.ack.SECRET,
  });
  const durable = await side.load.ackLoad(baseline.url, side.ack.SECRET, options).finally(() => baseline.stop());
  const bridge = await side.ack.startBridgeProcess(sandboxUrl);
  const lowdb = await side.load.ackLoad(bridge.url, side.ack.SECRET, options).finally(() => bridge.stop());
  return { lowdb, durable };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [before, after, rounds = '5'] = process.argv.slice(2);
  if (!before || !after) throw new Error('usage: node bench/ack-pairs.ts <before> <after> [rounds]');
  const sides = { before: await sideOf(before), after: await sideOf(after) };
  const ratios: Record<'before' | 'after', number[]> = { before: [], after: [] };
  const sandbox = await sides.after.ack.startSandbox();
  try {
    for (let round = 0; round < Number(rounds); round++) {
      for (const name of round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)) {
        const { lowdb, durable } = await pair(sides[name], sandbox.url);
        const ratio = lowdb.requestsPerSecond / durable.requestsPerSecond;
        ratios[name].push(ratio);
        process.stdout.write(
          `${name} round ${round}: lowdb ${Math.round(lowdb.requestsPerSecond)} req/s, durable baseline ${Math.round(durable.requestsPerSecond)} req/s, ratio ${ratio.toFixed(3)}\n`,
        );
      }
    }
  } finally {
    await sandbox.stop();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  process.stdout.write(
    `median ratio to the durable baseline: before ${median(ratios.before).toFixed(3)}, after ${median(ratios.after).toFixed(3)}\n`,
  );
}
