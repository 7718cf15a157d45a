// A ledger file torn or emptied by a crash or a full disk is found at start:
// the bridge refuses to run on it, says which file and where the last good
// copy is, and never starts empty.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerDamagedError } from '../../src/core/store/ledger-store.ts';
import { startTestEngine, tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox({ rateLimit: 100_000 });
});
afterAll(() => sandbox.close());

async function ledgerWithAnOrder(): Promise<string> {
  const dataDir = tempDataDir();
  const first = await startTestEngine(sandbox, { dataDir });
  await first.accept('d-1', [orderEvent({ orderId: '4040', facts: ['paid'] })]);
  await first.drain();
  await first.stop();
  // A good start backs the ledger up as it loaded.
  const second = await startTestEngine(sandbox, { dataDir });
  await second.stop();
  return dataDir;
}

describe.each([
  ['torn', (text: string) => text.slice(0, Math.floor(text.length / 2))],
  ['emptied', () => ''],
  ['overwritten with something else', () => '{"something": "else"}'],
])('a partition file %s', (_name, damage) => {
  it('stops start-up with the file named and the last good copy pointed to', async () => {
    const dataDir = await ledgerWithAnOrder();
    const partition = readdirSync(join(dataDir, 'orders')).find((name) => name.startsWith('active-'))!;
    const path = join(dataDir, 'orders', partition);
    writeFileSync(path, damage(readFileSync(path, 'utf8')));

    const error = await startTestEngine(sandbox, { dataDir }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LedgerDamagedError);
    expect((error as Error).message).toContain(path);
    const backup = join(dataDir, 'backup', 'orders', partition);
    expect((error as Error).message).toContain(backup);
    // The last good copy holds the order.
    expect(Object.keys((JSON.parse(readFileSync(backup, 'utf8')) as { orders: object }).orders)).toContain(
      'testshop:shop-1:4040',
    );
  });
});

it('drops an inbox file cut short, which was never acknowledged, and starts', async () => {
  const dataDir = await ledgerWithAnOrder();
  writeFileSync(join(dataDir, 'inbox', '000000999999.json'), '{"entries":[{"key":"half');
  const engine = await startTestEngine(sandbox, { dataDir });
  expect(engine.openReport.tornInboxFiles).toBe(1);
  expect(await engine.store.getOrder('testshop:shop-1:4040')).toBeDefined();
  await engine.stop();
});
