// The dashboard's orders: the recent orders a page at a time (the admin API pages them), filtered by number,
// e-mail or state; an order's detail with every call made for it; and the cancelled orders whose redeemed points
// were not given back, each with the one click that does it.
/* global $, api, cell, num, counted, wordsNode, platformLabel, whenNode, localTime, pager, refresh */
/* exported loadOrders, showOrder, loadRedeemedOnCancelled, selectedOrder */

/** The order whose detail is open, shown again on each refresh. */
let selectedOrder = null;
/** Orders grow without bound: the admin API pages them (page, limit, total), a page of 25 at a time. */
const ORDERS_PER_PAGE = 25;
let orderPage = 1;
const orderPages = pager($('#order-pages'), (step) => {
  orderPage += step;
  loadOrders();
});

function orderRow(order) {
  const row = document.createElement('tr');
  row.dataset.key = order.key;
  cell(row, order.orderName || order.orderId);
  cell(row, platformLabel(order.platform));
  cell(row, order.email ?? '');
  // Its status at a glance (a badge in the API's tone: red while the service refused a call of it, whatever its
  // state plans), then in words with its fix.
  const badge = document.createElement('span');
  badge.className = `state tone-${order.tone}`;
  badge.textContent = order.label;
  cell(row, '').append(badge, ' ', wordsNode(order.words));
  cell(row, order.points.text);
  cell(row, '').append(whenNode(order.updatedAt));
  row.addEventListener('click', () => showOrder(order.key));
  return row;
}

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
  $('#order-list tbody').replaceChildren(...body.orders.map(orderRow));
}

/** An order's facts, every code in words from the API (words, serviceWords, points): none is shown bare. */
function orderFacts(order) {
  const { customer, total } = order.snapshot;
  return [
    ['The store says it was', order.factWords.join(', ') || 'nothing yet'],
    ['Points belong', wordsNode(order.words)],
    ['Loyalty service holds', order.serviceWords.points],
    ['Points', order.points.text],
    ['Referral', order.serviceWords.conversion],
    ['Points spent on it', order.serviceWords.redemption],
    ['Customer', [customer.name, customer.email, customer.mobile].filter(Boolean).join(' · ')],
    ['Total', `${total.amount} ${total.currency}`],
    [
      'Next retry',
      order.work.retryAt ? `${localTime(order.work.retryAt)}: ${order.work.lastError}` : 'nothing to try again',
    ],
  ];
}

async function showOrder(key) {
  selectedOrder = key;
  const { body } = await api(`/orders/${encodeURIComponent(key)}`);
  const order = body.order;
  $('#order-title').textContent =
    `${order.snapshot.orderName || order.orderId} · ${platformLabel(order.platform)} · ${order.shop}`;
  $('#order-facts').replaceChildren(
    ...orderFacts(order).flatMap(([term, value]) => {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.append(value);
      return [dt, dd];
    }),
  );
  const calls = order.calls.map((call) => {
    const row = document.createElement('tr');
    cell(row, '').append(whenNode(call.at));
    cell(row, call.words.call);
    cell(row, call.words.outcome);
    cell(row, num(call.attempts));
    cell(row, call.message);
    return row;
  });
  $('#order-calls tbody').replaceChildren(...calls);
  $('#order-detail').hidden = false;
}

function redeemedRow(order) {
  const row = document.createElement('tr');
  cell(row, order.orderName || order.orderId);
  cell(row, platformLabel(order.platform));
  cell(row, num(order.points));
  const actions = cell(row, '');
  if (order.blocked) {
    actions.textContent = order.blocked;
    return row;
  }
  const giveBack = document.createElement('button');
  giveBack.textContent = `Give ${counted(order.points, 'point')} back`;
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
}

/** Cancelled orders whose redeemed points were not given back, each with the one click that does it. */
async function loadRedeemedOnCancelled() {
  const { body } = await api('/redeemed-on-cancelled');
  $('#redeemed-on-cancelled').hidden = body.orders.length === 0;
  $('#redeemed-list tbody').replaceChildren(...body.orders.map(redeemedRow));
}

$('#order-filter').addEventListener('input', () => {
  orderPage = 1;
  loadOrders();
});
$('#order-filter').addEventListener('submit', (event) => event.preventDefault());
