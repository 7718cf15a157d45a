// loyalty-bridge <command>: the entry point for people and for npm scripts.
// Exit codes: 0 ok, 1 failure (bad configuration included), 2 usage.
import { parseArgs } from 'node:util';
import { registerShopifyWebhooks } from '../adapters/shopify/register.ts';
import { loadConfig, type Config } from './config.ts';
import { startEngine } from './core/engine.ts';
import { policyFromConfig } from './core/policy-from-config.ts';
import { resync } from './core/resync.ts';
import { lockDataDir } from './core/store/data-dir-lock.ts';
import { LoyaltyClient } from './loyalty/client.ts';
import { createLogger, type Logger } from './logger.ts';
import { startBridge, startSandboxServer } from './main.ts';
import { orderSources, PLATFORMS, shopifyAdminApi, type Platform } from './platforms.ts';

const USAGE = `Usage: loyalty-bridge <command> [options]

Commands:
  start                                  run the bridge (in sandbox mode when LOYALTY_BASE_URL is unset)
  sandbox                                run only the loyalty sandbox, on SANDBOX_PORT (default 4010)
  register --platform shopify            create the webhook subscriptions the bridge needs (never deletes any)
  resync --platform shopify|woocommerce|bigcommerce --since DATE [--until DATE]
                                         fetch orders updated in the window and bring their points up to date;
                                         works on DATA_DIR, so stop the bridge first
  help                                   show this text

Configuration: config/default.json, then config/local.json, then environment
variables of the same names. See README.md.`;

type Stoppable = { stop(): Promise<void> };

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (!['start', 'sandbox', 'register', 'resync'].includes(command)) throw new UsageError(`unknown command "${command}"`);
  const { values } = parseArgs({
    args: rest,
    options: { platform: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' } },
    allowPositionals: false,
    strict: true,
  });

  const loaded = loadConfig();
  if (!loaded.ok) {
    process.stderr.write(`loyalty-bridge: the configuration is invalid, nothing was started:\n${loaded.errors.map((line) => `  ${line}`).join('\n')}\n`);
    return 1;
  }
  const config: Config = loaded.config;
  const logger = createLogger({ level: config.LOG_LEVEL });

  switch (command) {
    case 'start':
    case 'sandbox': {
      // Handlers first: a signal that arrives while starting still stops cleanly.
      const started = command === 'start' ? startBridge(config, logger) : startSandboxServer(config, logger);
      stopOnSignal(started, logger);
      await started;
      return -1; // keep running
    }
    case 'register': {
      const platform = requirePlatform(values.platform);
      if (platform !== 'shopify') {
        process.stderr.write(`loyalty-bridge register: ${platform} webhooks are created in the store's own settings; README.md says how\n`);
        return 1;
      }
      return register(config, platform);
    }
    case 'resync':
      return runResync(config, logger, requirePlatform(values.platform), values.since, values.until);
  }
  return 2;
}

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

async function register(config: Config, platform: Platform): Promise<number> {
  const admin = shopifyAdminApi(config);
  if (!admin || !config.SHOPIFY_APP_URL) {
    process.stderr.write(`loyalty-bridge register --platform ${platform}: set SHOPIFY_SHOP, SHOPIFY_ADMIN_TOKEN and SHOPIFY_APP_URL\n`);
    return 1;
  }
  const result = await registerShopifyWebhooks(admin, config.SHOPIFY_APP_URL);
  process.stdout.write(`Webhooks for ${admin.shop} go to ${result.callbackUrl}\n`);
  for (const topic of result.created) process.stdout.write(`  created  ${topic}\n`);
  for (const topic of result.alreadyThere) process.stdout.write(`  present  ${topic}\n`);
  return 0;
}

const API_SETTINGS: Record<Platform, string> = {
  shopify: 'SHOPIFY_SHOP and SHOPIFY_ADMIN_TOKEN',
  woocommerce: 'WOOCOMMERCE_URL, WOOCOMMERCE_CONSUMER_KEY and WOOCOMMERCE_CONSUMER_SECRET',
  bigcommerce: 'BIGCOMMERCE_STORE_HASH and BIGCOMMERCE_ACCESS_TOKEN',
};

async function runResync(config: Config, logger: Logger, platform: Platform, sinceText: string | undefined, untilText: string | undefined): Promise<number> {
  const since = parseDate('since', sinceText);
  if (!since) throw new UsageError('--since is required');
  const until = parseDate('until', untilText);
  const source = orderSources(config).find((candidate) => candidate.platform === platform);
  if (!source) {
    process.stderr.write(`loyalty-bridge resync --platform ${platform}: set ${API_SETTINGS[platform]}\n`);
    return 1;
  }
  if (!config.LOYALTY_BASE_URL) {
    process.stderr.write('loyalty-bridge resync: LOYALTY_BASE_URL is not set; in sandbox mode the sandbox lives inside the running bridge, so resync through it instead\n');
    return 1;
  }
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
    const window = { since, ...(until ? { until } : {}) };
    const result = await resync(source.fetchOrders(window), engine, (progress) => {
      if (progress.fetched % 100 === 0) process.stdout.write(`fetched ${progress.fetched}, changed ${progress.changed}, failed ${progress.failed}\n`);
    });
    await engine.drain();
    await engine.stop();
    process.stdout.write(`resync done: fetched ${result.fetched}, changed ${result.changed}, unchanged ${result.unchanged}, failed ${result.failed}\n`);
    for (const error of result.errors) process.stderr.write(`  ${error}\n`);
    return result.failed > 0 ? 1 : 0;
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
    process.stderr.write(`loyalty-bridge: ${(error as Error).message ?? error}\n${usage ? `\n${USAGE}\n` : ''}`);
    process.exitCode = usage ? 2 : 1;
  },
);
