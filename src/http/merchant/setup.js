// Set up: one form, a new account or the shop's own, with its rules; the sandbox trial before there is one.
import { $, call, formProblems, toast } from './page.js';
import { checkText } from './home.js';
import { loadStorefront } from './storefront.js';
import { ruleRows } from './rule-rows.js';
// Its Try it section's buttons.
import './try-it.js';

/**
 * The rules the setup form shows, by the configuration's names (the API's; never shown to the merchant): each field
 * of the rules' section names its own (index.html), so a new rule is one field there. A switch's default for a new
 * account is its `data-default` (config/default.json's); a list is written comma-separated (`data-list`).
 */
const SETTINGS = [...$('#program-rules').querySelectorAll('[name], [data-setting]')].map(
  (each) => each.getAttribute('name') ?? each.dataset.setting,
);
const isSwitch = (name) => field(name)?.localName === 's-switch';
const isList = (name) => field(name)?.dataset.list !== undefined;
let account = null;

const field = (name) => $(`#account-form [name="${name}"]`);
/** The two rules of pairs, a row each in words. */
const RULES = {
  LOYALTY_EARN_ACTIVITIES: ruleRows($('#spend-bands'), {
    first: { label: 'From an order total of', kind: 'number' },
    second: { label: 'Activity', kind: 'text' },
    said: (from, activity) => `Orders of ${from} or more earn under activity ${activity}.`,
  }),
  LOYALTY_ACTIVITY_POINTS: ruleRows($('#activity-points'), {
    first: { label: 'Activity', kind: 'text' },
    second: { label: 'Points', kind: 'number' },
    said: (activity, points) => `Activity ${activity} gives ${points} point${points === '1' ? '' : 's'}.`,
  }),
};

/** Draws the view: merchant.js calls every view module's load. */
export const load = loadSetup;

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
    if (isSwitch(name)) field(name).checked = (value ?? field(name).dataset.default === 'on') === true;
    else if (isList(name)) field(name).value = (value ?? []).join(',');
    // Spend bands come as a list, points per activity as an object: a row each.
    else if (name === 'LOYALTY_EARN_ACTIVITIES')
      RULES[name].set((value ?? []).map((band) => [band.from, band.activityId]));
    // None yet: one empty row, so the rule's shape shows in words ("Activity … gives … points").
    else if (name === 'LOYALTY_ACTIVITY_POINTS') {
      const pairs = Object.entries(value ?? {});
      RULES[name].set(pairs.length > 0 ? pairs : [['', '']]);
    } else if (value === undefined || value === null) {
      // A choice with nothing saved shows the default, which each list gives first (docs/configuration.md).
      const first = field(name).querySelector('s-option');
      field(name).value = field(name).localName === 's-select' && first ? first.getAttribute('value') : '';
    } else field(name).value = String(value);
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
    if (isSwitch(name)) settings[name] = field(name).checked ? 'yes' : 'no';
    else if (name in RULES) settings[name] = RULES[name].get();
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
