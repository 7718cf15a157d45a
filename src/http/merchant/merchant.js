// The merchant's page inside a platform's admin: Polaris web components for what is drawn, the admin's own
// script for its parts (the title bar, the nav, toasts, a form's save bar) and the session token each call
// carries; the server's meta says which script that is (merchant-page.ts). Everything shown comes from the admin API's shop routes, which see this shop alone, and is
// written with textContent, never as HTML: orders come from customers.
const $ = (selector) => document.querySelector(selector);
const own = (name) => document.querySelector(`meta[name="loyalty-bridge-${name}"]`)?.getAttribute('content');
/**
 * Where the page is shown: inside a platform's admin, the global its script defines (session tokens, toasts,
 * the nav), named by the server; elsewhere the bridge's own stand-in, elements.js, with the session the bridge
 * handed the page.
 */
const platformHost = own('host') ? window[own('host')] : undefined;
const host = platformHost ?? window.loyaltyBridgeHost;
const EMBEDDED = Boolean(platformHost);
const VIEWS = ['home', 'setup', 'orders', 'privacy'];
/** Each view's address under the app's in the admin; elsewhere the nav's links go nowhere but to a view. */
const APP_PATH = own('app-path') ?? '/app';
/** What the nav sends a link that is clicked: the admin's own event, or elements.js's. */
const NAVIGATE = own('navigate-event') ?? 'loyalty-bridge:navigate';
/** A header whose 1 on a 401 asks for one more try with a fresh token (the admin's own), if the admin has one. */
const RETRY_HEADER = own('retry-header');
/** The settings the setup form shows, by the configuration's names. */
const SETTINGS = [
  'LOYALTY_EARN_ACTIVITY_ID',
  'LOYALTY_EARN_ACTIVITIES',
  'LOYALTY_ACTIVITY_POINTS',
  'EARN_TRIGGER',
  'MIN_ORDER_TOTAL',
  'REQUIRE_MOBILE',
  'EXCLUDED_SOURCES',
  'POINTS_PENDING_DAYS',
  'PARTIAL_REFUND',
  'COUNT_TEST_ORDERS',
];
/** The settings shown as on/off switches, each with its default (config/default.json's) for a new account. */
const SWITCHES = { REQUIRE_MOBILE: true, COUNT_TEST_ORDERS: false };
let account = null;

async function call(path, options = {}) {
  // Outside the admin with no session of its own, nothing is asked of the bridge: the page says where to sign in.
  if (host.signedIn === false) {
    const again = host.signInAgain;
    $('#notice').replaceChildren(
      `This page is not signed in: ${host.whereToSignIn}.`,
      ...(again ? [' ', element('a', 'Sign in', { href: again })] : []),
    );
    $('#notice').hidden = false;
    for (const section of document.querySelectorAll('[data-view]')) section.hidden = true;
    throw new Error('unauthorised');
  }
  const send = async () =>
    fetch(`/admin/api${path}`, {
      ...options,
      headers: {
        // App Bridge's session tokens live a minute: one is asked for each call.
        authorization: `Bearer ${await host.idToken()}`,
        'content-type': 'application/json',
        ...(options.headers ?? {}),
      },
    });
  let response = await send();
  // A session token refused on the way (expired, say) is tried once more with a fresh one, as the platform asks.
  if (response.status === 401 && RETRY_HEADER && response.headers.get(RETRY_HEADER) === '1') response = await send();
  if (response.status === 401) {
    const again = host.signInAgain;
    $('#notice').replaceChildren(
      again ? 'Your session has ended: ' : 'Your session could not be confirmed: reload the page.',
      ...(again ? [element('a', 'sign in again', { href: again })] : []),
    );
    $('#notice').hidden = false;
    throw new Error('unauthorised');
  }
  const body = await response.json().catch(() => ({}));
  return { status: response.status, body };
}

const toast = (message, isError = false) => host.toast.show(message, isError ? { isError: true } : {});

/**
 * What the bridge refused of a form, where it belongs: a line that names one of the form's fields ("brandId: is
 * required") beside that field, the rest in the form's own banner above its button. None: all of them cleared.
 */
function formProblems(form, lines) {
  for (const field of form.querySelectorAll('[name]')) field.removeAttribute('error');
  const rest = [];
  for (const line of lines.filter(Boolean)) {
    const [, name, message] = /^([A-Za-z_][\w]*): (.+)$/s.exec(line) ?? [];
    const field = name ? form.querySelector(`[name="${name}"]`) : null;
    if (field)
      field.setAttribute('error', field.hasAttribute('error') ? `${field.getAttribute('error')}; ${message}` : message);
    else rest.push(line);
  }
  const banner = form.querySelector('.form-errors');
  if (!banner) return;
  banner.textContent = rest.join('\n');
  banner.hidden = rest.length === 0;
}

// A field's error goes as soon as the merchant changes what it was about.
document.addEventListener('input', (event) => event.target.closest?.('[error]')?.removeAttribute('error'));

function element(tag, text, attributes = {}) {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = text;
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

// --- Views, switched in the page: App Bridge's nav asks by an event, a reload comes by the address.

function viewOf(path) {
  const name = path.startsWith(`${APP_PATH}/`) ? path.slice(APP_PATH.length + 1) : 'home';
  return VIEWS.includes(name) ? name : 'home';
}

async function show(view) {
  // What the last view said no longer holds here: its notice and its forms' errors go (a call of this view that
  // fails again says so again).
  $('#notice').hidden = true;
  host.toast.clear?.();
  for (const form of document.querySelectorAll('form')) formProblems(form, []);
  for (const section of document.querySelectorAll('[data-view]')) section.hidden = section.dataset.view !== view;
  // The nav's tab for this view, where the bridge's stand-in draws the nav (the admin marks its own).
  for (const link of document.querySelectorAll('s-app-nav s-link[data-nav]'))
    link.toggleAttribute('data-current', link.dataset.nav === view);
  const titles = { home: 'Loyalty points', setup: 'Set up', orders: 'Orders', privacy: 'Data requests' };
  $('#page').setAttribute('heading', titles[view]);
  delete $('#page').dataset.loaded;
  try {
    await { home: loadHome, setup: loadSetup, orders: loadOrders, privacy: loadDataRequests }[view]();
  } catch (error) {
    if (error.message !== 'unauthorised') toast('The page could not be loaded; try again.', true);
  }
  // Which view has all it asked for drawn (a test waits for it before its picture).
  $('#page').dataset.loaded = view;
}

function go(path) {
  // Inside the admin each view has its own address (a reload opens it again); elsewhere the page's own address
  // is the platform's callback, which a reload must ask for as it is.
  if (EMBEDDED) history.pushState(null, '', path);
  void show(viewOf(path));
}

document.addEventListener(NAVIGATE, (event) => {
  const href = event.target.getAttribute('href');
  if (href) go(href);
});
// Only now the nav: App Bridge shows it in the admin as soon as it is in the page, and a click before this listener
// would be lost (the merchant would ask for Orders and stay on Home).
const nav = $('#app-nav').content.cloneNode(true);
for (const link of nav.querySelectorAll('s-link[data-nav]'))
  link.setAttribute('href', link.dataset.nav === 'home' ? APP_PATH : `${APP_PATH}/${link.dataset.nav}`);
document.body.prepend(nav);
window.addEventListener('popstate', () => void show(viewOf(location.pathname)));
$('#go-setup').addEventListener('click', () => go(`${APP_PATH}/setup`));

// --- Home: what needs attention, and the account.

async function loadHome() {
  const [{ body: attention }, { body: reach }] = await Promise.all([call('/attention'), call('/account')]);
  const list = $('#attention');
  list.replaceChildren(
    ...(attention.attention ?? []).map((item) => {
      const banner = element('s-banner', undefined, {
        tone: ATTENTION_TONES[item.kind] ?? 'warning',
        heading: ATTENTION_TITLES[item.kind] ?? 'Needs your attention',
        class: 'item',
        'data-kind': item.kind,
      });
      banner.append(element('s-paragraph', item.why), element('s-paragraph', item.fix));
      return banner;
    }),
  );
  $('#all-well').hidden = (attention.attention ?? []).length > 0;
  account = reach.account;
  $('#account-summary').textContent = account
    ? `${account.name} at ${account.baseUrl}, brand ${account.brandId}: ${checkText(account.check)}`
    : (reach.note ?? 'This shop earns on no loyalty account yet.');
  // Its calls against its limit, on an account of the shop's own (the operator's account is the operator's to watch).
  const usage = account && reach.may.read ? await call('/account/usage') : undefined;
  $('#account-usage').hidden = usage?.status !== 200;
  if (usage?.status === 200)
    $('#account-usage').textContent =
      `Calls to the loyalty service: ${usage.body.words ?? `${usage.body.callsInLastMinute} in the last minute, of the ${usage.body.allowedPerMinute} a minute it allows.`}`;
}

/** What each kind of trouble is called, in the merchant's words (shop-attention.ts says why and the fix). */
const ATTENTION_TITLES = {
  no_account: 'No loyalty account yet',
  credentials_refused: 'The loyalty service refuses the account’s credentials',
  service_unreachable: 'The loyalty service cannot be reached',
  no_access: 'The app has no access to your store',
  missing_scope: 'The app lacks a permission',
  protected_data_hidden: 'Customer data is withheld',
  dead_letters: 'Some orders could not go on',
  rule_paused: 'A rule of your program is off',
  address_refused: 'The app will not send points to your loyalty service’s address',
  budget_spent: 'Your orders wait for calls to the loyalty service',
  trial: 'You are not live yet',
};

/** Trouble that stops points is critical; a trial is news, not trouble. */
const ATTENTION_TONES = {
  dead_letters: 'critical',
  credentials_refused: 'critical',
  address_refused: 'critical',
  service_unreachable: 'critical',
  trial: 'info',
};

function checkText(check) {
  if (!check) return 'not checked yet';
  if (check.status === 'connected') return 'connected';
  if (check.status === 'refused') return 'the service refuses these credentials';
  return `the service could not be reached${check.detail ? ` (${check.detail})` : ''}`;
}

// --- Set up: one form, a new account or the shop's own.

const field = (name) => $(`#account-form [name="${name}"]`);

async function loadSetup() {
  const form = $('#account-form');
  // Hidden while it loads: a value typed now would be overwritten by what is saved.
  form.hidden = true;
  form.dataset.state = 'loading';
  const { body: reach } = await call('/account');
  account = reach.account;
  const note = $('#setup-note');
  note.hidden = !reach.note || (reach.may.create && !account);
  // The API's words fit inside a refusal ("…: this shop earns on…"); on their own, a sentence.
  note.textContent = reach.note ? `${reach.note.charAt(0).toUpperCase()}${reach.note.slice(1)}.` : '';
  let settings = {};
  if (account && reach.may.read) {
    const answer = await call('/account/settings');
    // A form filled without them would save every rule back to its default: not shown at all, and said why.
    if (answer.status !== 200 || !answer.body.settings) throw new Error('settings not read');
    settings = answer.body.settings;
  }
  if (reach.may.change || reach.may.create) fill(account, settings);
  form.hidden = !(reach.may.change || reach.may.create);
  form.dataset.state = 'ready';
  // A test order, once there is an account of the shop's own to earn on.
  $('#try-it').hidden = !(account && reach.may.change);
  // Before there is one, the bridge's sandbox may stand in for the merchant's service.
  $('#sandbox-choice').hidden = !(!account && reach.may.create && reach.sandboxTrial);
  $('#trial-note').hidden = !account?.onBridgeSandbox;
  await loadStorefront();
}

// --- The storefront: off until the merchant turns it on; turning it on may first ask the admin to grant what it needs.

async function loadStorefront() {
  const { status, body } = await call('/storefront');
  $('#storefront').hidden = status !== 200 || !body.offered;
  $('#storefront-switch').checked = body.on === true;
  showWidget(body.widget);
  showPlugin(body.plugin);
  await loadRewards();
}

/** Where the merchant pastes the plugin's code, in their platform's words (the storefront's answer says). */
let pasteWhere = '';

/** Where the store needs our plugin: its download, and the button that makes a one-time connection code. */
function showPlugin(plugin) {
  $('#plugin-connect').hidden = !plugin;
  if (!plugin) return;
  const link = $('#plugin-download');
  link.hidden = !plugin.download;
  $('#plugin-how').textContent = plugin.download?.howTo ?? '';
  pasteWhere = plugin.download?.pasteWhere ?? 'where the plugin asks for it';
  if (plugin.download) {
    link.href = plugin.download.path;
    link.textContent = `Download the plugin (version ${plugin.download.version})`;
  }
}

$('#plugin-code-button').addEventListener('click', async () => {
  const { status, body } = await call('/storefront/plugin-code', { method: 'POST' });
  const field = $('#plugin-code');
  const note = $('#plugin-code-note');
  if (status !== 200) {
    note.textContent = body?.errors?.join(' ') ?? 'The code could not be made. Try again in a moment.';
    note.hidden = false;
    return;
  }
  field.value = body.code;
  field.hidden = false;
  const until = new Date(body.expiresAt).toLocaleTimeString('en-US', { timeStyle: 'short' });
  note.textContent = `Paste it ${pasteWhere} before ${until}; it works once. A new code replaces this one.`;
  note.hidden = false;
});

/** Where the bridge puts the launcher on the store: whether it is there, put back, or why not yet. */
function showWidget(widget) {
  const banner = $('#storefront-widget');
  const problem = widget && !widget.onStore ? widget.problem : undefined;
  const putBack = widget?.onStore && widget.putBackAt ? new Date(widget.putBackAt) : undefined;
  banner.setAttribute('tone', problem ? 'warning' : 'info');
  banner.textContent = problem
    ? problem
    : putBack
      ? `Someone removed the points launcher from your store's scripts; the bridge put it back on ${putBack.toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' })}. To take it off your store, turn this switch off.`
      : widget?.onStore
        ? "The points launcher is on your store's pages: the bridge added it to your store's scripts, and takes it off when you turn this off."
        : '';
  banner.hidden = banner.textContent === '';
}

function storefrontProblem(lines) {
  const banner = $('#storefront-problem');
  banner.textContent = lines.filter(Boolean).join(' ');
  banner.hidden = banner.textContent === '';
}

/**
 * PUTs `request` to `path`; a 409 naming scopes the install lacks asks the platform's admin for them, where its
 * script can ask (the merchant approves there), and once approved the PUT is sent again.
 */
async function putAskingScopes(path, request) {
  const put = () => call(path, { method: 'PUT', body: JSON.stringify(request) });
  let { status, body } = await put();
  const ask = host.scopes?.request;
  if (status === 409 && body.missingScopes?.length > 0 && ask) {
    const granted = await Promise.resolve(ask.call(host.scopes, body.missingScopes)).catch(() => undefined);
    if (granted?.result !== 'declined-all') ({ status, body } = await put());
  }
  return { status, body };
}

async function turnStorefront(on) {
  const { status, body } = await putAskingScopes('/storefront', { on });
  storefrontProblem(
    status === 200 ? [] : [...(body?.errors ?? [body?.error ?? 'The switch could not be saved.']), body?.fix],
  );
  if (status === 200) {
    $('#storefront-switch').checked = body.on;
    showWidget(body.widget);
    return toast(on ? 'Customers now see their points in your store' : 'Customers no longer see their points');
  }
  // Any other answer (a refusal, a write that failed, a lost connection) may not say what is saved: read it again.
  const saved = await call('/storefront');
  $('#storefront-switch').checked = saved.status === 200 ? saved.body.on === true : !on;
}

$('#storefront-switch').addEventListener('change', (event) => void turnStorefront(event.target.checked));

// --- Rewards: what customers may turn their points into, saved as a whole list (each keeps its id across edits).

let rewards = [];

async function loadRewards() {
  const { status, body } = await call('/storefront/rewards');
  $('#rewards').hidden = status !== 200 || !body.offered;
  // Where the platform cannot keep a code to one customer, the merchant is told what holds instead.
  $('#rewards-who').textContent =
    body?.codesForOneCustomer === false
      ? 'it works once, for whoever enters it at checkout (your store cannot keep a code to one customer, so it is long, random, and shown only to them).'
      : 'only they can use it, once.';
  if (status === 200) showRewards(body.rewards ?? []);
}

/** A number as the merchant reads it: 1,000 points; an amount with its two decimals, 1,000.00. */
const count = (number) => Number(number).toLocaleString('en-US');
const amount = (text) => Number(text).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** "500 points for 5.00 off, on orders of 50.00 or more · codes last 30 days · combines with …". */
function rewardText(reward) {
  const minimum = reward.minimumOrder ? `, on orders of ${amount(reward.minimumOrder)} or more` : '';
  const days = reward.expiresInDays === 1 ? '1 day' : `${count(reward.expiresInDays)} days`;
  return [
    `${count(reward.points)} points for ${amount(reward.amountOff)} off${minimum}`,
    `codes last ${days}`,
    reward.combines ? 'combines with product and shipping discounts' : 'combines with no other discount',
  ].join(' · ');
}

function showRewards(list) {
  rewards = list;
  $('#no-rewards').hidden = list.length > 0;
  $('#reward-list').replaceChildren(
    ...list.map((reward) => {
      const item = element('li', undefined, { class: 'reward', 'data-reward': reward.id });
      const words = element('span', rewardText(reward), { class: 'reward-words' });
      const state = element('s-badge', reward.on ? 'On' : 'Off', { tone: reward.on ? 'success' : 'neutral' });
      // Each button names its reward to a screen reader: "Remove" alone does not say which.
      const named = (action) => ({ variant: 'secondary', accessibilitylabel: `${action}: ${rewardText(reward)}` });
      const turn = element('s-button', reward.on ? 'Turn off' : 'Turn on', named(reward.on ? 'Turn off' : 'Turn on'));
      turn.addEventListener('click', () =>
        saveRewards(
          rewards.map((each) => (each.id === reward.id ? { ...each, on: !each.on } : each)),
          reward.on ? 'Reward turned off' : 'Reward turned on',
        ),
      );
      const remove = element('s-button', 'Remove', { ...named('Remove'), tone: 'critical' });
      remove.addEventListener('click', () =>
        saveRewards(
          rewards.filter((each) => each.id !== reward.id),
          'Reward removed',
        ),
      );
      const actions = element('span', undefined, { class: 'reward-actions' });
      actions.append(state, turn, remove);
      item.append(words, actions);
      return item;
    }),
  );
}

/**
 * Saves the whole list. A refused key of the reward being added ("rewards.2.points: …") goes beside its field in
 * the add form; every other refusal, in words with its fix, above it. True once saved.
 */
async function saveRewards(list, done, adding = false) {
  const { status, body } = await putAskingScopes('/storefront/rewards', { rewards: list });
  const lines = status === 200 ? [] : (body?.errors ?? [body?.error ?? 'The rewards could not be saved.']);
  const added = `rewards.${list.length - 1}.`;
  const own = adding ? lines.filter((line) => line.startsWith(added)) : [];
  formProblems(
    $('#reward-form'),
    own.map((line) => line.slice(added.length)),
  );
  const rest = lines.filter((line) => !own.includes(line));
  const problem = $('#rewards-problem');
  problem.textContent = [...rest, ...(status === 200 ? [] : [body?.fix])].filter(Boolean).join(' ');
  problem.hidden = problem.textContent === '';
  if (status === 200) {
    showRewards(body.rewards ?? []);
    toast(done);
    return true;
  }
  toast(adding ? 'Not added: see what to correct' : 'Not saved: see why', true);
  // A refusal may follow a change from another tab: what is saved is shown again.
  await loadRewards();
  return false;
}

$('#reward-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const value = (name) => $(`#reward-form [name="${name}"]`).value.trim();
  const minimumOrder = value('minimumOrder');
  const reward = {
    points: value('points') === '' ? null : Number(value('points')),
    amountOff: value('amountOff'),
    minimumOrder: minimumOrder === '' ? null : minimumOrder,
    expiresInDays: value('expiresInDays') === '' ? null : Number(value('expiresInDays')),
    combines: $('#reward-form [name="combines"]').checked,
    on: true,
  };
  if (await saveRewards([...rewards, reward], 'Reward added', true)) {
    for (const name of ['points', 'amountOff', 'minimumOrder', 'expiresInDays'])
      $(`#reward-form [name="${name}"]`).value = '';
    $('#reward-form [name="combines"]').checked = false;
  }
});

$('#try-sandbox').addEventListener('click', async () => {
  const { status, body } = await call('/account', { method: 'POST', body: JSON.stringify({ sandbox: true }) });
  if (status !== 201) return toast(body.errors?.[0] ?? body.error ?? 'The sandbox account was not made', true);
  toast('You are trying it on the sandbox');
  await loadSetup();
});

function fill(current, settings) {
  field('name').value = current?.name ?? '';
  field('baseUrl').value = current?.baseUrl ?? '';
  field('apiKey').value = '';
  field('apiKey').setAttribute(
    'details',
    current ? `Kept: ends in ${current.apiKeyHint ?? '…'}. Enter a new one to change it.` : 'From your loyalty service',
  );
  field('brandId').value = current?.brandId ?? '';
  field('rateLimitPerMinute').value = String(current?.rateLimitPerMinute ?? 500);
  for (const name of SETTINGS) {
    const value = settings[name];
    if (name in SWITCHES) field(name).checked = (value ?? SWITCHES[name]) === true;
    else if (name === 'EXCLUDED_SOURCES') field(name).value = (value ?? []).join(',');
    // Spend bands come as a list, and are written as the setting is: 0=1,50=7.
    else if (Array.isArray(value)) field(name).value = value.map((band) => `${band.from}=${band.activityId}`).join(',');
    // Points per activity come as an object, and are written as the setting is: 1=100,7=250.
    else if (value && typeof value === 'object')
      field(name).value = Object.entries(value)
        .map(([activity, points]) => `${activity}=${points}`)
        .join(',');
    else field(name).value = value === undefined || value === null ? '' : String(value);
  }
  $('#account-check').textContent = current ? `Credentials: ${checkText(current.check)}` : '';
  formProblems($('#account-form'), []);
}

function formValues() {
  const credentials = {
    name: field('name').value.trim(),
    baseUrl: field('baseUrl').value.trim(),
    brandId: field('brandId').value.trim(),
    rateLimitPerMinute: Number(field('rateLimitPerMinute').value),
  };
  const apiKey = field('apiKey').value;
  if (apiKey) credentials.apiKey = apiKey;
  const settings = {};
  for (const name of SETTINGS) {
    if (name in SWITCHES) settings[name] = field(name).checked ? 'yes' : 'no';
    // A field emptied puts its rule back to its default (spend bands: none, the one activity again).
    else settings[name] = field(name).value.trim();
  }
  return { credentials, settings };
}

$('#account-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const { credentials, settings } = formValues();
  let answers;
  if (account) {
    answers = [
      await call('/account', { method: 'PATCH', body: JSON.stringify(credentials) }),
      await call('/account/settings', { method: 'PATCH', body: JSON.stringify(settings) }),
    ];
  } else {
    answers = [await call('/account', { method: 'POST', body: JSON.stringify({ ...credentials, settings }) })];
  }
  const refused = answers.find((answer) => answer.status >= 400);
  if (refused) {
    // One line per bad key, as the API says them: each beside its field.
    formProblems($('#account-form'), refused.body.errors ?? [refused.body.error]);
    toast('Not saved: see what to correct', true);
    return;
  }
  // Saved either way; the service's answer to the credentials says whether orders will earn.
  const check = answers[0].body.account?.check;
  if (check && check.status !== 'connected') toast(`Saved, but ${checkText(check)}`, true);
  else toast(account ? 'Saved' : 'Your loyalty account is set up');
  await loadSetup();
});
$('#account-form').addEventListener('reset', (event) => {
  // Discard, from the save bar: the form shows what is saved again.
  event.preventDefault();
  void loadSetup();
});

// --- Try it: a test order, followed until its points are earned (or it is skipped, and why).

let testOrder = null;

$('#send-test-order').addEventListener('click', async () => {
  const { status, body } = await call('/test-orders', { method: 'POST' });
  if (status !== 202) return toast(body.errors?.[0] ?? body.error ?? 'The test order was not sent', true);
  testOrder = body.testOrder;
  toast('Test order sent');
  $('#cancel-test-order').hidden = true;
  await followTestOrder(testOrder, ['earned', 'approved']);
});

$('#cancel-test-order').addEventListener('click', async () => {
  if (!testOrder) return;
  const { status } = await call(`/test-orders/${encodeURIComponent(testOrder.orderId)}/cancel`, { method: 'POST' });
  if (status !== 202) return toast('The test order was not cancelled', true);
  $('#cancel-test-order').hidden = true;
  await followTestOrder(testOrder, ['cancelled']);
});

/**
 * The order's points as a number, and while they are pending, until when or what, in the state's own words:
 * "earned 100 points, pending until the order is fulfilled."
 */
function testOrderPoints(record) {
  const text = record?.points?.text;
  if (!text) return undefined;
  const until = /^Points earned, (pending .*)$/.exec(record.words?.says ?? '')?.[1];
  return until && text.endsWith(', pending') ? `${text.slice(0, -', pending'.length)}, ${until}` : `${text}.`;
}

/** Shows where the order's points are, each second, until they reach one of `until` or the order stops. */
async function followTestOrder(order, until) {
  const status = $('#test-order-status');
  for (let tries = 0; tries < 60; tries++) {
    const { status: found, body } = await call(`/orders/${encodeURIComponent(order.key)}`);
    const record = found === 200 ? body.order : null;
    const points = record?.upstream?.points ?? 'none';
    const skipped = record?.target?.state === 'skipped' ? record.target.reason : null;
    status.textContent = skipped
      ? `${order.orderName}: ${statusText(record)}`
      : `${order.orderName}: ${testOrderPoints(record) ?? `${record?.serviceWords?.points ?? 'not read yet'}.`}`;
    status.dataset.points = skipped ? 'skipped' : points;
    if (skipped || until.includes(points)) {
      $('#cancel-test-order').hidden = skipped !== null || points === 'cancelled';
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

// --- Orders: recent orders, and what could not go on.

async function loadOrders() {
  const [{ body: orders }, { body: letters }, { body: resyncs }] = await Promise.all([
    call('/orders?limit=20&page=1'),
    call('/dead-letters'),
    call('/resync'),
  ]);
  const latest = (resyncs.jobs ?? [])[0];
  showResync(latest);
  if (latest?.status === 'running') void followResync(latest.id);
  const held = letters.deadLetters ?? [];
  // An order whose call the service refused reads as its plan ("earned", points "none yet"): the badge says it is
  // held, and its letter below says why.
  const heldOrders = new Set(held.map((letter) => letter.orderKey).filter(Boolean));
  // Each cell with its column's name, which a phone shows beside it where the rows stand one under another.
  const [orderLabel = {}, customerLabel = {}, statusLabel = {}, pointsLabel = {}] = [
    ...($('#orders s-table-header-row')?.children ?? []),
  ].map((header) => ({ 'data-label': header.textContent }));
  $('#orders s-table-body').replaceChildren(
    ...(orders.orders ?? []).map((order) => {
      const row = element('s-table-row', undefined, { 'data-order': order.orderId });
      const status = element('s-table-cell', statusText(order), statusLabel);
      if (heldOrders.has(order.key)) status.append(' ', element('s-badge', 'Held: see below', { tone: 'critical' }));
      row.append(
        element('s-table-cell', order.orderName || order.orderId, orderLabel),
        element('s-table-cell', order.email ?? order.mobile ?? '', customerLabel),
        status,
        element('s-table-cell', order.points.text, pointsLabel),
      );
      return row;
    }),
  );
  $('#no-dead-letters').hidden = held.length > 0;
  $('#dead-letters').replaceChildren(
    ...held.map((letter) => {
      const banner = element('s-banner', undefined, { tone: 'critical', heading: letterTitle(letter), class: 'item' });
      banner.append(element('s-paragraph', letter.reason));
      const retry = element('s-button', 'Send again', { slot: 'secondary-actions', 'data-letter': letter.id });
      retry.addEventListener('click', async () => {
        const { status, body } = await call(`/dead-letters/${encodeURIComponent(letter.id)}/retry`, { method: 'POST' });
        toast(status === 200 ? 'Sent again' : (body.errors?.[0] ?? body.error ?? 'Not sent again'), status !== 200);
        await loadOrders();
      });
      banner.append(retry);
      return banner;
    }),
  );
}

// --- Read orders again: a window of the shop's orders, with its progress until it ends.

const dayOf = (date) => date.toISOString().slice(0, 10);
let followed = null;

$('#resync-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const since = $('#resync-form [name="since"]').value;
  const until = $('#resync-form [name="until"]').value;
  const request = { since, ...(until ? { until } : {}) };
  const { status, body } = await call('/resync', { method: 'POST', body: JSON.stringify(request) });
  formProblems($('#resync-form'), status === 202 ? [] : (body.errors ?? [body.error]));
  if (status !== 202) return toast('Not started: see why', true);
  toast('Reading your orders again');
  showResync(body.job);
  void followResync(body.job.id);
});

/** Asks for the job's progress each second until it ends, then shows the orders it brought. */
async function followResync(id) {
  if (followed === id) return;
  followed = id;
  while (followed === id) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { status, body } = await call(`/resync/${encodeURIComponent(id)}`);
    if (status !== 200 || followed !== id) break;
    showResync(body.job);
    if (body.job.status !== 'running') {
      followed = null;
      toast(
        body.job.status === 'done' ? 'Your orders were read again' : 'Reading your orders stopped',
        body.job.status !== 'done',
      );
      await loadOrders();
    }
  }
}

function showResync(job) {
  const since = $('#resync-form [name="since"]');
  // A week back, to begin with: the window a missed notification usually falls in.
  if (!since.value) since.value = dayOf(new Date(Date.now() - 7 * 86_400_000));
  const bar = $('#resync-progress');
  bar.hidden = job?.status !== 'running';
  const { fetched = 0, expected, changed = 0, unchanged = 0, failed = 0, errors = [] } = job?.progress ?? {};
  if (expected) {
    bar.setAttribute('max', String(expected));
    bar.setAttribute('value', String(fetched));
  } else bar.removeAttribute('value');
  $('#resync-status').textContent = !job
    ? ''
    : job.status === 'running'
      ? `Reading the orders since ${job.request.since?.slice(0, 10)}: ${fetched}${expected ? ` of ${expected}` : ''} read, ${changed} new or changed.`
      : job.status === 'done'
        ? `Last read ${new Date(job.finishedAt).toLocaleString()}: ${fetched} order${fetched === 1 ? '' : 's'}, ${changed} new or changed (their points follow), ${unchanged} already known${failed ? `, ${failed} failed (${errors[0] ?? 'no reason given'})` : ''}.`
        : `Reading the orders stopped: ${errors[0] ?? 'no reason given'}.`;
  $('#resync-status').dataset.status = job?.status ?? 'none';
}

$('#give-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const value = (name) => $(`#give-form [name="${name}"]`).value.trim();
  const request = Object.fromEntries(['name', 'email', 'mobile', 'reason'].map((name) => [name, value(name)]));
  request.points = Number(value('points'));
  const answer = await call('/adjustments/earn', { method: 'POST', body: JSON.stringify(request) });
  byHandAnswered('give', answer, 'Points given', 'No points given: see why', 'given');
});

$('#take-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const value = (name) => $(`#take-form [name="${name}"]`).value.trim();
  const request = { email: value('email'), points: Number(value('points')), reason: value('reason') };
  const answer = await call('/adjustments/redeem', { method: 'POST', body: JSON.stringify(request) });
  byHandAnswered('take', answer, 'Points taken back', 'No points taken: see why', 'taken');
});

/**
 * What came of points given or taken by hand. An outcome the service left
 * unknown (no answer, a 5xx) may have been applied: the merchant is told to
 * check before sending it again, since a second one would count twice.
 */
function byHandAnswered(form, { status, body }, done, refused, verb) {
  const unknown = body.adjustment?.outcome === 'unknown';
  formProblems(
    $(`#${form}-form`),
    status === 201
      ? []
      : unknown
        ? [
            `The loyalty service did not say whether the points were ${verb}: look up the customer's points before trying again (it is kept under "Could not go on").`,
          ]
        : (body.errors ?? [body.error]),
  );
  toast(status === 201 ? done : unknown ? `Points may have been ${verb}: check first` : refused, status !== 201);
}

$('#lookup-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const email = $('#lookup-form [name="email"]').value.trim();
  const { status, body } = await call(`/customers/points?email=${encodeURIComponent(email)}&type=all`);
  $('#lookup-result').textContent =
    status === 200 ? pointsSummary(email, body) : (body.errors?.[0] ?? body.error ?? 'The lookup failed');
});

/** The service's answer in a line: the balance it gives, and how many earnings and redemptions. */
function pointsSummary(email, answer) {
  const balance =
    typeof answer.balance === 'object' && answer.balance !== null
      ? Object.entries(answer.balance)
          .map(([name, points]) => `${name} ${points}`)
          .join(', ')
      : String(answer.balance ?? 'unknown');
  return `${email}: ${balance}; ${(answer.earned ?? []).length} earnings, ${(answer.redeemed ?? []).length} redemptions`;
}

/** The order's state and reason in words, with the fix (the API's words: the page shows no code). */
const statusText = (order) => `${order.words.says}${order.words.fix ? ` Fix: ${order.words.fix}.` : ''}`;
const letterTitle = (letter) =>
  letter.orderKey
    ? `Order ${letter.orderName ?? letter.orderKey.split(':').pop()}: ${letter.callWords ?? 'a call'}`
    : letter.callWords
      ? `A change: ${letter.callWords}`
      : 'A delivery';

// --- Data requests: export, then mark answered.

async function loadDataRequests() {
  const { body } = await call('/privacy/data-requests');
  const requests = body.dataRequests ?? [];
  $('#no-data-requests').hidden = requests.length > 0;
  $('#data-requests').replaceChildren(
    ...requests.map((request) => {
      const who = request.customer?.email ?? request.customer?.phone ?? 'a customer';
      const banner = element('s-banner', undefined, {
        tone: 'info',
        heading: `${who}, asked ${new Date(request.receivedAt).toLocaleDateString()}`,
        class: 'item',
        'data-request': request.id,
      });
      const exportButton = element('s-button', 'Export their data', { slot: 'secondary-actions' });
      exportButton.addEventListener('click', () => void exportRequest(request));
      const answered = element('s-button', 'Mark answered', { slot: 'secondary-actions' });
      answered.addEventListener('click', async () => {
        const { status } = await call(`/privacy/data-requests/${encodeURIComponent(request.id)}`, { method: 'DELETE' });
        toast(status === 200 ? 'Marked answered' : 'Not marked answered', status !== 200);
        await loadDataRequests();
      });
      banner.append(exportButton, answered);
      return banner;
    }),
  );
}

async function exportRequest(request) {
  const { status, body } = await call(`/privacy/data-requests/${encodeURIComponent(request.id)}/export`);
  if (status !== 200) return toast('The export failed', true);
  const link = element('a', undefined, {
    href: URL.createObjectURL(new Blob([JSON.stringify(body, null, 2)], { type: 'application/json' })),
    download: `data-request-${request.requestId ?? request.id}.json`,
  });
  link.click();
  // Not at once: the browser may not have begun to read the file when click() returns.
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  toast('Exported: send the file to the customer');
}

// Outside the admin, nothing else says whose page this is: a session of another store must not pass for one's own.
if (!EMBEDDED && host.signedIn)
  void call('/session').then(({ status, body }) => {
    if (status !== 200) return;
    $('#signed-in').textContent = `Signed in to ${body.storeName ?? body.shop}`;
    $('#signed-in').hidden = false;
  });
void show(viewOf(location.pathname));
