// The dashboard's stores panel: every store a platform lists for the operator, with what the last check of its
// webhooks found and did, and a connect form for each platform that connects a store by its address (to the
// platform's consent screen, and back here with success=1 or 0). Every name shown comes from the API. Loaded
// before app.js, whose helpers the functions below use once the page runs: nothing at the top level touches them.
/* global $, api, cell, num, whenNode, pagedList */
/* exported loadStores */

/** What the return from the platform says, shown once, then taken out of the address bar. */
function noteConnectReturn() {
  const params = new URLSearchParams(window.location.search);
  const store = params.get('connected') ? params.get('store') : null;
  if (!store) return;
  const notice = document.querySelector('#stores-notice');
  notice.textContent =
    params.get('success') === '1'
      ? `Connected ${store}. The bridge is creating its webhooks and reading the last day's orders.`
      : `${store} was not connected: the request was declined. Try again when you are ready.`;
  notice.hidden = false;
  // The one-time values the platform sent back stay out of the history.
  history.replaceState(null, '', window.location.pathname);
}

function webhookSummary(report) {
  if (!report) return 'not checked yet';
  if (report.error) return `could not check: ${report.error}`;
  if (report.problems.length > 0)
    return report.problems.map((problem) => `${problem.detail}. ${problem.fix}`).join(' ');
  const repaired = report.repaired.length > 0 ? `; put right: ${report.repaired.join(', ')}` : '';
  return `${num(report.healthy)} active${repaired}`;
}

function element(tag, properties = {}, children = []) {
  const made = Object.assign(document.createElement(tag), properties);
  made.append(...children);
  return made;
}

/** One platform's connect form, with its own words: its name, what it calls a store, where one approves. */
function connectForm(connect) {
  const { platform, names } = connect;
  const id = (what) => `${platform}-${what}`;
  const input = element('input', { id: id('store'), placeholder: 'https://store.example', autocomplete: 'url' });
  input.required = true;
  const form = element('form', { id: id('connect-form'), className: 'connect-form' }, [
    element('label', {}, [`Connect a ${names.platform} ${names.shop} `, input]),
    ' ',
    element('button', { type: 'submit', textContent: 'Connect' }),
    ' ',
    element('button', {
      type: 'submit',
      id: id('merchant-link-button'),
      value: 'store-page',
      textContent: 'Make a link for its merchant',
    }),
  ]);
  const error = element('p', { id: id('connect-error'), className: 'error' });
  error.setAttribute('role', 'alert');
  // Why a connect cannot start yet (a setting still to make): a step to take, not an error, so not in red.
  const waits = element('p', { id: id('connect-waits'), className: 'note', hidden: true });
  const link = element('p', { id: id('merchant-link'), hidden: true }, [element('span'), element('code')]);
  const muted = element('p', {
    className: 'muted',
    textContent: `You will approve loyalty-bridge in ${names.admin}; the bridge then creates its webhooks and keeps them on.`,
  });
  form.addEventListener('submit', (event) => connectStore(event, connect));
  return element('div', { className: 'connect' }, [form, waits, error, link, muted]);
}

function storeRow(store) {
  const row = document.createElement('tr');
  row.dataset.shop = store.shop;
  cell(row, store.url ?? store.shop);
  cell(row, store.platformLabel ?? store.platform);
  const via =
    { environment: 'configured', connect: 'connected', app: 'app installed', demo: 'the demo’s, sending orders' }[
      store.via
    ] ?? store.via;
  const connected = cell(row, via);
  if (store.connectedAt) connected.append(' ', whenNode(store.connectedAt));
  // The demo signs its deliveries as the platform does; no platform holds webhooks to check.
  const webhooks = cell(row, store.via === 'demo' ? 'sent by the demo, signed' : webhookSummary(store.subscriptions));
  if (store.subscriptions && (store.subscriptions.problems.length > 0 || store.subscriptions.error))
    webhooks.className = 'error';
  cell(row, '').append(whenNode(store.reconciledAt, 'not yet'));
  return row;
}

/** The stores, filtered by address or platform, 25 at a time (made once the page runs: pages.js is loaded then). */
let storeList;

async function loadStores() {
  const { body } = await api('/stores');
  storeList ??= pagedList({
    search: $('#store-search'),
    nav: $('#store-pages'),
    text: (store) => `${store.url ?? ''} ${store.shop} ${store.platformLabel ?? store.platform}`,
  });
  storeList.show(body.stores, (stores) => {
    const rows = stores.map(storeRow);
    // None yet: said in a row, rather than an empty table under its headings.
    if (body.stores.length === 0) {
      const row = document.createElement('tr');
      cell(row, 'No store connected yet.').colSpan = 5;
      rows.push(row);
    }
    $('#store-list tbody').replaceChildren(...rows);
  });
  // Made once per platform, so a refresh keeps what is typed; then only whether a connect can start changes.
  const connects = $('#store-connects');
  for (const connect of body.connect ?? []) {
    if (!document.getElementById(`${connect.platform}-connect-form`)) connects.append(connectForm(connect));
    for (const button of document.querySelectorAll(`#${connect.platform}-connect-form button`))
      button.disabled = !connect.possible;
    const waits = document.getElementById(`${connect.platform}-connect-waits`);
    waits.textContent = connect.possible ? '' : `Before a ${connect.names.shop} can connect: ${connect.problem}`;
    waits.hidden = connect.possible;
  }
}

async function connectStore(event, { platform, names }) {
  event.preventDefault();
  const part = (what) => document.getElementById(`${platform}-${what}`);
  part('connect-error').textContent = '';
  part('merchant-link').hidden = true;
  // Connect: the operator approves in this browser. A link for its merchant: they approve, and their store's page opens.
  const forMerchant = event.submitter?.value === 'store-page';
  const { status, body } = await api(`/stores/${encodeURIComponent(platform)}/connect`, {
    method: 'POST',
    body: JSON.stringify({ store: part('store').value.trim(), ...(forMerchant ? { landing: 'store-page' } : {}) }),
  });
  if (status !== 201) {
    part('connect-error').textContent = body.error ?? `The connect could not start (${status})`;
    return;
  }
  if (forMerchant) {
    const minutes = Math.round((Date.parse(body.expiresAt) - Date.now()) / 60_000);
    part('merchant-link').querySelector('span').textContent =
      `Send this link to the ${names.shop}'s merchant (it works once, for ${minutes} minutes). They approve in ${names.admin}, land on their ${names.shop}'s own page, and set up their own loyalty account there: `;
    part('merchant-link').querySelector('code').textContent = body.authorizeUrl;
    part('merchant-link').hidden = false;
    return;
  }
  // To the platform's consent screen: approve there; the platform sends the browser back here.
  window.location.assign(body.authorizeUrl);
}

noteConnectReturn();
