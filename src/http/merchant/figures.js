// Figures as the reader's locale writes them.

/** An amount in the order's own currency, as the reader's locale writes it; no total kept: a dash. */
export function money(total) {
  if (!total) return '—';
  try {
    // The amount as its digits: a string keeps every one of them where a number would round.
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: total.currency }).format(total.amount);
  } catch {
    // A currency code the browser does not know (a store's own) is written as the store gave it.
    return `${total.amount} ${total.currency}`;
  }
}

const PLURALS = new Intl.PluralRules('en');
/** A count with its noun as English says it ("1 earning", "2 earnings"): the page's words are English. */
export const counted = (count, one, other = `${one}s`) =>
  `${count.toLocaleString()} ${PLURALS.select(count) === 'one' ? one : other}`;
