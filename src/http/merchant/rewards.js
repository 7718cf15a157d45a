// Rewards (Set up): what customers may turn their points into, saved as a whole list (each keeps its id across
// edits).
import { $, call, element, formProblems, toast } from './page.js';
import { putAskingScopes } from './scopes.js';

let rewards = [];

export async function loadRewards() {
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

/** What a reward gives, in words: "5.00 off" (reward-benefit.ts names the kinds). */
function benefitText(benefit) {
  switch (benefit?.kind) {
    case 'amount_off':
      return `${amount(benefit.amount)} off`;
    default:
      return 'a reward this page does not know yet: reload it';
  }
}

/** "500 points for 5.00 off, on orders of 50.00 or more · codes last 30 days · combines with …". */
function rewardText(reward) {
  const minimum = reward.minimumOrder ? `, on orders of ${amount(reward.minimumOrder)} or more` : '';
  const days = reward.expiresInDays === 1 ? '1 day' : `${count(reward.expiresInDays)} days`;
  return [
    `${count(reward.points)} points for ${benefitText(reward.benefit)}${minimum}`,
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

/** A refusal of the benefit's amount goes beside the amount's box. */
const fieldOf = (line) => line.replace(/^benefit\.amount: /, 'amountOff: ');

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
  const minimumOrder = value('minimumOrder');
  const reward = {
    points: value('points') === '' ? null : Number(value('points')),
    benefit: { kind: 'amount_off', amount: value('amountOff') },
    minimumOrder: minimumOrder === '' ? null : minimumOrder,
    expiresInDays: value('expiresInDays') === '' ? null : Number(value('expiresInDays')),
    combines: $('#reward-form [name="combines"]').checked,
    on: true,
  };
  if (await saveRewards([...rewards, reward], 'Reward added', true)) {
    for (const name of ['points', 'amountOff', 'minimumOrder']) $(`#reward-form [name="${name}"]`).value = '';
    // Back to the usual 30 days, as the form starts: an empty box reads as a default that is not one.
    $('#reward-form [name="expiresInDays"]').value = '30';
    $('#reward-form [name="combines"]').checked = false;
  }
});
