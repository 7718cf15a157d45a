// The words of the operator's answers, from where the routes' layer keeps them (problems.ts, order-words-view.ts,
// state-chart.ts, activity-words.ts), handed to the operator's service (services/operator.ts) by the composition
// root: the service sits below http and never imports it.
import type { AccountRegistry } from '../accounts/registry.ts';
import type { Engine } from '../core/engine.ts';
import type { Platforms } from '../core/platforms.ts';
import type { OperatorWords } from '../services/operator.ts';
import { activityWords } from './activity-words.ts';
import { withDetailWords, withWords, wordsOfRecord, type WordsParts } from '../core/order-words-view.ts';
import { letterOrderName } from '../core/letter-names.ts';
import { operatorProblems } from './problems.ts';
import { stateChart } from './state-chart.ts';

export interface AdminWordsParts {
  engine: Engine;
  platforms: Platforms;
  accounts: AccountRegistry;
}

export function operatorWords({ engine, platforms, accounts }: AdminWordsParts): OperatorWords {
  const { store } = engine;
  // How an order's words are looked up for the operator: the store, the accounts, and each platform's own parts.
  const wordsParts: WordsParts = {
    store,
    accounts: engine.accounts,
    partsOf: (platform) => platforms.modules.find(({ module }) => module.name === platform)?.parts,
    audience: 'operator',
  };
  return {
    problems: (loads) =>
      operatorProblems({
        store,
        runtimes: () => engine.accounts.all(),
        records: () => accounts.list(),
        accountOf: (shop) => accounts.accountOf(shop),
        loads,
        spentLongMs: engine.worker.budgetSpentLongMs,
        now: new Date(),
      }),
    letterOrderName: (letter) => letterOrderName(store, letter),
    ordersInWords: (orders) => withWords(wordsParts, orders),
    orderDetail: (order) => withDetailWords(order),
    orderWords: (order) => wordsOfRecord(wordsParts, order),
    stateChart: (byState) => stateChart(byState, store),
    activityWords,
  };
}
