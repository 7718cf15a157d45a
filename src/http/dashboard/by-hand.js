// The dashboard's "Give points by hand": points, not an activity id; the bridge picks the account's activity that
// gives exactly that many, or says which amounts can be given. Loaded before app.js, whose helpers it uses once
// the page runs.
/* global $, api */
/* exported fillByHandAccounts */

/** The accounts points may be given on, kept as the operator chose while the list is drawn again. */
function fillByHandAccounts(accounts) {
  const select = $('#give-account');
  const chosen = select.value;
  select.replaceChildren(...accounts.map((account) => new Option(account.name, account.id)));
  if (accounts.some((account) => account.id === chosen)) select.value = chosen;
}

document.querySelector('#give-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const value = (name) => $(`#give-form [name="${name}"]`).value.trim();
  const request = {
    ...Object.fromEntries(['name', 'email', 'mobile', 'reason'].map((name) => [name, value(name)])),
    points: Number(value('points')),
    account: value('account') || undefined,
  };
  const { status, body } = await api('/adjustments/earn', { method: 'POST', body: JSON.stringify(request) });
  $('#give-result').textContent =
    status === 201
      ? `Gave ${request.points} points to ${request.email} (activity ${body.adjustment.activityId}).`
      : body.deadLetter
        ? `The loyalty service did not say whether the points were given: check the customer's points before trying again (kept under Dead letters).`
        : `No points given: ${body.error ?? (body.errors ?? []).join('; ')}`;
  if (status === 201) $('#give-form').reset();
});
