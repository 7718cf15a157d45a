// The dashboard's stores panel: every WooCommerce and BigCommerce store the bridge serves, with what the last
// check of its webhooks found and did, and "Connect a WooCommerce store" (to the store's consent screen, and
// back here with success=1 or 0). Loaded before app.js, whose helpers the functions below use once the page
// runs: nothing at the top level touches them.
/* global $, api, cell, localTime */
/* exported loadStores */

/** What the return from WordPress says, shown once, then taken out of the address bar. */
function noteConnectReturn() {
  const params = new URLSearchParams(window.location.search);
  const store = params.get('woocommerce_store');
  if (!store) return;
  const notice = document.querySelector('#stores-notice');
  notice.textContent =
    params.get('success') === '1'
      ? `Connected ${store}. The bridge is creating its webhooks in WooCommerce and reading the last day's orders.`
      : `${store} was not connected: the request was declined in WordPress. Try again when you are ready.`;
  notice.hidden = false;
  // The one-time user_id WooCommerce sent back stays out of the history.
  history.replaceState(null, '', window.location.pathname);
}

function webhookSummary(report) {
  if (!report) return 'not checked yet';
  if (report.error) return `could not check: ${report.error}`;
  if (report.problems.length > 0)
    return report.problems.map((problem) => `${problem.detail}. ${problem.fix}`).join(' ');
  const repaired = report.repaired.length > 0 ? `; put right: ${report.repaired.join(', ')}` : '';
  return `${report.healthy} active${repaired}`;
}

async function loadStores() {
  const { body } = await api('/stores');
  $('#store-list tbody').replaceChildren(
    ...body.stores.map((store) => {
      const row = document.createElement('tr');
      row.dataset.shop = store.shop;
      cell(row, store.url ?? store.shop);
      cell(row, store.platform === 'woocommerce' ? 'WooCommerce' : 'BigCommerce');
      const via = { environment: 'configured', connect: 'connected', app: 'app installed' }[store.via] ?? store.via;
      cell(row, store.connectedAt ? `${via} ${localTime(store.connectedAt)}` : via);
      const webhooks = cell(row, webhookSummary(store.subscriptions));
      if (store.subscriptions && (store.subscriptions.problems.length > 0 || store.subscriptions.error))
        webhooks.className = 'error';
      cell(row, store.reconciledAt ? localTime(store.reconciledAt) : 'not yet');
      return row;
    }),
  );
  const connect = body.woocommerceConnect;
  for (const button of document.querySelectorAll('#woo-connect-form button')) button.disabled = !connect.possible;
  if (!connect.possible) $('#woo-connect-error').textContent = connect.problem;
}

async function connectWooStore(event) {
  event.preventDefault();
  $('#woo-connect-error').textContent = '';
  $('#woo-merchant-link').hidden = true;
  // Connect: the operator approves in this browser. A link for its merchant: they approve, and their store's page opens.
  const forMerchant = event.submitter?.value === 'store-page';
  const { status, body } = await api('/stores/woocommerce/connect', {
    method: 'POST',
    body: JSON.stringify({ store: $('#woo-store').value.trim(), ...(forMerchant ? { landing: 'store-page' } : {}) }),
  });
  if (status !== 201) {
    $('#woo-connect-error').textContent = body.error ?? `The connect could not start (${status})`;
    return;
  }
  if (forMerchant) {
    $('#woo-merchant-link code').textContent = body.authorizeUrl;
    $('#woo-merchant-link').hidden = false;
    return;
  }
  // To the store's WordPress: log in there and approve; WooCommerce sends the browser back here.
  window.location.assign(body.authorizeUrl);
}

noteConnectReturn();
document.querySelector('#woo-connect-form').addEventListener('submit', (event) => connectWooStore(event));
