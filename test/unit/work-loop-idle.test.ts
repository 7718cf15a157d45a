// WorkLoop.idle() asked in the moment between a pass finding nothing due and
// that pass being marked finished used to wait for ever: the pass had already
// told its waiters, and nothing told the new one. engine.drain() asks it just
// then on an engine with nothing to do (on lowdb, where nothing polls).
import { describe, expect, it } from 'vitest';
import { sandboxWithEngines } from '../helpers/engine.ts';

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise.then(() => 'done' as const),
    new Promise<'timed out'>((resolve) => setTimeout(() => resolve('timed out'), ms)),
  ]);

describe('an engine with nothing to do', () => {
  const { start } = sandboxWithEngines();

  it('drains at once, every time', async () => {
    for (let i = 0; i < 20; i++) {
      const engine = await start();
      expect(await within(engine.drain(), 2_000)).toBe('done');
    }
  });
});
