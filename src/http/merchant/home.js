// Home: what needs the merchant's attention, and the account the shop earns on at a glance.
import { $, call, element } from './page.js';

/** Draws the view: merchant.js calls every view module's load. */
export const load = loadHome;

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
  const account = reach.account;
  // Its name and whether it works; its address and brand id are Set up's, where they are changed.
  $('#account-summary').textContent = account
    ? accountLine(account)
    : (reach.note ?? 'This shop earns on no loyalty account yet.');
  // Its calls against its limit, on an account of the shop's own (the operator's account is the operator's to watch).
  const usage = account && reach.may.read ? await call('/account/usage') : undefined;
  $('#account-usage').hidden = usage?.status !== 200;
  if (usage?.status === 200) $('#account-usage').replaceChildren(...budget(usage.body));
}

const NUMBERS = new Intl.NumberFormat();

/**
 * The account's calls in one short line with its bar, as the operator's dashboard shows a budget: "2 of 489 calls
 * this minute". The sentence on why it is under the service's limit is the bar's title, not a paragraph.
 */
function budget({ callsInLastMinute: calls, sentPerMinute: limit, words }) {
  const bar = document.createElement('meter');
  Object.assign(bar, { min: 0, max: limit, value: Math.min(calls, limit), low: limit * 0.5, high: limit * 0.9 });
  bar.optimum = 0;
  if (words) bar.title = words;
  bar.className = 'budget-bar';
  return [`${NUMBERS.format(calls)} of ${NUMBERS.format(limit)} calls this minute `, bar];
}

/** What each kind of trouble is called, in the merchant's words (src/services/merchant/attention.ts says why and the fix). */
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
  storefront_not_ready: 'Customers cannot see their points in your store',
};

/** Trouble that stops points is critical; a trial is news, not trouble. */
const ATTENTION_TONES = {
  dead_letters: 'critical',
  credentials_refused: 'critical',
  address_refused: 'critical',
  service_unreachable: 'critical',
  trial: 'info',
};

/** The account in one sentence a merchant reads: its name, whether its orders earn, and where to fix it if not. */
export function accountLine(account) {
  const trial = account.onBridgeSandbox ? ', a trial on the sandbox (its points are not real)' : '';
  const { status } = account.check ?? {};
  if (status === 'connected') return `Your orders earn on ${account.name}${trial}: it works.`;
  if (status === undefined) return `Your orders earn on ${account.name}${trial}: not checked yet.`;
  return `${account.name}${trial} does not work: ${checkText(account.check)}. Fix it in Set up.`;
}

export function checkText(check) {
  if (!check) return 'not checked yet';
  if (check.status === 'connected') return 'connected';
  if (check.status === 'refused') return 'the service refuses these credentials';
  return `the service could not be reached${check.detail ? ` (${check.detail})` : ''}`;
}
