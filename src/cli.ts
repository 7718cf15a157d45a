// loyalty-bridge <command>: the entry point for people and for npm scripts.
// Exit codes: 0 ok, 1 failure (bad configuration included), 2 usage.
import { loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { startBridge, startSandboxServer } from './main.ts';

const USAGE = `Usage: loyalty-bridge <command>

Commands:
  start     run the bridge (in sandbox mode when LOYALTY_BASE_URL is unset)
  sandbox   run only the loyalty sandbox, on SANDBOX_PORT (default 4010)
  help      show this text

Configuration: config/default.json, then config/local.json, then environment
variables of the same names. See README.md.`;

type Stoppable = { stop(): Promise<void> };

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command !== 'start' && command !== 'sandbox') {
    process.stderr.write(`loyalty-bridge: unknown command "${command}"\n\n${USAGE}\n`);
    return 2;
  }
  if (rest.length > 0) {
    process.stderr.write(`loyalty-bridge ${command}: takes no arguments (got ${rest.join(' ')})\n`);
    return 2;
  }

  const loaded = loadConfig();
  if (!loaded.ok) {
    process.stderr.write(`loyalty-bridge: the configuration is invalid, nothing was started:\n${loaded.errors.map((line) => `  ${line}`).join('\n')}\n`);
    return 1;
  }
  const config: Config = loaded.config;
  const logger = createLogger({ level: config.LOG_LEVEL });
  // Handlers first: a signal that arrives while starting still stops cleanly.
  const started = command === 'start' ? startBridge(config, logger) : startSandboxServer(config, logger);
  stopOnSignal(started, logger);
  await started;
  return -1; // keep running
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
    process.stderr.write(`loyalty-bridge: ${(error as Error).message ?? error}\n`);
    process.exitCode = 1;
  },
);
