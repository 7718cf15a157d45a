// An account's points each activity gives, one row each, in words: "Activity [1] gives [100] points", as the
// merchant's Set up shows them. The API keeps the setting as the configuration writes it (1=100,7=250); the
// operator reads and types the rows, and the form sends that text. Loaded before accounts.js, which uses it.
/* exported pointsRows */

/** Rows in `form`'s `.rows`, filled with `entries` ([activity, points] pairs); its `.add-row` adds an empty one. */
function pointsRows(form, entries, changed) {
  const rows = form.querySelector('.rows');
  const field = (label, value) => {
    const input = document.createElement('input');
    Object.assign(input, { value, autocomplete: 'off', inputMode: 'numeric', size: 5 });
    input.setAttribute('aria-label', label);
    return input;
  };
  const words = (text) => Object.assign(document.createElement('span'), { textContent: text });
  const add = (activity = '', points = '') => {
    const row = document.createElement('div');
    row.className = 'points-row';
    const remove = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Remove' });
    remove.className = 'secondary';
    remove.addEventListener('click', () => {
      row.remove();
      changed();
    });
    row.append(words('Activity'), field('Activity', activity), words('gives'), field('Points', points));
    row.append(words('points'), remove);
    rows.append(row);
    return row;
  };
  for (const [activity, points] of entries) add(activity, points);
  if (entries.length === 0) add();
  form.querySelector('.add-row').addEventListener('click', () => {
    add().querySelector('input').focus();
    changed();
  });
  form.addEventListener('input', changed);
  /** The rows as [activity, points] pairs, empty rows left out. */
  const read = () =>
    [...rows.children]
      .map((row) => [...row.querySelectorAll('input')].map((input) => input.value.trim()))
      .filter(([activity, points]) => activity !== '' || points !== '');
  return {
    read,
    text: () =>
      read()
        .map((pair) => pair.join('='))
        .join(','),
  };
}
