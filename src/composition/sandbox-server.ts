// The loyalty sandbox as the configuration asks for it: inside the bridge in sandbox mode, or on its own port
// (SANDBOX_PORT) for developing against it from elsewhere.
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import { listen, type Listening } from '../http/listen.ts';
import type { Logger } from '../logger.ts';
import { createSandbox, type Sandbox } from '../sandbox/app.ts';
import { arePublic, publicBeyondLoopback, type SandboxCredentials } from '../sandbox/credentials.ts';
import { tellThePersonAtTheTerminal } from '../terminal-notice.ts';

/** The sandbox as configured, taking these credentials, its state and controls opened by the admin token too. */
export function sandboxFromConfig(
  config: Config,
  credentials: SandboxCredentials,
  adminToken: string | undefined,
  loopbackHostOnly = false,
): Sandbox {
  return createSandbox({
    ...credentials,
    adminToken,
    loopbackHostOnly,
    activities: config.SANDBOX_ACTIVITIES,
    rateLimit: config.SANDBOX_RATE_LIMIT_PER_MINUTE,
    replyStyle: config.SANDBOX_REPLY_STYLE,
    faults: {
      failureRate: config.SANDBOX_FAULT_FAILURE_RATE,
      failureStatus: config.SANDBOX_FAULT_FAILURE_STATUS,
      latencyMs: config.SANDBOX_FAULT_LATENCY_MS,
    },
  });
}

export interface RunningSandbox {
  http: Listening;
  sandbox: Sandbox;
  stop(): Promise<void>;
}

/**
 * The sandbox on its own port (SANDBOX_PORT), for developing against it from
 * elsewhere. With the public credentials it listens on loopback only, and its
 * state and controls take a token made for the run, printed for the person
 * at this terminal (never logged).
 */
export async function startSandboxServer(config: Config, logger: Logger): Promise<RunningSandbox> {
  const credentials = { apiKey: config.SANDBOX_API_KEY, brandId: config.SANDBOX_BRAND_ID };
  const refusal = publicBeyondLoopback(credentials, config.HOST);
  if (refusal) throw new Error(refusal);
  const runToken = !config.ADMIN_TOKEN && arePublic(credentials) ? randomBytes(24).toString('base64url') : undefined;
  const sandbox = sandboxFromConfig(config, credentials, config.ADMIN_TOKEN ?? runToken, arePublic(credentials));
  const http = await listen(sandbox.app, config.SANDBOX_PORT, config.HOST);
  logger.info({ port: http.port, url: http.localUrl }, `loyalty sandbox listening on ${http.localUrl}`);
  if (runToken) {
    tellThePersonAtTheTerminal({
      text: `The sandbox's state and controls (${http.localUrl}/_sandbox/state, /_sandbox/reset, /_sandbox/faults) take\n  Authorization: Bearer ${runToken}\n(for this run only; set ADMIN_TOKEN for one that lasts)`,
      fileName: 'sandbox-token.txt',
      dataDir: config.DATA_DIR,
      logger,
    });
  }
  return { http, sandbox, stop: () => http.close() };
}
