// The core wired to a real sandbox over HTTP, on a temporary DATA_DIR.
import { mkdtempSync } from 'node:fs';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine, startEngine, type Engine, type EngineOptions } from '../../src/core/engine.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { DEFAULT_POLICY, type Policy } from '../../src/core/policy.ts';
import { LoyaltyClient } from '../../src/loyalty/client.ts';
import { createLogger } from '../../src/logger.ts';
import type { SandboxOptions } from '../../src/sandbox/app.ts';
import { SANDBOX_CREDENTIALS, startTestSandbox, type TestSandbox } from './sandbox-server.ts';

export const tempDataDir = () => mkdtempSync(join(tmpdir(), 'lb-data-'));

export function clientFor(
  sandbox: TestSandbox,
  overrides: Partial<ConstructorParameters<typeof LoyaltyClient>[0]> = {},
) {
  return new LoyaltyClient({
    baseUrl: sandbox.url,
    ...SANDBOX_CREDENTIALS,
    rateLimitPerMinute: 100_000,
    maxRetries: 0,
    // Far above what a call to the sandbox takes, even on a loaded machine. At 2 s, a redeem in engine.test.ts
    // went missing once on CI (2 cores, the suite running): a redeem that times out is dead-lettered as in doubt,
    // never sent again, and a sandbox that hangs it 2.5 s reproduces the failure exactly. Tests of timeouts set theirs.
    timeoutMs: 10_000,
    ...overrides,
  });
}

export interface TestEngineOptions extends Partial<Omit<EngineOptions, 'policy'>> {
  policy?: Partial<Policy>;
  /** Without a store: lowdb files here (a new temporary directory by default). */
  dataDir?: string;
}

/** The lowdb ledger an engine of these options is given when it names no store. */
export function lowdbFor(options: { dataDir?: string; dedupeWindowMs?: number; now?: () => Date } = {}): LowdbStore {
  return new LowdbStore({
    dataDir: options.dataDir ?? tempDataDir(),
    ...(options.dedupeWindowMs !== undefined ? { dedupeWindowMs: options.dedupeWindowMs } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
}

export function startTestEngine(sandbox: TestSandbox, options: TestEngineOptions = {}): Promise<Engine> {
  return startEngine(testEngineOptions(sandbox, options));
}

/** Opened, not started: nothing consumes what is accepted. */
export function openTestEngine(sandbox: TestSandbox, options: TestEngineOptions = {}): Promise<Engine> {
  return openEngine(testEngineOptions(sandbox, options));
}

function testEngineOptions(sandbox: TestSandbox, options: TestEngineOptions): EngineOptions {
  const { policy, dataDir, ...rest } = options;
  return {
    store: rest.store ?? lowdbFor({ ...options, ...(dataDir ? { dataDir } : {}) }),
    client: clientFor(sandbox),
    policy: { ...DEFAULT_POLICY, ...policy },
    earnActivityId: '1',
    logger: createLogger({ level: 'silent' }),
    ...rest,
    worker: { retryMinDelayMs: 20, retryMaxDelayMs: 100, ...rest.worker },
    intake: { retryMinDelayMs: 20, retryMaxDelayMs: 100, ...rest.intake },
  };
}

/**
 * One sandbox for a test file, and the engines its tests start: each engine
 * stopped, and the sandbox's faults cleared, after every test. Call it at
 * the top of the file.
 */
export function sandboxWithEngines(options: Partial<SandboxOptions> = {}) {
  let sandbox: TestSandbox | undefined;
  let engines: Engine[] = [];
  beforeAll(async () => {
    sandbox = await startTestSandbox({ rateLimit: 100_000, ...options });
  });
  afterAll(() => sandbox?.close());
  afterEach(async () => {
    await Promise.all(engines.map((engine) => engine.stop()));
    engines = [];
    sandbox?.faults.configure({});
  });
  const started = (): TestSandbox => {
    if (!sandbox) throw new Error('the sandbox starts in beforeAll: use it inside a test');
    return sandbox;
  };
  return {
    get sandbox() {
      return started();
    },
    async start(engineOptions: TestEngineOptions = {}): Promise<Engine> {
      const engine = await startTestEngine(started(), engineOptions);
      engines.push(engine);
      return engine;
    },
    /** Opened, not started. */
    async open(engineOptions: TestEngineOptions = {}): Promise<Engine> {
      const engine = await openTestEngine(started(), engineOptions);
      engines.push(engine);
      return engine;
    },
  };
}

/**
 * Waits until `check` passes, for states reached through timers (retries, pending periods). The deadline only
 * bounds a failure (a pass returns at once), so it is generous: a loaded two-core machine running child processes,
 * PostgreSQL and browsers beside this test can take seconds over what an idle one takes.
 */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
