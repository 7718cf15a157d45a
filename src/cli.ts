// loyalty-bridge <command>: the entry point for people and for npm scripts.
// Commands work on the local ledger (DATA_DIR, or DATABASE_URL), or on a
// running bridge through its admin API with --url (and --token, or ADMIN_TOKEN).
// Exit codes: 0 ok, 1 failure (bad configuration included), 2 usage.
import { parseArgs } from 'node:util';
import { accounts, shops } from './cli/accounts.ts';
import { adminClient, AdminClientError } from './cli/admin-client.ts';
import { parseDate, requirePlatform, UsageError } from './cli/common.ts';
import { connect } from './cli/connect.ts';
import { customer } from './cli/customer.ts';
import { deadLetters } from './cli/dead-letters.ts';
import { migrate } from './cli/migrate.ts';
import { register } from './cli/register.ts';
import { localResync, remoteResync } from './cli/resync.ts';
import { status } from './cli/status.ts';
import { loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import type { AnyPlatformModule } from './core/platform-module.ts';
import { PLATFORMS, SHIPPED_MODULES } from './platform-registry.ts';
import { startBridge } from './composition/main.ts';
import { startSandboxServer } from './composition/sandbox-server.ts';

const shipped = SHIPPED_MODULES as readonly AnyPlatformModule[];
/** The platforms whose subscriptions register puts right: all but those that keep them up by themselves. */
const REGISTERED = shipped
  .filter(({ needs }) => !(needs.subscriptions && typeof needs.subscriptions === 'object'))
  .map(({ name }) => name);
const names = (list: readonly string[]) => `${list.slice(0, -1).join(', ')} or ${list.at(-1)}`;

const USAGE = `Usage: loyalty-bridge <command> [options]

Commands:
  start                                  run the bridge (in sandbox mode when LOYALTY_BASE_URL is unset)
  sandbox                                run only the loyalty sandbox, on SANDBOX_PORT (default 4010)
  status                                 orders by state and platform, skipped by reason, dead letters, alarms
  dead-letters list                      what needs a person
  dead-letters retry <id>|--all          send a failed call again / read a kept delivery again
  dead-letters discard <id>              give up on one
  resync --platform <p> [--shop S] --since DATE [--until DATE]
                                         fetch orders updated in the window and bring their points up to date
  register --platform ${REGISTERED.join('|')} [--shop S]
                                         put the webhook subscriptions (hooks) right; never touches another app's
  connect --platform <p> --store ADDRESS
                                         connect a store by its address: prints the link to approve in its admin,
                                         then the bridge makes its webhooks (with --url, through a running bridge)
  customer export|erase --email E | --phone P [--platform p --shop S]
                                         what the bridge holds about a customer, as JSON / erase it
  accounts list | show <id>              the loyalty accounts (the default one is the environment's), with
                                         their shops and health; show adds the settings in force
  accounts create --name N --base-url URL --api-key KEY|- --brand-id B [--rate-limit N]
                                         a merchant's account at the loyalty service, its credentials checked
                                         (--api-key - reads the key from stdin)
  accounts create --sandbox [--name N]   an account on the bridge's own sandbox (sandbox mode), to try it
  accounts set <id> KEY=VALUE...         name, baseUrl, apiKey, brandId, rateLimitPerMinute, or a program
                                         setting by its configuration name (EARN_TRIGGER=placed; KEY= for its default)
  accounts delete <id>                   refused while shops are linked to it or its orders have calls to make
  shops list                             every shop the bridge knows and the account it earns on
  shops link <platform> <shop> <account|none>
                                         move a shop to an account (none: the link goes, and the environment decides)
  migrate --to postgres://...            copy the lowdb ledger into PostgreSQL (the bridge stopped)
  help                                   show this text

Options:
  --url URL      work through a running bridge's admin API instead of the ledger itself
  --token TOKEN  the admin token for --url (default: ADMIN_TOKEN)
  --platform     ${names(PLATFORMS)}

Without --url, commands that change the ledger need the bridge stopped (DATA_DIR
is locked while it runs). Configuration: config/default.json, then
config/local.json, then environment variables of the same names. See docs/configuration.md.`;

type Stoppable = { stop(): Promise<void> };

const COMMANDS = [
  'start',
  'sandbox',
  'status',
  'dead-letters',
  'resync',
  'register',
  'connect',
  'customer',
  'accounts',
  'shops',
  'migrate',
];

/** Every command's options, each command reading those it takes; positionals only where a command has some. */
function parseOptions(command: string, rest: string[]) {
  return parseArgs({
    args: rest,
    options: {
      platform: { type: 'string' },
      shop: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
      all: { type: 'boolean' },
      email: { type: 'string' },
      phone: { type: 'string' },
      to: { type: 'string' },
      store: { type: 'string' },
      name: { type: 'string' },
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      'brand-id': { type: 'string' },
      'rate-limit': { type: 'string' },
      sandbox: { type: 'boolean' },
    },
    allowPositionals: ['dead-letters', 'customer', 'accounts', 'shops'].includes(command),
    strict: true,
  });
}

async function main(argv: string[]): Promise<number> {
  // Everything this process writes (the ledger: customers' contact details, access tokens) is for its owner alone.
  process.umask(0o077);
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command "${command}"`);
  const { values, positionals } = parseOptions(command, rest);

  const loaded = loadConfig();
  if (!loaded.ok) {
    process.stderr.write(
      `loyalty-bridge: the configuration is invalid, nothing was started:\n${loaded.errors.map((line) => `  ${line}`).join('\n')}\n`,
    );
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
      return status(config, logger, remote);
    case 'dead-letters':
      return deadLetters(config, logger, remote, positionals, values.all === true);
    case 'register':
      return register(config, logger, requirePlatform(values.platform), values.shop);
    case 'connect':
      return connect(config, logger, remote, requirePlatform(values.platform), values.store);
    case 'customer':
      return customer(config, logger, remote, positionals[0], {
        email: values.email,
        phone: values.phone,
        platform: values.platform,
        shop: values.shop,
      });
    case 'accounts':
      return accounts(remote, positionals, {
        name: values.name,
        baseUrl: values['base-url'],
        apiKey: values['api-key'],
        brandId: values['brand-id'],
        rateLimit: values['rate-limit'],
        sandbox: values.sandbox === true,
      });
    case 'shops':
      return shops(remote, positionals);
    case 'migrate':
      return migrate(config, logger, values.to);
    case 'resync': {
      const platform = requirePlatform(values.platform);
      const since = parseDate('since', values.since);
      if (!since) throw new UsageError('--since is required');
      const args = { platform, shop: values.shop, since, until: parseDate('until', values.until) };
      return remote ? remoteResync(remote, args) : localResync(config, logger, args);
    }
  }
  return 2;
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
    // A port in use is a newcomer's first stop: say what to do, not only what the system said.
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    const fix = inUse
      ? ': another program listens on that port; stop it, or choose another, as in PORT=3001 npm start'
      : '';
    process.stderr.write(`loyalty-bridge: ${(error as Error).message ?? error}${fix}\n${usage ? `\n${USAGE}\n` : ''}`);
    if (!known && process.env.LOG_LEVEL === 'debug') process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
