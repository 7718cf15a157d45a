// Until an engine has nothing due and no retry waiting: what its worker or intake set to be retried within the next
// 110 ms (their retries are 20–100 ms in the tests' engines, helpers/engine.ts) is waited for until it is due, and
// done. A fixed 110-ms pause was half the reward model's time: most steps leave no retry.
import type { Engine } from '../../src/core/engine.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';

const RETRIES_WITHIN_MS = 110;

export async function settle(
  engine: Pick<Engine, 'drain'>,
  ledger: Pick<LedgerStore, 'nextDueAt' | 'nextInboxAt'>,
): Promise<void> {
  await engine.drain();
  const until = Date.now() + RETRIES_WITHIN_MS;
  for (;;) {
    const [due, inbox] = await Promise.all([ledger.nextDueAt(), ledger.nextInboxAt()]);
    const next = Math.min(due ?? Infinity, inbox ?? Infinity);
    if (next > until) return;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now()) + 1));
    await engine.drain();
  }
}
