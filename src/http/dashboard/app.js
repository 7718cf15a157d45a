// The dashboard: plain DOM, no build step. Everything shown comes from the
// admin API and is written with textContent, never as HTML: order data comes
// from stores and customers.
const TOKEN_KEY = 'loyalty-bridge-admin-token';
const $ = (selector) => document.querySelector(selector);
let selectedOrder = null;
let refreshTimer = null;

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

async function api(path, options = {}) {
  const response = await fetch(`/admin/api${path}`, {
    ...options,
    headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json', ...(options.headers ?? {}) },
  });
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
  if (pairs.length === 0) pairs = [['none', '']];
  for (const [name, value] of pairs) {
    const row = document.createElement('tr');
    cell(row, name);
    cell(row, String(value));
    body.append(row);
  }
}

function when(iso) {
  return iso ? new Date(iso).toLocaleString() : '';
}

async function loadStatus() {
  const { body } = await api('/status');
  fillPairs($('#by-state'), Object.entries(body.orders.byState));
  fillPairs($('#by-platform'), Object.entries(body.orders.byPlatform));
  fillPairs($('#skipped'), Object.entries(body.orders.skipped));
  const rate = body.rateLimit;
  fillPairs($('#rate'), [
    ['calls in the last minute', `${rate.startedInWindow} of ${rate.effectiveLimit}`],
    ['waiting in the limiter', rate.queued],
    ['orders with work', body.worker.ready + body.worker.inFlight + body.worker.waiting],
    ['last success', when(body.upstream.lastSuccessAt) || 'none yet'],
  ]);
  const banner = $('#banner');
  if (body.upstream.credentialsRefused) {
    banner.textContent = 'The loyalty service refuses our credentials: no points can be sent until LOYALTY_API_KEY and LOYALTY_BRAND_ID are fixed.';
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
  const platforms = Object.keys(body.reconciliation);
  const select = $('#resync-platform');
  if (select.options.length !== platforms.length) {
    select.replaceChildren(...platforms.map((platform) => new Option(platform, platform)));
  }
  $('#resync-form button').disabled = platforms.length === 0;
  if (platforms.length === 0) $('#resync-progress').textContent = 'No platform has API access configured, so there is nothing to resync from.';
}

async function loadOrders() {
  const query = new URLSearchParams({ limit: '25' });
  if ($('#order-search').value) query.set('q', $('#order-search').value);
  if ($('#order-state').value) query.set('state', $('#order-state').value);
  const { body } = await api(`/orders?${query}`);
  const rows = body.orders.map((order) => {
    const row = document.createElement('tr');
    row.dataset.key = order.key;
    cell(row, order.orderName || order.orderId);
    cell(row, order.platform);
    cell(row, order.email ?? '');
    cell(row, order.reason ? `${order.state} (${order.reason})` : order.state);
    cell(row, order.upstream);
    cell(row, when(order.updatedAt));
    row.addEventListener('click', () => showOrder(order.key));
    return row;
  });
  $('#order-list tbody').replaceChildren(...rows);
}

async function showOrder(key) {
  selectedOrder = key;
  const { body } = await api(`/orders/${encodeURIComponent(key)}`);
  const order = body.order;
  $('#order-title').textContent = `${order.snapshot.orderName || order.orderId} · ${order.platform} · ${order.shop}`;
  const facts = [
    ['Facts', order.facts.join(', ') || 'none'],
    ['Points belong', order.target ? `${order.target.state}${order.target.reason ? ` (${order.target.reason})` : ''}` : 'not decided yet'],
    ['Loyalty service holds', order.upstream.points],
    ['Conversion', order.upstream.conversion],
    ['Redemption', order.upstream.redemption],
    ['Customer', [order.snapshot.customer.name, order.snapshot.customer.email, order.snapshot.customer.mobile].filter(Boolean).join(' · ')],
    ['Total', `${order.snapshot.total.amount} ${order.snapshot.total.currency}`],
    ['Next retry', order.work.retryAt ? `${when(order.work.retryAt)}: ${order.work.lastError}` : 'none'],
  ];
  $('#order-facts').replaceChildren(
    ...facts.flatMap(([term, value]) => {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = value;
      return [dt, dd];
    }),
  );
  const calls = order.calls.map((call) => {
    const row = document.createElement('tr');
    cell(row, when(call.at));
    cell(row, call.operation);
    cell(row, call.outcome);
    cell(row, String(call.attempts));
    cell(row, call.message);
    return row;
  });
  $('#order-calls tbody').replaceChildren(...calls);
  $('#order-detail').hidden = false;
}

async function loadDeadLetters() {
  const { body } = await api('/dead-letters');
  $('#dead-letter-note').textContent = body.deadLetters.length === 0 ? 'Nothing needs a person.' : `${body.deadLetters.length} waiting.`;
  const rows = body.deadLetters.map((letter) => {
    const row = document.createElement('tr');
    cell(row, when(letter.createdAt));
    cell(row, letter.kind === 'call' ? `${letter.operation} for ${letter.orderKey}` : `${letter.platform} ${letter.topic} delivery`);
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
  const request = { platform: $('#resync-platform').value, since: $('#resync-since').value };
  if ($('#resync-until').value) request.until = $('#resync-until').value;
  const { status, body } = await api('/resync', { method: 'POST', body: JSON.stringify(request) });
  if (status !== 202) {
    $('#resync-progress').textContent = `Not started: ${body.error}`;
    return;
  }
  watchResync(body.job.id);
}

async function watchResync(id) {
  const { body } = await api(`/resync/${id}`);
  const { job } = body;
  const { fetched, changed, unchanged, failed, errors } = job.progress;
  const state = job.status === 'running' ? 'Running' : job.status === 'done' ? 'Done' : 'Failed';
  $('#resync-progress').textContent = `${state}: fetched ${fetched}, changed ${changed}, unchanged ${unchanged}, failed ${failed}${errors.length ? `. ${errors[0]}` : ''}`;
  if (job.status === 'running') setTimeout(() => watchResync(id), 500);
  else refresh();
}

async function refresh() {
  try {
    await Promise.all([loadStatus(), loadOrders(), loadDeadLetters()]);
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

$('#sign-in-form').addEventListener('submit', async (event) => {
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
$('#order-filter').addEventListener('input', () => loadOrders());
$('#order-filter').addEventListener('submit', (event) => event.preventDefault());
$('#resync-form').addEventListener('submit', startResync);
if (token()) signedIn();
