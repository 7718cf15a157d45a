// A rule of pairs in Set up, one row each, in words: "Activity [1] gives [100] points", "From an order total of
// [50.00], activity [7]". The API keeps the setting as the configuration writes it (1=100,7=250); the merchant
// never reads or types that. The container keeps the setting's name, so the API's refusal of it shows beside it.
import { element } from './page.js';

/**
 * Rows in `container` (its `.rows`), each two fields named by `first` and `second` ({ label, kind }), with the words
 * `said(a, b)` under them once both are filled; its `.add-row` button adds one.
 */
export function ruleRows(container, { first, second, said }) {
  const rows = container.querySelector('.rows');
  const fieldOf = ({ label, kind }, value) => {
    const made = element(kind === 'number' ? 's-number-field' : 's-text-field', undefined, { label });
    if (kind === 'number') made.setAttribute('min', '0');
    made.value = value ?? '';
    return made;
  };
  const add = (a, b) => {
    const row = element('div', undefined, { class: 'rule-row' });
    const one = fieldOf(first, a);
    const two = fieldOf(second, b);
    const words = element('p', '', { class: 'rule-words' });
    const remove = element('s-button', 'Remove');
    const readOut = () => {
      words.textContent = one.value.trim() && two.value.trim() ? said(one.value.trim(), two.value.trim()) : '';
    };
    row.addEventListener('input', readOut);
    remove.addEventListener('click', () => {
      row.remove();
      container.dispatchEvent(new Event('input', { bubbles: true }));
    });
    row.append(one, two, remove, words);
    rows.append(row);
    readOut();
    return one;
  };
  container.querySelector('.add-row').addEventListener('click', () => add('', '').focus?.());
  return {
    /** Shows these pairs, one row each. */
    set(pairs) {
      rows.replaceChildren();
      for (const [a, b] of pairs) add(String(a), String(b));
    },
    /** The pairs as the setting is written; a row half filled is sent as it is, for the API to say what is missing. */
    get() {
      return [...rows.querySelectorAll('.rule-row')]
        .map((row) => [...row.querySelectorAll('s-text-field, s-number-field')].map((each) => each.value.trim()))
        .filter(([a, b]) => a || b)
        .map(([a, b]) => `${a}=${b}`)
        .join(',');
    },
  };
}
