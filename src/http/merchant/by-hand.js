// By hand (Orders): points given or taken back by the merchant, and a customer's points looked up.
import { counted } from './figures.js';
import { $, call, formProblems, toast } from './page.js';

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
  return `${email}: ${balance}; ${counted((answer.earned ?? []).length, 'earning')}, ${counted((answer.redeemed ?? []).length, 'redemption')}`;
}
