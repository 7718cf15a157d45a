// A real sandbox on 127.0.0.1 with a port the OS picks, for tests that talk HTTP; or, for a test of outages, one
// of its own below the OS's range, so that no port the OS hands out takes it while it is down.
import { listen, type Listening } from '../../src/http/listen.ts';
import { createSandbox, type SandboxOptions, type Sandbox } from '../../src/sandbox/app.ts';
import type { SandboxCredentials } from '../../src/sandbox/credentials.ts';

export const SANDBOX_CREDENTIALS = { apiKey: 'test-sandbox-key', brandId: 'test-brand' } as const;

export interface TestSandbox extends Sandbox {
  url: string;
  close(): Promise<void>;
  /**
   * Stops listening for `ms` (callers get connection refused), then listens again on the same port, state kept.
   * Only a sandbox started with `ports: 'kept'`.
   */
  outage(ms: number): Promise<void>;
}

/**
 * With `state`, it starts holding what a saved sandbox held (SandboxStore.snapshot(), as test/upgrade keeps one).
 * With `accounts`, it serves those accounts too, beside the first (SANDBOX_CREDENTIALS); addAccount() adds more.
 */
export async function startTestSandbox(
  options: Partial<SandboxOptions> = {},
  ports: 'os' | 'kept' = 'os',
): Promise<TestSandbox> {
  const sandbox = createSandbox({ ...SANDBOX_CREDENTIALS, ...options });
  let http = ports === 'os' ? await listen(sandbox.app, 0, '127.0.0.1') : await listenBelowOsPorts(sandbox.app);
  const port = http.port;
  return {
    ...sandbox,
    get refusedForRate() {
      return sandbox.refusedForRate;
    },
    get accounts() {
      return sandbox.accounts;
    },
    url: http.localUrl,
    close: () => http.close(),
    async outage(ms) {
      if (ports === 'os') throw new Error('an outage needs a sandbox started with ports: kept');
      const closing = http.close();
      http.server.closeAllConnections();
      await closing;
      await new Promise((resolve) => setTimeout(resolve, ms));
      http = await listen(sandbox.app, port, '127.0.0.1');
    },
  };
}

/**
 * Linux hands out ports from 32768 (ip_local_port_range), to listen(0) and to outgoing connections alike. A port
 * below it, free now, stays free while this sandbox is down: only another test choosing ports this way could take it.
 */
async function listenBelowOsPorts(app: Sandbox['app']): Promise<Listening> {
  for (let attempt = 0; ; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    try {
      return await listen(app, port, '127.0.0.1');
    } catch (error) {
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt === 20) throw error;
    }
  }
}

/** Headers a raw HTTP caller needs to be let in. */
export const authHeaders = (overrides: Record<string, string> = {}) => ({
  'x-api-key': SANDBOX_CREDENTIALS.apiKey,
  'x-brand-id': SANDBOX_CREDENTIALS.brandId,
  'content-type': 'application/json',
  ...overrides,
});

/** Headers a raw HTTP caller of one account needs (an account of `sandbox.accounts`, or its credentials). */
export const accountHeaders = (
  account: { credentials: SandboxCredentials } | SandboxCredentials,
  overrides: Record<string, string> = {},
) => {
  const { apiKey, brandId } = 'credentials' in account ? account.credentials : account;
  return authHeaders({ 'x-api-key': apiKey, 'x-brand-id': brandId, ...overrides });
};

/** A raw POST, as any HTTP client would send it, bypassing our client. */
export async function rawPost(url: string, body: unknown, headers: Record<string, string> = authHeaders()) {
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}
