// The dashboard's "Give points by hand": points, not an activity id; the bridge picks the account's activity that
// gives exactly that many, or says which amounts can be given. The operator picks the shop the points are for, and
// the account is the one that shop earns on (a demo shop earns on a trial account of its own, not the default);
// with no shop, they pick the account. Loaded before app.js, whose helpers it uses once the page runs.
/* global $, api, counted, platformLabel */
/* exported fillByHandAccounts */

/** The shops as GET /shops last listed them, by the value of their choice. */
let byHandShops = new Map();
const NO_SHOP = '';

/** The account follows the shop chosen; with none, the operator chooses it. */
function followShop() {
  const shop = byHandShops.get($('#give-shop').value);
  const account = $('#give-account');
  if (shop?.account) account.value = shop.account;
  account.disabled = Boolean(shop);
}

/** The shops and accounts points may be given on, kept as the operator chose while the lists are drawn again. */
function fillByHandAccounts(accounts, shops) {
  const shopSelect = $('#give-shop');
  const account = $('#give-account');
  const [chosenShop, chosenAccount] = [shopSelect.value, account.value];
  const earning = shops.filter((shop) => shop.account);
  byHandShops = new Map(earning.map((shop) => [`${shop.platform}:${shop.shop}`, shop]));
  shopSelect.replaceChildren(
    ...earning.map(
      (shop) => new Option(`${platformLabel(shop.platform)}: ${shop.shop}`, `${shop.platform}:${shop.shop}`),
    ),
    new Option('none: choose the account', NO_SHOP),
  );
  account.replaceChildren(...accounts.map((each) => new Option(each.name, each.id)));
  // The first shop until the operator chooses; their choice stays while it is still listed.
  if (shopSelect.dataset.chosen && [...shopSelect.options].some((option) => option.value === chosenShop))
    shopSelect.value = chosenShop;
  if (accounts.some((each) => each.id === chosenAccount)) account.value = chosenAccount;
  followShop();
}

$('#give-shop').addEventListener('change', () => {
  $('#give-shop').dataset.chosen = 'yes';
  followShop();
});

document.querySelector('#give-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const value = (name) => $(`#give-form [name="${name}"]`).value.trim();
  const request = {
    ...Object.fromEntries(['name', 'email', 'mobile', 'reason'].map((name) => [name, value(name)])),
    points: Number(value('points')),
    account: value('account') || undefined,
  };
  const accountName = $('#give-account').selectedOptions[0]?.text ?? request.account;
  const { status, body } = await api('/adjustments/earn', { method: 'POST', body: JSON.stringify(request) });
  $('#give-result').textContent =
    status === 201
      ? `Gave ${counted(request.points, 'point')} to ${request.email}: activity ${body.adjustment.activityId} of ${accountName}.`
      : body.deadLetter
        ? `The loyalty service did not say whether the points were given: check the customer's points before trying again (kept under Dead letters).`
        : `No points given: ${body.error ?? (body.errors ?? []).join('; ')}`;
  if (status === 201) {
    // The customer's fields empty for the next; the shop chosen stays.
    const shop = $('#give-shop').value;
    $('#give-form').reset();
    $('#give-shop').value = shop;
    followShop();
  }
});
