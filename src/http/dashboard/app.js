// The dashboard: plain DOM, no build step. Everything shown comes from the admin API and is written with
// textContent, never as HTML: order data comes from stores and customers. The operator signs in with
// ADMIN_TOKEN and sees everything. A merchant has a page of their own instead (src/http/merchant/), and no
// shop's session is ever taken here. Each panel has its own script (index.html loads them before this one);
// this one signs in and out and refreshes them all every few seconds.
/* global $, api, TOKEN_KEY, token, loadPlatformLabels, loadStatus, loadOrders, loadRedeemedOnCancelled,
   loadDeadLetters, loadActivity, loadInstalls, loadStores, loadAccounts, loadPrivacy, showOrder, selectedOrder */
/* exported refresh, signOut */
let refreshTimer = null;

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
// A sign-in link (printed by the bridge in sandbox mode) carries the token in its fragment,
// which no browser sends to a server: kept for this tab, then taken out of the address bar.
// No shop's session is ever taken from an address: anyone could hand one to another browser.
const fromLink = new URLSearchParams(window.location.hash.slice(1)).get('token');
if (fromLink) {
  sessionStorage.setItem(TOKEN_KEY, fromLink);
  history.replaceState(null, '', window.location.pathname + window.location.search);
}
if (token()) signedIn();
