// What became of a demo order in the bridge, in a few words for its one line in the log: what the shop said of
// it, and its points ("paid, fulfilled: earned 100 points, pending"), or why it earns none. Read from the
// ledger once the bridge has done what it can with it.
import type { Accounts } from '../core/accounts.ts';
import { orderKey } from '../core/order-event.ts';
import { FACT_WORDS, reasonWords } from '../core/order-words.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import { waitAtMost } from '../core/wait-at-most.ts';
import { pointsOf, pointsSourceOf } from '../core/order-points-view.ts';
import type { SentOrder } from './demo-store.ts';

export interface OutcomeParts {
  store: Pick<LedgerStore, 'getOrder'>;
  accounts: Pick<Accounts, 'runtime'>;
  /** Until the bridge has done what it can now (folded the deliveries, made the calls). */
  settled(): Promise<void>;
}

/** Long enough for a loyalty call on a slow machine; a line that waits longer says what is known. */
const SETTLE_MS = 15_000;

/** "75.00 USD" whether the store sent 75 or 75.0000: the terminal shows money as a person writes it. */
function moneyText(amount: string, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'code' })
      .format(Number(amount))
      .replace(/^([A-Z]{3})\s*(.*)$/, '$2 $1');
  } catch {
    return `${amount} ${currency}`;
  }
}

export const demoOutcome =
  ({ store, accounts, settled }: OutcomeParts) =>
  async ({ player, id }: SentOrder): Promise<string> => {
    await waitAtMost(settled(), SETTLE_MS);
    const record = await store.getOrder(
      orderKey({ platform: player.platform, shop: player.shop, orderId: String(id) }),
    );
    if (!record) return 'not in the ledger yet';
    const { amount, currency } = record.snapshot.total;
    const facts = `${moneyText(amount, currency)}, ${record.facts.map((fact) => FACT_WORDS[fact]).join(', ') || 'placed'}`;
    const reason = record.target?.reason;
    // Why it earns nothing says it all: "this customer gave no phone number, …, so the order earns no points."
    if (record.target?.state === 'skipped' && reason) {
      const { says } = reasonWords(reason, { audience: 'operator' });
      return `${facts}: ${says.charAt(0).toLowerCase()}${says.slice(1)}`;
    }
    const [points] = await pointsOf([pointsSourceOf(record)], accounts, 'operator');
    return `${facts}: ${points?.text ?? 'no points'}`;
  };
