// A bridge for a whole test file that reaches nothing off this machine. Its own file: importing nock patches
// Node's http for the whole process, which a test of real TLS (outbound.test.ts imports bridge.ts) must not get.
import nock from 'nock';
import { afterAll, beforeAll } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from './bridge.ts';

/**
 * A bridge for a whole test file, reaching nothing off this machine (nock): started, then given what `prepare`
 * sends it, before the file's tests; stopped after them.
 */
export function offlineBridge(
  env: Record<string, string>,
  prepare: (bridge: RunningBridge) => Promise<void> = async () => {},
): { bridge: RunningBridge } {
  const world = {} as { bridge: RunningBridge };
  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    world.bridge = await startTestBridge(env);
    await prepare(world.bridge);
  });
  afterAll(async () => {
    await world.bridge?.stop();
    nock.cleanAll();
    nock.enableNetConnect();
  });
  return world;
}
