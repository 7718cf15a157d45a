// The loyalty service's budgets where the dashboard sums up its calls: one line for each account in use (a shop
// earns on it, or it made calls this minute), "2 of 489 calls this minute" with its bar. The demo's shops earn
// on trial accounts of their own: the default account's budget alone read 0 while they earned.
/* global budgetNode */
/* exported keepBudgets, budgetsNode */

/** The accounts as GET /accounts last listed them; null until then. */
let listedAccounts = null;

/** The accounts in use whose budget is known, the busiest first. */
function accountsInUse(accounts) {
  return accounts
    .filter(({ health }) => health.callsLastMinute !== null && health.limitPerMinute !== null)
    .filter(({ health, shops }) => shops.length > 0 || health.callsLastMinute > 0)
    .sort((a, b) => b.health.callsLastMinute - a.health.callsLastMinute);
}

/** Each account's line in `node`; the limiter's figures from status while no account is known to be in use. */
function fillBudgets(node) {
  const used = listedAccounts ? accountsInUse(listedAccounts) : [];
  if (used.length === 0) {
    const { calls, limit, windowMs } = node.budgetFallback;
    node.replaceChildren(budgetNode(calls, limit, windowMs));
    return;
  }
  node.replaceChildren(
    ...used.map((account) => {
      const line = document.createElement('span');
      line.className = 'budget-line';
      line.dataset.account = account.id;
      const name = document.createElement('span');
      name.className = 'budget-name';
      name.textContent = `${account.name}: `;
      line.append(name, budgetNode(account.health.callsLastMinute, account.health.limitPerMinute));
      return line;
    }),
  );
}

/** A place for the budgets, drawn now and again whenever the accounts are listed. */
function budgetsNode(calls, limit, windowMs) {
  const node = document.createElement('span');
  node.className = 'budgets';
  node.budgetFallback = { calls, limit, windowMs };
  fillBudgets(node);
  return node;
}

/** Keeps the accounts' figures and draws every budget shown again with them. */
function keepBudgets(accounts) {
  listedAccounts = accounts;
  for (const node of document.querySelectorAll('.budgets')) fillBudgets(node);
}
