// The whole bridge, started in-process as `npm start` would start it, in
// sandbox mode on a port the OS picks and a fresh DATA_DIR.
import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { startBridge, type RunningBridge } from '../../src/main.ts';
import { tempDataDir } from './engine.ts';

export async function startTestBridge(env: Record<string, string> = {}, logger: Logger = createLogger({ level: 'silent' })): Promise<RunningBridge> {
  const loaded = loadConfig({
    env: { PORT: '0', HOST: '127.0.0.1', DATA_DIR: tempDataDir(), LOG_LEVEL: 'silent', DEMO_STORE: 'off', SANDBOX_RATE_LIMIT_PER_MINUTE: '100000', LOYALTY_RATE_LIMIT_PER_MINUTE: '100000', ...env },
  });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return startBridge(loaded.config, logger);
}
