// The dashboard's accounts panel: each loyalty account with its health and its shops, which account each
// shop earns on (a select moves it), and a form to create one. A key is typed in once and never shown again:
// the admin API answers with its last four characters. Loaded before app.js, whose helpers the functions
// below use once the page runs: nothing at the top level touches them. With fifty accounts and hundreds of shops,
// both lists are filtered and paged (pages.js): five accounts' cards, twenty-five shops a page.
/* global $, api, pointsRows, card, cell, num, counted, budgetNode, localTime, someOf, fillByHandAccounts, keepBudgets, platformLabel, refresh, pagedList */
/* exported loadAccounts */

function credentialsText(account) {
  if (account.readOnly) return 'the environment’s (LOYALTY_API_KEY, LOYALTY_BRAND_ID)';
  if (!account.check) return 'not checked yet';
  const text = {
    connected: 'connected',
    refused: 'refused: the service does not accept this key or brand id',
    unreachable: 'not reached',
  }[account.check.status];
  return `${text ?? account.check.status}${account.check.detail ? `: ${account.check.detail}` : ''} (${localTime(account.check.at)})`;
}

/** A lane's due work in words: how many, and since when the oldest waits. */
function laneText(lane) {
  if (lane.waiting === 0) return 'nothing waiting';
  const since = lane.oldestDueAt ? `, the oldest due since ${localTime(lane.oldestDueAt)}` : '';
  return `${num(lane.due)} due now of ${num(lane.waiting)} waiting${since}`;
}

/** Each activity and its points, as declared (saved as text like 1=100,7=250, or as an object). */
function declaredPoints(declared) {
  const entries =
    typeof declared === 'string' ? declared.split(',').map((pair) => pair.split('=')) : Object.entries(declared ?? {});
  return entries.map(([activity, points]) => [activity.trim(), String(points ?? '').trim()]);
}

/** The points each activity gives, as the account declares them: what every order's number comes from. */
function activityPointsText(account) {
  // The default account's are the configuration's, read from its settings (loadAccounts).
  const entries = declaredPoints(
    account.readOnly ? account.configuredPoints : account.settings?.LOYALTY_ACTIVITY_POINTS,
  );
  const where = account.readOnly
    ? 'the configuration, LOYALTY_ACTIVITY_POINTS'
    : 'the account’s settings, LOYALTY_ACTIVITY_POINTS';
  const listed = entries
    .map(
      ([activity, points]) =>
        `activity ${activity}: ${/^\d+$/.test(points) ? counted(Number(points), 'point') : `${points} points`}`,
    )
    .join(', ');
  if (entries.length === 0) return `none declared: orders show no number of points until they are (${where})`;
  return account.readOnly ? `${listed} (from ${where})` : listed;
}

/** A refused line in words, its configuration name only as a small detail: "Activity 7: … (LOYALTY_…)". */
function refusedLine(line) {
  const item = document.createElement('li');
  const [, key, words] = /^([A-Z][A-Z0-9_]+): (.*)$/s.exec(line) ?? ['', '', line];
  item.textContent = words.charAt(0).toUpperCase() + words.slice(1);
  if (key) {
    const detail = document.createElement('small');
    detail.className = 'muted';
    detail.textContent = ` (${key})`;
    item.append(detail);
  }
  return item;
}

/** What the operator has typed or been refused in an account's points edit, by account: kept over a refresh. */
const pointsDrafts = new Map();

/** The account's points edit: saved with PATCH …/settings, each refused line shown; its orders read the new numbers. */
function pointsEdit(account) {
  const edit = $('#points-edit').content.firstElementChild.cloneNode(true);
  const errors = edit.querySelector('.error');
  const draft = pointsDrafts.get(account.id);
  const rows = pointsRows(edit, draft?.entries ?? declaredPoints(account.settings?.LOYALTY_ACTIVITY_POINTS), () =>
    pointsDrafts.set(account.id, { entries: rows.read(), errors: [] }),
  );
  const showErrors = (lines) => errors.replaceChildren(...lines.map(refusedLine));
  showErrors(draft?.errors ?? []);
  edit.addEventListener('submit', async (event) => {
    event.preventDefault();
    // No row: back to none declared.
    const { status, body } = await api(`/accounts/${encodeURIComponent(account.id)}/settings`, {
      method: 'PATCH',
      body: JSON.stringify({ LOYALTY_ACTIVITY_POINTS: rows.text() || null }),
    });
    if (status !== 200) {
      const lines = body.errors ?? [body.error ?? `not saved (${status})`];
      pointsDrafts.set(account.id, { entries: rows.read(), errors: lines });
      return showErrors(lines);
    }
    pointsDrafts.delete(account.id);
    $('#points-result').textContent =
      `Saved the points each activity gives for ${account.name}: its orders show them now.`;
    document.activeElement?.blur();
    await refresh();
  });
  return edit;
}

function accountCard(account) {
  const { health } = account;
  const paused = account.pausedRules ?? [];
  const trouble = health.paused || paused.length > 0 || (!account.readOnly && account.check?.status !== 'connected');
  const article = card(
    account.name,
    [
      ['Service', `${account.baseUrl}, brand ${account.brandId}`],
      ['Key', account.apiKeyHint],
      ['Credentials', credentialsText(account)],
      ['Points each activity gives', activityPointsText(account)],
      ['Paused', health.paused ? 'yes: the service refuses its credentials, its calls wait' : 'no'],
      ...paused.map((rule) => [
        `Rule off: ${rule.rule}`,
        `${rule.key}: the pattern ${rule.why}. Until it is fixed in the account’s settings, this rule does nothing.`,
      ]),
      [
        'Calls',
        health.callsLastMinute === null || health.limitPerMinute === null
          ? 'not known'
          : budgetNode(health.callsLastMinute, health.limitPerMinute),
      ],
      [
        'Budget',
        health.budgetSpentUntil
          ? `spent: its orders wait until ${localTime(health.budgetSpentUntil)}, other accounts go on`
          : 'calls can go now',
      ],
      ['Live orders', laneText(health.lanes.live)],
      ['Backfill (resyncs)', laneText(health.lanes.backfill)],
      ['Dead letters', health.deadLetters === null ? 'many: see Dead letters' : num(health.deadLetters)],
      ['Shops', shopsText(account.shops)],
    ],
    trouble,
  );
  article.dataset.account = account.id;
  if (!account.readOnly) {
    const check = document.createElement('button');
    check.textContent = 'Check credentials';
    check.className = 'secondary';
    check.addEventListener('click', async () => {
      check.disabled = true;
      await api(`/accounts/${encodeURIComponent(account.id)}/check`, { method: 'POST' });
      await loadAccounts();
    });
    const actions = document.createElement('div');
    actions.className = 'card-actions';
    actions.append(pointsEdit(account), check);
    article.append(actions);
  }
  return article;
}

/** An account's shops: all of a few, or how many and the first of them (each is in the shops' table below). */
function shopsText(shops) {
  const names = shops.map((shop) => shop.shop);
  if (names.length === 0) return 'none';
  return names.length > 5 ? `${num(names.length)}: ${someOf(names)}` : names.join(', ');
}

/** The choice that takes a shop's link away; what it means is said under the table (index.html). */
const UNLINKED = 'the environment’s choice (unlink)';

/** The accounts' cards and the shops' rows, each a page at a time (made once the page runs). */
let accountCards;
let shopRows;

/**
 * One select per shop, showing the account it earns on now (linked, or the default the environment gives it), and
 * every other; UNLINKED takes its link away (back to what the environment says, explained under the table) and is
 * shown for a shop on none.
 */
function accountSelect(shop, accounts) {
  const select = document.createElement('select');
  select.setAttribute('aria-label', `account of ${shop.shop}`);
  select.append(...accounts.map((account) => new Option(account.name, account.id)), new Option(UNLINKED, ''));
  select.value = accounts.some((account) => account.id === shop.account) ? shop.account : '';
  select.addEventListener('change', async () => {
    select.disabled = true;
    const { status, body } = await api(`/shops/${encodeURIComponent(shop.platform)}/${encodeURIComponent(shop.shop)}`, {
      method: 'PATCH',
      body: JSON.stringify({ account: select.value || null }),
    });
    $('#shop-link-result').textContent =
      status === 200
        ? `${body.shop.shop} now earns on ${body.shop.accountName ?? 'no account'}.`
        : `Not moved: ${body.error}`;
    select.blur();
    await loadAccounts();
  });
  return select;
}

async function loadAccounts() {
  const [{ body }, { body: shopsBody }, { body: defaults }] = await Promise.all([
    api('/accounts'),
    api('/shops'),
    api('/accounts/default/settings'),
  ]);
  for (const account of body.accounts)
    if (account.readOnly) account.configuredPoints = defaults.settings?.LOYALTY_ACTIVITY_POINTS;
  accountCards ??= pagedList({
    search: $('#account-search'),
    nav: $('#account-pages'),
    size: 5,
    text: (account) => `${account.name} ${account.brandId} ${account.shops.map((shop) => shop.shop).join(' ')}`,
  });
  shopRows ??= pagedList({
    search: $('#shop-search'),
    nav: $('#shop-pages'),
    text: (shop) => `${shop.shop} ${platformLabel(shop.platform)} ${shop.accountName ?? ''}`,
  });
  // A points edit the operator is typing in stays as it is until they are done.
  if (!document.activeElement?.closest('#account-list .points-edit'))
    accountCards.show(body.accounts, (accounts) => $('#account-list').replaceChildren(...accounts.map(accountCard)));
  fillByHandAccounts(body.accounts, shopsBody.shops);
  keepBudgets(body.accounts);
  // A select the operator is choosing in stays as it is until they are done.
  if ($('#shop-accounts').contains(document.activeElement)) return;
  shopRows.show(shopsBody.shops, (shops) =>
    $('#shop-accounts tbody').replaceChildren(
      ...shops.map((shop) => {
        const row = document.createElement('tr');
        row.dataset.shop = shop.shop;
        cell(row, shop.shop);
        cell(row, platformLabel(shop.platform));
        cell(row, shop.accountName ?? 'no account: its orders wait until you move it to one');
        cell(row, '').append(accountSelect(shop, body.accounts));
        return row;
      }),
    ),
  );
}

/** The fields the bridge's sandbox makes itself: not asked for when the account is on it. */
const SANDBOX_MAKES = ['#account-base-url', '#account-api-key', '#account-brand-id', '#account-rate-limit'];

async function createAccount(event) {
  event.preventDefault();
  const request = $('#account-sandbox').checked
    ? { sandbox: true, name: $('#account-name').value.trim() }
    : {
        name: $('#account-name').value.trim(),
        baseUrl: $('#account-base-url').value.trim(),
        apiKey: $('#account-api-key').value.trim(),
        brandId: $('#account-brand-id').value.trim(),
        rateLimitPerMinute: Number($('#account-rate-limit').value),
      };
  // On the sandbox the points come from its activities unless declared here.
  const activityPoints = $('#account-activity-points').value.trim();
  if (activityPoints) request.settings = { LOYALTY_ACTIVITY_POINTS: activityPoints };
  const { status, body } = await api('/accounts', { method: 'POST', body: JSON.stringify(request) });
  const errors = status === 201 ? [] : (body.errors ?? [body.error ?? `not created (${status})`]);
  $('#account-errors').replaceChildren(
    ...errors.map((line) => {
      const item = document.createElement('li');
      item.textContent = line;
      return item;
    }),
  );
  if (status !== 201) return;
  // The key leaves the page: the account shows its last four characters from now on.
  $('#account-form').reset();
  $('#account-sandbox').dispatchEvent(new Event('change'));
  $('#account-created').textContent = `Created ${body.account.name}: credentials ${credentialsText(body.account)}.`;
  await loadAccounts();
}

document.querySelector('#account-form').addEventListener('submit', (event) => createAccount(event));
document.querySelector('#account-sandbox').addEventListener('change', (event) => {
  for (const selector of SANDBOX_MAKES) {
    const input = document.querySelector(selector);
    input.disabled = event.target.checked;
    input.closest('label').hidden = event.target.checked;
  }
});
