// loyalty-bridge <command>: the entry point for people and for npm scripts.
// Commands work on the local DATA_DIR, or on a running bridge through its
// admin API with --url (and --token, or ADMIN_TOKEN).
// Exit codes: 0 ok, 1 failure (bad configuration included), 2 usage.
import { parseArgs } from 'node:util';
import { registerShopifyWebhooks } from '../adapters/shopify/register.ts';
import { adminClient, AdminClientError } from './cli-admin-client.ts';
import { progressReporter } from './cli-progress.ts';
import { loadConfig, type Config } from './config.ts';
import { startEngine } from './core/engine.ts';
import { countOrders, summarise as summariseOrder, type OrderCounts } from './core/order-record.ts';
import { policyFromConfig } from './core/policy-from-config.ts';
import type { ResyncJob } from './core/resync-jobs.ts';
import { resync, type ResyncProgress } from './core/resync.ts';
import { lockDataDir } from './core/store/data-dir-lock.ts';
import type { DeadLetter } from './core/store/ledger-store.ts';
import { LowdbStore } from './core/store/lowdb-store.ts';
import { LoyaltyClient } from './loyalty/client.ts';
import { createLogger, type Logger } from './logger.ts';
import { startBridge, startSandboxServer } from './main.ts';
import { orderSources, PLATFORMS, shopifyAdminApi, type Platform } from './platforms.ts';

const USAGE = `Usage: loyalty-bridge <command> [options]

Commands:
  start                                  run the bridge (in sandbox mode when LOYALTY_BASE_URL is unset)
  sandbox                                run only the loyalty sandbox, on SANDBOX_PORT (default 4010)
  status                                 orders by state and platform, skipped by reason, dead letters
  dead-letters list                      what needs a person
  dead-letters retry <id>|--all          send a failed call again / read a kept delivery again
  dead-letters discard <id>              give up on one
  resync --platform <p> --since DATE [--until DATE]
                                         fetch orders updated in the window and bring their points up to date
  register --platform shopify            create the webhook subscriptions the bridge needs (never deletes any)
  help                                   show this text

Options:
  --url URL      work through a running bridge's admin API instead of DATA_DIR
  --token TOKEN  the admin token for --url (default: ADMIN_TOKEN)
  --platform     shopify, woocommerce or bigcommerce

Without --url, commands that change the ledger need the bridge stopped (DATA_DIR
is locked while it runs). Configuration: config/default.json, then
config/local.json, then environment variables of the same names. See README.md.`;

type Stoppable = { stop(): Promise<void> };

class UsageError extends Error {}

const COMMANDS = ['start', 'sandbox', 'status', 'dead-letters', 'resync', 'register'];

async function main(argv: string[]): Promise<number> {
  // Everything this process writes (the ledger: customers' contact details) is for its owner alone.
  process.umask(0o077);
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command "${command}"`);
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      platform: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
      all: { type: 'boolean' },
    },
    allowPositionals: command === 'dead-letters',
    strict: true,
  });

  const loaded = loadConfig();
  if (!loaded.ok) {
    process.stderr.write(`loyalty-bridge: the configuration is invalid, nothing was started:\n${loaded.errors.map((line) => `  ${line}`).join('\n')}\n`);
    return 1;
  }
  const config: Config = loaded.config;
  const logger = createLogger({ level: config.LOG_LEVEL });
  const remote = values.url ? adminClient(values.url, values.token ?? config.ADMIN_TOKEN) : undefined;

  switch (command) {
    case 'start':
    case 'sandbox': {
      // Handlers first: a signal that arrives while starting still stops cleanly.
      const started = command === 'start' ? startBridge(config, logger) : startSandboxServer(config, logger);
      stopOnSignal(started, logger);
      await started;
      return -1; // keep running
    }
    case 'status':
      return status(config, remote);
    case 'dead-letters':
      return deadLetters(config, remote, positionals, values.all === true);
    case 'register': {
      const platform = requirePlatform(values.platform);
      if (platform !== 'shopify') {
        process.stderr.write(`loyalty-bridge register: ${platform} webhooks are created in the store's own settings; README.md says how\n`);
        return 1;
      }
      return register(config);
    }
    case 'resync': {
      const platform = requirePlatform(values.platform);
      const since = parseDate('since', values.since);
      if (!since) throw new UsageError('--since is required');
      const until = parseDate('until', values.until);
      return remote ? remoteResync(remote, platform, since, until) : localResync(config, logger, platform, since, until);
    }
  }
  return 2;
}

type Remote = ReturnType<typeof adminClient>;

function requirePlatform(platform: string | undefined): Platform {
  if ((PLATFORMS as readonly string[]).includes(platform ?? '')) return platform as Platform;
  throw new UsageError(platform === undefined ? `--platform is required (${PLATFORMS.join(', ')})` : `--platform ${platform} is not supported (${PLATFORMS.join(', ')})`);
}

function parseDate(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--${name} ${value} is not a date (use 2026-11-01 or an ISO time)`);
  return date;
}

const out = (line = '') => process.stdout.write(`${line}\n`);

async function status(config: Config, remote: Remote | undefined): Promise<number> {
  let orders: OrderCounts;
  let deadLetterCount: number;
  if (remote) {
    const { body } = await remote.get<{ orders: typeof orders; deadLetters: number; upstream: { credentialsRefused: boolean; lastSuccessAt: string | null } }>('status');
    orders = body.orders;
    deadLetterCount = body.deadLetters;
    if (body.upstream.credentialsRefused) out('!! the loyalty service refuses our credentials: check LOYALTY_API_KEY and LOYALTY_BRAND_ID');
    out(`last successful call: ${body.upstream.lastSuccessAt ?? 'none yet'}`);
  } else {
    const loaded = await new LowdbStore({ dataDir: config.DATA_DIR }).load();
    orders = countOrders([...loaded.activeOrders.map((record) => summariseOrder(record)), ...loaded.settledSummaries]);
    deadLetterCount = loaded.deadLetters.length;
  }
  const table = (title: string, map: Record<string, number>) => {
    out(title);
    const entries = Object.entries(map);
    if (entries.length === 0) out('  none');
    for (const [name, value] of entries.sort()) out(`  ${name.padEnd(20)} ${value}`);
  };
  table('orders by state', orders.byState);
  table('orders by platform', orders.byPlatform);
  table('skipped, by reason', orders.skipped);
  out(`dead letters: ${deadLetterCount}`);
  return 0;
}

async function deadLetters(config: Config, remote: Remote | undefined, positionals: string[], all: boolean): Promise<number> {
  const [action, id] = positionals;
  if (action === 'list') {
    const letters = remote ? (await remote.get<{ deadLetters: DeadLetter[] }>('dead-letters')).body.deadLetters : (await new LowdbStore({ dataDir: config.DATA_DIR }).load()).deadLetters;
    if (letters.length === 0) out('no dead letters');
    for (const letter of letters) {
      const what = letter.kind === 'call' ? `${letter.operation} for ${letter.orderKey}` : `${letter.platform} ${letter.topic} delivery`;
      out(`${letter.id}  ${letter.createdAt}  ${what}\n    ${letter.reason}`);
    }
    return 0;
  }
  if (action !== 'retry' && action !== 'discard') throw new UsageError('dead-letters takes list, retry <id>|--all, or discard <id>');
  if (!id && !(action === 'retry' && all)) throw new UsageError(`dead-letters ${action} needs a dead letter id${action === 'retry' ? ' or --all' : ''}`);
  if (!remote) {
    process.stderr.write(`loyalty-bridge dead-letters ${action}: give --url of the running bridge (retrying needs its worker and adapters)\n`);
    return 1;
  }
  if (action === 'discard') {
    const { status } = await remote.delete(`dead-letters/${encodeURIComponent(id ?? '')}`);
    if (status === 404) return fail(`no dead letter ${id}`);
    out(`discarded ${id}`);
    return 0;
  }
  if (all) {
    const { body } = await remote.post<{ results: Array<{ id: string; retried: boolean; reason?: string }> }>('dead-letters/retry-all');
    for (const result of body.results) out(`${result.id}  ${result.retried ? 'retried' : `still failing: ${result.reason}`}`);
    return body.results.every((result) => result.retried) ? 0 : 1;
  }
  const { status, body } = await remote.post<{ retried?: boolean; reason?: string; error?: string }>(`dead-letters/${encodeURIComponent(id ?? '')}/retry`);
  if (status === 404) return fail(`no dead letter ${id}`);
  if (!body.retried) return fail(`still failing: ${body.reason}`);
  out(`retried ${id}`);
  return 0;
}

const fail = (message: string) => {
  process.stderr.write(`loyalty-bridge: ${message}\n`);
  return 1;
};

async function register(config: Config): Promise<number> {
  const admin = shopifyAdminApi(config);
  if (!admin || !config.SHOPIFY_APP_URL) return fail('register --platform shopify: set SHOPIFY_SHOP, SHOPIFY_ADMIN_TOKEN and SHOPIFY_APP_URL');
  const result = await registerShopifyWebhooks(admin, config.SHOPIFY_APP_URL);
  out(`Webhooks for ${admin.shop} go to ${result.callbackUrl}`);
  for (const topic of result.created) out(`  created  ${topic}`);
  for (const topic of result.alreadyThere) out(`  present  ${topic}`);
  return 0;
}

const API_SETTINGS: Record<Platform, string> = {
  shopify: 'SHOPIFY_SHOP and SHOPIFY_ADMIN_TOKEN',
  woocommerce: 'WOOCOMMERCE_URL, WOOCOMMERCE_CONSUMER_KEY and WOOCOMMERCE_CONSUMER_SECRET',
  bigcommerce: 'BIGCOMMERCE_STORE_HASH and BIGCOMMERCE_ACCESS_TOKEN',
};

function summarise(result: ResyncProgress): number {
  out(`resync done: fetched ${result.fetched}, changed ${result.changed}, unchanged ${result.unchanged}, failed ${result.failed}`);
  for (const error of result.errors) process.stderr.write(`  ${error}\n`);
  return result.failed > 0 ? 1 : 0;
}

async function remoteResync(remote: Remote, platform: Platform, since: Date, until: Date | undefined): Promise<number> {
  const started = await remote.post<{ job?: ResyncJob; error?: string }>('resync', { platform, since: since.toISOString(), ...(until ? { until: until.toISOString() } : {}) });
  if (started.status !== 202 || !started.body.job) return fail(`resync not started: ${started.body.error ?? started.status}`);
  const progress = progressReporter();
  let job = started.body.job;
  while (job.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 500));
    job = (await remote.get<{ job: ResyncJob }>(`resync/${job.id}`)).body.job;
    progress.update(job.progress);
  }
  progress.stop();
  return summarise(job.progress);
}

async function localResync(config: Config, logger: Logger, platform: Platform, since: Date, until: Date | undefined): Promise<number> {
  const source = orderSources(config).find((candidate) => candidate.platform === platform);
  if (!source) return fail(`resync --platform ${platform}: set ${API_SETTINGS[platform]}`);
  if (!config.LOYALTY_BASE_URL) return fail('resync: LOYALTY_BASE_URL is not set; in sandbox mode the sandbox lives inside the running bridge, so resync through it with --url');
  const unlock = lockDataDir(config.DATA_DIR);
  try {
    const engine = await startEngine({
      dataDir: config.DATA_DIR,
      client: new LoyaltyClient({
        baseUrl: config.LOYALTY_BASE_URL,
        apiKey: config.LOYALTY_API_KEY ?? '',
        brandId: config.LOYALTY_BRAND_ID ?? '',
        timeoutMs: config.LOYALTY_TIMEOUT_MS,
        maxRetries: config.LOYALTY_MAX_RETRIES,
        rateLimitPerMinute: config.LOYALTY_RATE_LIMIT_PER_MINUTE,
      }),
      policy: policyFromConfig(config),
      earnActivityId: config.LOYALTY_EARN_ACTIVITY_ID,
      logger,
    });
    const progress = progressReporter();
    const result = await resync(source.fetchOrders({ since, ...(until ? { until } : {}) }), engine, (current) => progress.update(current));
    progress.stop();
    await engine.drain();
    await engine.stop();
    return summarise(result);
  } finally {
    unlock();
  }
}

function stopOnSignal(starting: Promise<Stoppable>, logger: Logger): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    starting
      .then((running) => running.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'could not stop cleanly');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS');
    const known = usage || error instanceof AdminClientError;
    process.stderr.write(`loyalty-bridge: ${(error as Error).message ?? error}\n${usage ? `\n${USAGE}\n` : ''}`);
    if (!known && process.env.LOG_LEVEL === 'debug') process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
