// A count with its noun as English says it ("1 order", "3 orders"), for the words the pages and the CLI print:
// they are in English, so English's plural rules, not "order(s)".
const RULES = new Intl.PluralRules('en');

/** "1 order", "2 orders"; `other` where the plural is not the noun and an s ("1 delivery", "2 deliveries"). */
export const counted = (count: number, one: string, other = `${one}s`): string =>
  `${count} ${RULES.select(count) === 'one' ? one : other}`;

/** The verb that agrees with a count: "1 order is", "2 orders are". */
export const isAre = (count: number): string => (RULES.select(count) === 'one' ? 'is' : 'are');
