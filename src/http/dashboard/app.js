// The dashboard: plain DOM, no build step. Everything shown comes from the admin API and is written with
// textContent, never as HTML: order data comes from stores and customers. The operator signs in with
// ADMIN_TOKEN and sees everything. A merchant has a page of their own instead (src/http/merchant/), and no
// shop's session is ever taken here.
/* global drawBars, drawStackedBars, loadStores, loadAccounts, localTime, whenNode, pager, pagedList */
const TOKEN_KEY = 'loyalty-bridge-admin-token';
const $ = (selector) => document.querySelector(selector);
let selectedOrder = null;
/** The reconciliation's entries by the name the resync form shows: their platform and shop. */
let resyncTargets = {};
let refreshTimer = null;

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

async function call(path, options) {
  return fetch(`/admin/api${path}`, {
    ...options,
    headers: {
      authorization: `Bearer ${token()}`,
      'content-type': 'application/json',
      ...(options.headers ?? {}),
    },
  });
}

async function api(path, options = {}) {
  const response = await call(path, options);
  if (response.status === 401) {
    signOut('The admin token was refused.');
    throw new Error('unauthorised');
  }
  const body = await response.json().catch(() => ({}));
  return { status: response.status, body };
}

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text ?? '';
  row.append(td);
  return td;
}

function fillPairs(table, pairs) {
  const body = table.querySelector('tbody');
  body.replaceChildren();
  if (pairs.length === 0) pairs = [['nothing yet', '']];
  for (const [name, value] of pairs) {
    const row = document.createElement('tr');
    if (typeof name === 'string') cell(row, name);
    else cell(row, '').append(name);
    cell(row, String(value));
    body.append(row);
  }
}

/** An order's or a reason's words (src/core/order-words.ts): the sentence, its fix, and the setting's name small. */
function wordsNode(words) {
  const span = document.createElement('span');
  span.className = 'words';
  span.textContent = words.fix ? `${words.says} Fix: ${words.fix}.` : words.says;
  if (words.setting) {
    const setting = document.createElement('small');
    setting.className = 'muted setting';
    setting.textContent = ` ${words.setting}`;
    span.append(setting);
  }
  return span;
}

/** A list of names, the first few and how many more: a fact about 200 shops stays a line. */
function someOf(names, shown = 5) {
  return names.length > shown
    ? `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`
    : names.join(', ');
}

/** Each platform's name as a person reads it, from GET /admin/api/platforms; the code until it is known. */
const platformLabels = new Map();
let platformLabelsLoaded = null;
function loadPlatformLabels() {
  platformLabelsLoaded ??= api('/platforms').then(
    ({ body }) => {
      for (const each of body.platforms ?? []) platformLabels.set(each.name, each.names.platform);
    },
    (error) => {
      platformLabelsLoaded = null;
      throw error;
    },
  );
  return platformLabelsLoaded;
}
/** A platform, or a store named "platform:shop", with the platform in its own words. */
const platformLabel = (name) => {
  const [platform, ...shop] = String(name).split(':');
  const label = platformLabels.get(platform) ?? platform;
  return shop.length > 0 ? `${label}: ${shop.join(':')}` : label;
};

async function loadStatus() {
  const { body } = await api('/status');
  fillPairs(
    $('#by-state'),
    Object.entries(body.orders.byState).map(([state, count]) => [body.stateWords?.[state] ?? state, count]),
  );
  fillPairs(
    $('#by-platform'),
    Object.entries(body.orders.byPlatform).map(([platform, count]) => [platformLabel(platform), count]),
  );
  // Each reason in words, with its fix (the API's reasonWords; the code where a bridge gives none).
  const reasons = (map) =>
    Object.entries(map).map(([reason, count]) => [
      body.reasonWords?.[reason] ? wordsNode(body.reasonWords[reason]) : reason,
      count,
    ]);
  fillPairs($('#skipped'), reasons(body.orders.skipped));
  // Orders listed for a reason, and every problem (dead letters, an account in trouble): none hides here.
  const problems = body.problems ?? [];
  fillPairs($('#attention'), [
    ...reasons(body.orders.attention ?? {}),
    ...problems.map((problem) => [problem.label, problem.count ?? 1]),
  ]);
  showProblems(problems);
  const rate = body.rateLimit;
  fillPairs($('#rate'), [
    ['calls to the service', rate.words ?? `${rate.startedInWindow} of ${rate.effectiveLimit}`],
    ['waiting in the limiter', rate.queued],
    ['orders with work', body.ledger.activeOrders],
    ['last success', localTime(body.upstream.lastSuccessAt) || 'none yet'],
  ]);
  // Per lane: live (webhooks, a person's action on one order) goes first; backfill (resyncs, reconciliation) keeps its share.
  const lane = (name, figures) =>
    figures
      ? [
          [`${name}: due now`, figures.due],
          [`${name}: calls in the last minute`, figures.callsLastMinute],
          [`${name}: oldest waiting since`, localTime(figures.oldestDueAt) || 'nothing waiting'],
          ...(figures.estimatedFinishAt
            ? [[`${name}: done at this pace by`, localTime(figures.estimatedFinishAt)]]
            : []),
        ]
      : [];
  fillPairs($('#lanes'), [...lane('live', body.lanes?.live), ...lane('backfill', body.lanes?.backfill)]);
  backfillLane = body.lanes?.backfill;
  const banner = $('#banner');
  if (body.upstream.credentialsRefused) {
    $('#banner-text').textContent =
      'The loyalty service refuses our credentials: every call waits. Put LOYALTY_API_KEY and LOYALTY_BRAND_ID right (or the key right at the service), then try again.';
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
  const mode = body.mode ?? {};
  $('#mode').textContent = mode.demo ? 'demo' : mode.sandbox ? 'sandbox' : '';
  $('#mode').hidden = !mode.demo && !mode.sandbox;
  $('#demo-banner').hidden = !mode.demo;
  $('#account-sandbox-choice').hidden = !mode.sandbox;
  // What a platform says needs the operator's eye, in its own words (orders that arrived without what earns, say).
  const attention = (body.connections ?? []).flatMap((connection) => connection.notes?.attention ?? []);
  $('#protected-banner').textContent = attention.join(' ');
  $('#protected-banner').hidden = attention.length === 0;
  showAlarms(body.connections ?? []);
  showConnections(body);
  // The orders' filter offers each state in the same few words, once.
  const states = $('#order-state');
  if (states.options.length === 1 && body.stateLabels)
    states.append(...Object.entries(body.stateLabels).map(([state, label]) => new Option(label, state)));
  // Each state's bar named in a few words (the API's stateLabels), never by its code.
  drawBars(
    $('#chart-states'),
    Object.fromEntries(
      Object.entries(body.orders.byState).map(([state, count]) => [body.stateLabels?.[state] ?? state, count]),
    ),
  );
  // One choice per store: with several stores of a platform, each is named "platform:shop".
  const platforms = Object.keys(body.reconciliation);
  resyncTargets = body.reconciliation;
  const select = $('#resync-platform');
  if (select.options.length !== platforms.length) {
    select.replaceChildren(...platforms.map((platform) => new Option(platformLabel(platform), platform)));
  }
  $('#resync-form button').disabled = platforms.length === 0;
  if (platforms.length === 0)
    $('#resync-progress').textContent = 'No platform has API access configured, so there is nothing to resync from.';
}

/**
 * What stops orders earning, at the top: each problem's cause, then its fix. The default account's refused
 * credentials are the banner above, with its "Try again now".
 */
function showProblems(problems) {
  const shown = problems.filter((problem) => !(problem.kind === 'key_refused' && problem.account === 'default'));
  $('#problems').replaceChildren(
    ...shown.map((problem) => {
      const li = document.createElement('li');
      li.dataset.kind = problem.kind;
      const fix = document.createElement('span');
      fix.className = 'fix';
      fix.textContent = problem.fix;
      li.append(`${problem.cause} `, fix);
      return li;
    }),
  );
  $('#problems').hidden = shown.length === 0;
}

/** What a platform says is wrong with how deliveries reach us (a webhook it disabled, a hook it deactivated), and how to put it right. */
function showAlarms(connections) {
  const items = [];
  for (const connection of connections) {
    for (const report of connection.subscriptions ?? []) {
      for (const problem of report.problems)
        items.push(`${report.platform} ${report.shop}: ${problem.detail}. ${problem.fix}.`);
      if (report.error) items.push(`${report.platform} ${report.shop}: could not check the webhooks: ${report.error}`);
    }
  }
  const list = $('#alarms');
  list.replaceChildren(
    ...items.map((text) => {
      const li = document.createElement('li');
      li.textContent = text;
      return li;
    }),
  );
  list.hidden = items.length === 0;
}

/** A card of facts, each a term over its value (text, or a node such as a date's). */
function card(title, rows, problem) {
  const article = document.createElement('article');
  article.className = problem ? 'card problem' : 'card';
  const heading = document.createElement('h3');
  heading.textContent = title;
  const list = document.createElement('dl');
  for (const [term, value] of rows) {
    const pair = document.createElement('div');
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.append(value);
    pair.append(dt, dd);
    list.append(pair);
  }
  article.append(heading, list);
  return article;
}

/** Is each store connected and healthy: deliveries, signature failures, what the platform says of our subscriptions; and the loyalty service. */
function showConnections(body) {
  const cards = (body.connections ?? []).map((connection) => {
    const problems = connection.subscriptions.flatMap((report) =>
      report.problems
        .map((problem) => `${problem.detail}. ${problem.fix}`)
        .concat(report.error ? [`could not check: ${report.error}`] : []),
    );
    const checked = connection.subscriptions
      .map((report) => report.checkedAt)
      .sort()
      .at(-1);
    // Topics the app's configuration declares that no delivery has confirmed yet (not counted as working).
    const unconfirmed = connection.subscriptions
      .filter((report) => report.unconfirmed?.length)
      .map((report) => `${report.shop}: ${report.unconfirmed.join(', ')}`);
    const waiting = unconfirmed.length
      ? `; ${connection.notes?.unconfirmed ?? 'not yet seen delivered'}: ${someOf(unconfirmed, 3).replaceAll(', ', '; ')}`
      : '';
    // With many stores, the first few problems and how many there are; each store's own is in the stores panel.
    const troubled = connection.subscriptions.filter((report) => report.problems.length > 0 || report.error).length;
    const problemText =
      troubled > 2
        ? `${troubled} of ${connection.subscriptions.length} stores: ${problems.slice(0, 2).join(' ')} (each store's under Stores)`
        : problems.join(' ');
    return card(
      connection.label,
      [
        ['Webhooks', connection.webhooks ? 'on' : 'off (no secret configured)'],
        ['Store API', connection.api ? 'on' : 'off'],
        ['Deliveries, last hour', String(connection.deliveriesLastHour)],
        ['Last delivery', whenNode(connection.lastDeliveryAt, 'none yet')],
        ['Signature failures, last hour', String(connection.signatureFailuresLastHour)],
        ...(connection.notes?.notServed
          ? [
              [
                'Shops not served, last hour',
                connection.notAllowedLastHour
                  ? `${connection.notAllowedLastHour} deliveries ignored, from ${someOf(connection.notAllowedShops)}: ${connection.notes.notServed}`
                  : 'none',
              ],
            ]
          : []),
        [
          'Subscriptions',
          connection.api
            ? problems.length
              ? problemText
              : checked
                ? `all right (checked ${localTime(checked)})${waiting}`
                : 'not checked yet'
            : 'not checked (no store API access)',
        ],
      ],
      problems.length > 0 || connection.signatureFailuresLastHour > 0,
    );
  });
  const upstream = body.upstream;
  cards.push(
    card(
      body.mode?.sandbox ? 'Loyalty service (sandbox)' : 'Loyalty service',
      [
        ['Credentials', upstream.credentialsRefused ? 'refused: calls paused' : 'accepted'],
        ['Last successful call', whenNode(upstream.lastSuccessAt, 'none yet')],
        ['Calls', body.rateLimit.words ?? `${body.rateLimit.startedInWindow} of ${body.rateLimit.effectiveLimit}`],
        ['Dead letters', String(body.deadLetters)],
      ],
      upstream.credentialsRefused,
    ),
  );
  $('#connections').replaceChildren(...cards);
}

async function loadActivity() {
  const { body } = await api('/activity?minutes=60');
  // Each series by its words from the API (words.deliveries, words.calls), never by its code.
  const pick = (minute, field) =>
    Object.fromEntries(Object.entries(minute[field]).map(([key, value]) => [body.words?.[field]?.[key] ?? key, value]));
  drawStackedBars(
    $('#chart-deliveries'),
    body.minutes.map((minute) => ({ at: minute.at, values: pick(minute, 'deliveries') })),
  );
  drawStackedBars(
    $('#chart-calls'),
    body.minutes.map((minute) => ({ at: minute.at, values: pick(minute, 'calls') })),
  );
}

/** The platforms whose app the operator installs on a shop, each with its panel (a promise, asked once). */
let installPanels = null;

async function installPlatforms() {
  const { body } = await api('/platforms');
  return body.platforms.filter((platform) => platform.installs);
}

function installPanel(platform) {
  const panel = $('#install-panel').content.firstElementChild.cloneNode(true);
  panel.id = `install-${platform.name}`;
  panel.querySelector('h2').textContent = `${platform.names.platform} ${platform.names.shop}s`.trim();
  panel.querySelector('.install-label').textContent = `Install on a ${platform.names.shop}`;
  panel.querySelector('.install-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    // Started by the signed-in operator, the shop becomes one of the bridge's; then off to its consent screen, and back.
    const { status, body } = await api(`/${platform.name}/installs`, {
      method: 'POST',
      body: JSON.stringify({ shop: panel.querySelector('.install-shop').value.trim().toLowerCase() }),
    });
    if (status !== 201) return void alert(`Not installed: ${body.error}`);
    window.location.assign(body.next);
  });
  $('#installs').append(panel);
  const list = pagedList({
    search: panel.querySelector('.install-search'),
    nav: panel.querySelector('.install-pages'),
    text: (shop) => shop.shop,
  });
  panel.querySelector('.install-pages').setAttribute('aria-label', `pages of ${platform.names.shop}s`);
  return { name: platform.name, panel, list };
}

async function loadInstalls() {
  installPanels ??= installPlatforms().then(
    (platforms) => platforms.map(installPanel),
    (error) => {
      installPanels = null;
      throw error;
    },
  );
  await Promise.all((await installPanels).map(loadInstallPanel));
}

async function loadInstallPanel({ name, panel, list }) {
  const { status, body } = await api(`/${name}/shops`);
  if (status !== 200) return void (panel.hidden = true);
  panel.hidden = body.shops.length === 0 && !body.canInstall;
  panel.querySelector('.install-form').hidden = !body.canInstall;
  panel.querySelector('.install-shop').placeholder = body.example ?? '';
  list.show(body.shops, (shops) =>
    panel.querySelector('tbody').replaceChildren(
      ...shops.map((shop) => {
        const row = document.createElement('tr');
        cell(row, shop.shop);
        cell(row, shop.access);
        cell(row, '').append(whenNode(shop.expiresAt));
        cell(row, shop.scope ?? '');
        return row;
      }),
    ),
  );
}

async function loadPrivacy() {
  const { body } = await api('/privacy');
  $('#data-requests-note').textContent = body.dataRequests.length
    ? `${body.dataRequests.length} data request(s) to answer: export the customer's data and send it to the merchant's customer.`
    : 'No data request waiting.';
  $('#data-requests tbody').replaceChildren(
    ...body.dataRequests.map((request) => {
      const row = document.createElement('tr');
      cell(row, '').append(whenNode(request.receivedAt));
      cell(row, `${request.platform} ${request.shop}`);
      cell(row, [request.customer?.email, request.customer?.phone].filter(Boolean).join(' · '));
      const actions = cell(row, '');
      const use = document.createElement('button');
      use.textContent = 'Export';
      use.className = 'secondary';
      use.addEventListener('click', () => {
        $('#privacy-email').value = request.customer?.email ?? '';
        $('#privacy-phone').value = request.customer?.phone ?? '';
        exportCustomer();
      });
      const done = document.createElement('button');
      done.textContent = 'Answered';
      done.addEventListener('click', async () => {
        await api(`/privacy/data-requests/${encodeURIComponent(request.id)}`, { method: 'DELETE' });
        await loadPrivacy();
      });
      actions.append(use, ' ', done);
      return row;
    }),
  );
}

function privacyQuery() {
  const query = {};
  if ($('#privacy-email').value.trim()) query.email = $('#privacy-email').value.trim();
  if ($('#privacy-phone').value.trim()) query.phone = $('#privacy-phone').value.trim();
  return query;
}

async function exportCustomer(event) {
  event?.preventDefault();
  const query = privacyQuery();
  if (!query.email && !query.phone)
    return void ($('#privacy-result').textContent = 'Give an e-mail or a phone number.');
  const { status, body } = await api(`/customers/export?${new URLSearchParams(query)}`);
  if (status !== 200) return void ($('#privacy-result').textContent = `Not exported: ${body.error}`);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([JSON.stringify(body, null, 2)], { type: 'application/json' }));
  link.download = 'customer-data.json';
  link.textContent = 'customer-data.json';
  $('#privacy-result').replaceChildren(
    `${body.orders.length} order(s), ${body.deadLetters.length} dead letter(s) found. Download `,
    link,
  );
  link.click();
}

async function eraseCustomer() {
  const query = privacyQuery();
  if (!query.email && !query.phone)
    return void ($('#privacy-result').textContent = 'Give an e-mail or a phone number.');
  if (
    !confirm(
      `Erase every trace of ${query.email ?? query.phone} from this bridge? Their orders keep their points state, without their name, e-mail or phone. This cannot be undone.`,
    )
  )
    return;
  const { status, body } = await api('/customers/erase', { method: 'POST', body: JSON.stringify(query) });
  $('#privacy-result').textContent =
    status === 200
      ? `Erased from ${body.erased.orders} order(s), ${body.erased.deadLetters} dead letter(s), ${body.erased.adjustments} points given or taken by hand and ${body.erased.records - body.erased.adjustments} other record(s). Erase them at the loyalty service too.`
      : `Not erased: ${body.error}`;
  await refresh();
}

/** Orders grow without bound: the admin API pages them (page, limit, total), a page of 25 at a time. */
const ORDERS_PER_PAGE = 25;
let orderPage = 1;
const orderPages = pager($('#order-pages'), (step) => {
  orderPage += step;
  loadOrders();
});

async function loadOrders() {
  const query = new URLSearchParams({ limit: String(ORDERS_PER_PAGE), page: String(orderPage) });
  if ($('#order-search').value) query.set('q', $('#order-search').value);
  if ($('#order-state').value) query.set('state', $('#order-state').value);
  const { body } = await api(`/orders?${query}`);
  // Past the last page (orders erased, a narrower search): back to the last one there is.
  const last = Math.max(1, Math.ceil(body.total / ORDERS_PER_PAGE));
  if (orderPage > last) {
    orderPage = last;
    return loadOrders();
  }
  const from = (orderPage - 1) * ORDERS_PER_PAGE;
  const filtered = Boolean($('#order-search').value || $('#order-state').value);
  orderPages.show(from + 1, from + body.orders.length, body.total, 'no order matches', filtered);
  const rows = body.orders.map((order) => {
    const row = document.createElement('tr');
    row.dataset.key = order.key;
    cell(row, order.orderName || order.orderId);
    cell(row, platformLabel(order.platform));
    cell(row, order.email ?? '');
    cell(row, '').append(wordsNode(order.words));
    cell(row, order.points.text);
    cell(row, '').append(whenNode(order.updatedAt));
    row.addEventListener('click', () => showOrder(order.key));
    return row;
  });
  $('#order-list tbody').replaceChildren(...rows);
}

async function showOrder(key) {
  selectedOrder = key;
  const { body } = await api(`/orders/${encodeURIComponent(key)}`);
  const order = body.order;
  $('#order-title').textContent =
    `${order.snapshot.orderName || order.orderId} · ${platformLabel(order.platform)} · ${order.shop}`;
  const facts = [
    ['The store says it was', order.factWords.join(', ') || 'nothing yet'],
    // Every code in words from the API (words, serviceWords, points): none is shown bare.
    ['Points belong', wordsNode(order.words)],
    ['Loyalty service holds', order.serviceWords.points],
    ['Points', order.points.text],
    ['Referral', order.serviceWords.conversion],
    ['Points spent on it', order.serviceWords.redemption],
    [
      'Customer',
      [order.snapshot.customer.name, order.snapshot.customer.email, order.snapshot.customer.mobile]
        .filter(Boolean)
        .join(' · '),
    ],
    ['Total', `${order.snapshot.total.amount} ${order.snapshot.total.currency}`],
    [
      'Next retry',
      order.work.retryAt ? `${localTime(order.work.retryAt)}: ${order.work.lastError}` : 'nothing to try again',
    ],
  ];
  $('#order-facts').replaceChildren(
    ...facts.flatMap(([term, value]) => {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      if (typeof value === 'string') dd.textContent = value;
      else dd.append(value);
      return [dt, dd];
    }),
  );
  const calls = order.calls.map((call) => {
    const row = document.createElement('tr');
    cell(row, '').append(whenNode(call.at));
    cell(row, call.words.call);
    cell(row, call.words.outcome);
    cell(row, String(call.attempts));
    cell(row, call.message);
    return row;
  });
  $('#order-calls tbody').replaceChildren(...calls);
  $('#order-detail').hidden = false;
}

/** Cancelled orders whose redeemed points were not given back, each with the one click that does it. */
async function loadRedeemedOnCancelled() {
  const { body } = await api('/redeemed-on-cancelled');
  $('#redeemed-on-cancelled').hidden = body.orders.length === 0;
  const rows = body.orders.map((order) => {
    const row = document.createElement('tr');
    cell(row, order.orderName || order.orderId);
    cell(row, platformLabel(order.platform));
    cell(row, String(order.points));
    const actions = cell(row, '');
    if (order.blocked) {
      actions.textContent = order.blocked;
      return row;
    }
    const giveBack = document.createElement('button');
    giveBack.textContent = `Give ${order.points} points back`;
    giveBack.addEventListener('click', async () => {
      giveBack.disabled = true;
      const { status, body: result } = await api(`/orders/${encodeURIComponent(order.key)}/give-back-redeemed`, {
        method: 'POST',
        body: '{}',
      });
      if (status !== 201) alert(`Not given back: ${result.error}`);
      await refresh();
    });
    actions.append(giveBack);
    return row;
  });
  $('#redeemed-list tbody').replaceChildren(...rows);
}

async function loadDeadLetters() {
  const { body } = await api('/dead-letters');
  $('#dead-letter-note').textContent =
    body.deadLetters.length === 0 ? 'Nothing needs a person.' : `${body.deadLetters.length} waiting.`;
  const rows = body.deadLetters.map((letter) => {
    const row = document.createElement('tr');
    cell(row, '').append(whenNode(letter.createdAt));
    cell(
      row,
      letter.kind === 'call'
        ? `${letter.callWords ?? 'a call'} for ${letter.orderName ? `order ${letter.orderName}` : (letter.orderKey ?? 'a change by hand')}`
        : `${letter.platform} ${letter.topic} delivery`,
    );
    cell(row, letter.reason);
    const actions = cell(row, '');
    const retry = document.createElement('button');
    retry.textContent = 'Retry';
    retry.addEventListener('click', async () => {
      retry.disabled = true;
      const { body: result } = await api(`/dead-letters/${letter.id}/retry`, { method: 'POST' });
      if (!result.retried) alert(`Still failing: ${result.reason}`);
      await refresh();
    });
    const discard = document.createElement('button');
    discard.textContent = 'Discard';
    discard.className = 'secondary';
    discard.addEventListener('click', async () => {
      if (!confirm('Discard this dead letter? Nothing more will be done about it.')) return;
      await api(`/dead-letters/${letter.id}`, { method: 'DELETE' });
      await refresh();
    });
    actions.append(retry, ' ', discard);
    return row;
  });
  $('#dead-letter-list tbody').replaceChildren(...rows);
}

async function startResync(event) {
  event.preventDefault();
  const target = resyncTargets[$('#resync-platform').value] ?? {};
  const request = { platform: target.platform ?? $('#resync-platform').value, since: $('#resync-since').value };
  if (target.shop) request.shop = target.shop;
  if ($('#resync-until').value) request.until = $('#resync-until').value;
  const { status, body } = await api('/resync', { method: 'POST', body: JSON.stringify(request) });
  if (status !== 202) {
    $('#resync-progress').textContent = `Not started: ${body.error}`;
    return;
  }
  watchResync(body.job.id);
}

/** The backfill lane as the last status showed it: a resync's orders are done when it is. */
let backfillLane;

async function watchResync(id) {
  const { body } = await api(`/resync/${id}`);
  const { job } = body;
  const { fetched, changed, unchanged, failed, errors, expected } = job.progress;
  const state = job.status === 'running' ? 'Running' : job.status === 'done' ? 'Done' : 'Failed';
  // The fetched orders then wait in the backfill lane: its pace says when they are done.
  const finish = backfillLane?.estimatedFinishAt
    ? `; its orders done at this pace by ${localTime(backfillLane.estimatedFinishAt)} (${backfillLane.waiting} waiting)`
    : '';
  $('#resync-progress').textContent =
    `${state}: fetched ${fetched}${expected !== undefined ? ` of ${expected}` : ''}, changed ${changed}, unchanged ${unchanged}, failed ${failed}${finish}${errors.length ? `. ${errors[0]}` : ''}`;
  if (job.status === 'running') setTimeout(() => watchResync(id), 500);
  else refresh();
}

async function refresh() {
  try {
    await loadPlatformLabels();
    await Promise.all([
      loadStatus(),
      loadOrders(),
      loadRedeemedOnCancelled(),
      loadDeadLetters(),
      loadActivity(),
      loadInstalls(),
      loadStores(),
      loadAccounts(),
      loadPrivacy(),
    ]);
    if (selectedOrder) await showOrder(selectedOrder);
  } catch (error) {
    if (error.message !== 'unauthorised') console.error(error);
  }
}

function signedIn() {
  $('#sign-in').hidden = true;
  $('#app').hidden = false;
  $('#sign-out').hidden = false;
  $('#resync-since').value = new Date(Date.now() - 7 * 86400000).toISOString().slice(0, 10);
  refresh();
  refreshTimer = setInterval(refresh, 3000);
}

function signOut(message = '') {
  sessionStorage.removeItem(TOKEN_KEY);
  clearInterval(refreshTimer);
  $('#app').hidden = true;
  $('#sign-out').hidden = true;
  $('#sign-in').hidden = false;
  $('#sign-in-error').textContent = message;
}

$('#sign-in-form')?.addEventListener('submit', async (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $('#token').value);
  $('#token').value = '';
  try {
    const { status } = await api('/status');
    if (status === 200) signedIn();
  } catch {
    // signOut has said why.
  }
});
$('#sign-out').addEventListener('click', () => signOut());
$('#probe').addEventListener('click', async () => {
  $('#probe').disabled = true;
  const { body } = await api('/upstream/probe', { method: 'POST' });
  $('#probe').disabled = false;
  $('#banner-text').textContent = body.paused
    ? 'The loyalty service still refuses our credentials.'
    : 'The loyalty service lets us in again: calls resume.';
  await refresh();
});
$('#privacy-form').addEventListener('submit', exportCustomer);
$('#privacy-erase').addEventListener('click', eraseCustomer);
$('#order-filter').addEventListener('input', () => {
  orderPage = 1;
  loadOrders();
});
$('#order-filter').addEventListener('submit', (event) => event.preventDefault());
$('#resync-form').addEventListener('submit', startResync);
// A sign-in link (printed by the bridge in sandbox mode) carries the token in its fragment,
// which no browser sends to a server: kept for this tab, then taken out of the address bar.
// No shop's session is ever taken from an address: anyone could hand one to another browser.
const fromLink = new URLSearchParams(window.location.hash.slice(1)).get('token');
if (fromLink) {
  sessionStorage.setItem(TOKEN_KEY, fromLink);
  history.replaceState(null, '', window.location.pathname + window.location.search);
}
if (token()) signedIn();
