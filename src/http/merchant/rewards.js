// Rewards (Set up): what customers may turn their points into, saved as a whole list (each keeps its id across
// edits).
import { $, call, element, formProblems, toast } from './page.js';
import { putAskingScopes } from './scopes.js';

let rewards = [];
/** Why the store cannot make a kind of reward, for each kind it cannot (the bridge’s `kinds`); empty: it makes all. */
let notMade = {};
/** What the merchant sets in the store first for a kind to work there (the bridge’s `kinds`), for each such kind. */
let setUpFirst = {};

export async function loadRewards() {
  const { status, body } = await call('/storefront/rewards');
  $('#rewards').hidden = status !== 200 || !body.offered;
  // Where the platform cannot keep a code to one customer, the merchant is told what holds instead.
  $('#rewards-who').textContent =
    body?.codesForOneCustomer === false
      ? 'it works once, for whoever enters it at checkout (your store cannot keep a code to one customer, so it is long, random, and shown only to them).'
      : 'only they can use it, once.';
  if (status === 200) {
    const each = (field) =>
      Object.fromEntries((body.kinds ?? []).flatMap((kind) => (kind[field] ? [[kind.kind, kind[field]]] : [])));
    notMade = each('notMade');
    setUpFirst = each('setUpFirst');
    showKind();
    showRewards(body.rewards ?? []);
  }
}

/** A number as the merchant reads it: 1,000 points; an amount with its two decimals, 1,000.00. */
const count = (number) => Number(number).toLocaleString('en-US');
const amount = (text) => Number(text).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** What a reward gives, in words: "5.00 off", "10% off", "free shipping" (reward-benefit.ts names the kinds). */
function benefitText(benefit) {
  switch (benefit?.kind) {
    case 'amount_off':
      return `${amount(benefit.amount)} off`;
    case 'percent_off':
      return `${benefit.percent}% off`;
    case 'free_shipping':
      return 'free shipping';
    default:
      return 'a reward this page does not know yet: reload it';
  }
}

/** A free-shipping code is itself the shipping discount: it combines with product discounts alone. */
const combinesWith = (benefit) =>
  benefit?.kind === 'free_shipping'
    ? 'combines with product discounts'
    : 'combines with product and shipping discounts';

/** "500 points for 5.00 off, on orders of 50.00 or more · codes last 30 days · combines with …". */
function rewardText(reward) {
  const minimum = reward.minimumOrder ? `, on orders of ${amount(reward.minimumOrder)} or more` : '';
  const days = reward.expiresInDays === 1 ? '1 day' : `${count(reward.expiresInDays)} days`;
  return [
    `${count(reward.points)} points for ${benefitText(reward.benefit)}${minimum}`,
    `codes last ${days}`,
    reward.combines ? combinesWith(reward.benefit) : 'combines with no other discount',
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

/** A refusal of the benefit goes beside its box: the amount's, the percentage's, or the kind's for the rest. */
const fieldOf = (line) =>
  line
    .replace(/^benefit\.amount: /, 'amountOff: ')
    .replace(/^benefit\.percent: /, 'percent: ')
    .replace(/^benefit: /, 'kind: ');

const kindField = () => $('#reward-form [name="kind"]');

/**
 * The box of the kind picked (the amount's, the percentage's, none for free shipping); a kind the store cannot make
 * says why beside the choice, and the form offers no Add for it.
 */
function showKind() {
  const kind = kindField().value || 'amount_off';
  for (const box of document.querySelectorAll('#reward-form [data-kind]')) box.hidden = box.dataset.kind !== kind;
  const why = notMade[kind];
  const note = $('#reward-kind-note');
  // The platform's words, as a sentence of their own, then what to do.
  note.textContent = why
    ? `${why[0].toUpperCase()}${why.slice(1).replace(/\.$/, '')}. Pick another kind of reward.`
    : '';
  note.hidden = !why;
  // The bridge's refusal of it, beside the choice, would say the same again.
  if (why) kindField().removeAttribute('error');
  const first = $('#reward-kind-first');
  first.textContent = why ? '' : (setUpFirst[kind] ?? '');
  first.hidden = Boolean(why) || !setUpFirst[kind];
  $('#add-reward').hidden = Boolean(why);
}
kindField().addEventListener('change', showKind);
kindField().addEventListener('input', showKind);

/** The benefit as the form reads it: a number typed as a percentage goes as a number, for the bridge to check. */
function benefitOf(kind, value) {
  switch (kind) {
    case 'percent_off':
      return { kind, percent: value('percent') === '' ? null : Number(value('percent')) };
    case 'free_shipping':
      return { kind };
    default:
      return { kind: 'amount_off', amount: value('amountOff') };
  }
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
    own.map((line) => fieldOf(line.slice(added.length))),
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
  const kind = value('kind') || 'amount_off';
  // Enter in a box sends the form even where Add is not offered: nothing is sent for a kind the store cannot make.
  if (notMade[kind]) return showKind();
  const minimumOrder = value('minimumOrder');
  const reward = {
    points: value('points') === '' ? null : Number(value('points')),
    benefit: benefitOf(kind, value),
    minimumOrder: minimumOrder === '' ? null : minimumOrder,
    expiresInDays: value('expiresInDays') === '' ? null : Number(value('expiresInDays')),
    combines: $('#reward-form [name="combines"]').checked,
    on: true,
  };
  if (await saveRewards([...rewards, reward], 'Reward added', true)) {
    for (const name of ['points', 'amountOff', 'percent', 'minimumOrder'])
      $(`#reward-form [name="${name}"]`).value = '';
    // Back to the usual 30 days, as the form starts: an empty box reads as a default that is not one.
    $('#reward-form [name="expiresInDays"]').value = '30';
    $('#reward-form [name="combines"]').checked = false;
  }
});
