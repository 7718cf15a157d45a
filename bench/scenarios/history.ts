// 2: a ledger with history (up to 1,000,000 orders), on each backend: how
// long the bridge takes to start, how much memory it holds, how fast the
// admin order listing and status answer (p99, a few dashboards at once), and
// the acknowledgement under load with that history behind it.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, startServer, type ServerProcess } from '../lib/bridge-process.ts';
import { copyDatabase, freshDatabase, probePostgres } from '../lib/databases.ts';
import { ackLoad, adminLoad, type AckResult } from '../lib/load.ts';
import { seedLedger, seedPostgres } from '../lib/seed.ts';
import { median } from '../lib/stats.ts';
import { ADMIN_TOKEN, bridgeEnv, SECRET, startSandbox, summarise, type AckOptions, type AckSummary } from './ack.ts';

export interface HistoryPoint {
  backend: 'lowdb' | 'postgres';
  orders: number;
  startupMs: number;
  /** Resident memory of the bridge once started, with the history there. */
  rssMb: number;
  /** And after the acknowledgement run, which added its own orders to the ledger. */
  rssAfterLoadMb: number;
  listP99: number;
  statusP99: number;
  ack: AckSummary;
}

interface Seeded {
  /** A copy of the seeded history for one run, and how to start a bridge on it. */
  copy(): Promise<{ extra: Record<string, string>; dataDir: string; remove(): Promise<void> }>;
  remove(): Promise<void>;
}

async function seedLowdb(size: number): Promise<Seeded> {
  const seeded = mkdtempSync(join(tmpdir(), `bench-history-${size}-`));
  await seedLedger(seeded, size);
  return {
    async copy() {
      const dataDir = mkdtempSync(join(tmpdir(), 'bench-history-run-'));
      // With the files' times, as a restored or moved ledger keeps them: otherwise every settled chunk looks unsummarised.
      cpSync(seeded, dataDir, { recursive: true, preserveTimestamps: true });
      return { extra: {}, dataDir, remove: async () => rmSync(dataDir, { recursive: true, force: true }) };
    },
    remove: async () => rmSync(seeded, { recursive: true, force: true }),
  };
}

async function seedDatabase(size: number): Promise<Seeded> {
  const seeded = await freshDatabase();
  await seedPostgres(seeded.url, size);
  return {
    async copy() {
      const database = await copyDatabase(seeded);
      return {
        extra: { DATABASE_URL: database.url },
        dataDir: mkdtempSync(join(tmpdir(), 'bench-history-pg-')),
        remove: () => database.drop(),
      };
    },
    remove: () => seeded.drop(),
  };
}

export interface HistoryOptions extends AckOptions {
  sizes: number[];
  /** Seconds and connections of the admin reads. */
  readSeconds: number;
  readConnections: number;
}

export async function historyScenario(
  options: HistoryOptions,
  log: (line: string) => void = () => undefined,
): Promise<HistoryPoint[]> {
  const sandbox = await startSandbox();
  const points: HistoryPoint[] = [];
  const backends: Array<['lowdb' | 'postgres', (size: number) => Promise<Seeded>]> = [['lowdb', seedLowdb]];
  if (await probePostgres()) backends.push(['postgres', seedDatabase]);
  try {
    for (const [backend, seed] of backends) {
      for (const size of options.sizes) {
        log(`  ${backend}: seeding ${size.toLocaleString('en')} orders ...`);
        const seeded = await seed(size);
        const runs = {
          startup: [] as number[],
          rss: [] as number[],
          rssAfter: [] as number[],
          list: [] as number[],
          status: [] as number[],
          ack: [] as AckResult[],
        };
        try {
          for (let run = 0; run < options.runs; run++) {
            // Each run starts from the same history, not from what the previous run added.
            const copy = await seeded.copy();
            let server: ServerProcess | undefined;
            try {
              server = await startServer([CLI, 'start'], bridgeEnv(copy.dataDir, sandbox.url, copy.extra), {
                timeoutMs: 600_000,
              });
              runs.startup.push(server.startupMs);
              await new Promise((resolve) => setTimeout(resolve, 500));
              runs.rss.push(server.rssBytes() ?? 0);
              const reads = { seconds: options.readSeconds, connections: options.readConnections };
              runs.list.push((await adminLoad(server.url, '/admin/api/orders?limit=50', ADMIN_TOKEN, reads)).p99);
              runs.status.push((await adminLoad(server.url, '/admin/api/status', ADMIN_TOKEN, reads)).p99);
              runs.ack.push(await ackLoad(server.url, SECRET, options));
              runs.rssAfter.push(server.rssBytes() ?? 0);
            } finally {
              await server?.stop();
              await copy.remove();
            }
          }
        } finally {
          await seeded.remove();
        }
        const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
        points.push({
          backend,
          orders: size,
          startupMs: Math.round(median(runs.startup)),
          rssMb: mb(median(runs.rss)),
          rssAfterLoadMb: mb(median(runs.rssAfter)),
          listP99: median(runs.list),
          statusP99: median(runs.status),
          ack: summarise(runs.ack),
        });
      }
    }
  } finally {
    await sandbox.stop();
  }
  return points;
}
