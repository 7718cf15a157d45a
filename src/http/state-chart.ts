// The dashboard's chart of orders by state, each bar with its words and tone from here (order-words.ts), as the
// orders' badges have theirs. An order whose call the service refused for good (held by a dead letter) is counted
// as held, in red under what happened ("no points given yet"), not under the state it plans ("earned and
// approved", green), which it has not reached.
import type { TargetState } from '../core/lifecycle.ts';
import { orderLabel, orderTone, STATE_LABELS, type OrderTone } from '../core/order-words.ts';
import type { OrderWorkRole, DeadLetterRole } from '../core/store/ledger-store.ts';

export interface StateBar {
  /** The state's code, or 'held' for orders a refused call holds. */
  state: string;
  label: string;
  tone: OrderTone;
  count: number;
}

const lowerFirst = (text: string) => `${text.charAt(0).toLowerCase()}${text.slice(1)}`;

/** The bars of the states chart: `byState` (every order by its planned state) with the held ones counted apart. */
export async function stateChart(
  byState: Readonly<Record<string, number>>,
  store: Pick<OrderWorkRole & DeadLetterRole, 'listDeadLetters' | 'getOrder'>,
): Promise<StateBar[]> {
  const counts = { ...byState };
  const held = new Map<string, number>();
  // The orders dead letters hold a call of: few, and each one read once, however many of its calls are held.
  const keys = new Set(
    (await store.listDeadLetters()).flatMap(({ kind, orderKey }) => (kind === 'call' && orderKey ? [orderKey] : [])),
  );
  for (const key of keys) {
    const record = await store.getOrder(key);
    const calls = record ? Object.keys(record.work.held) : [];
    if (!record || calls.length === 0) continue;
    const target = record.target ?? { state: 'new' };
    if (!counts[target.state]) continue;
    counts[target.state]! -= 1;
    const label = lowerFirst(orderLabel(target, calls));
    held.set(label, (held.get(label) ?? 0) + 1);
  }
  return [
    ...Object.entries(counts).map(([state, count]) => ({
      state,
      label: STATE_LABELS[state as TargetState] ?? state,
      tone: orderTone({ state }, [], false),
      count,
    })),
    ...[...held].map(([label, count]) => ({ state: 'held', label, tone: 'bad' as const, count })),
  ].filter(({ count }) => count > 0);
}
