// The codes a person must never read bare, from their sources of truth: the words' own tables (each typed by its
// codes, so a code without words fails the type check) and the core's lists. Browser and e2e tests check text
// against them.
import { ATTENTION_REASONS, SKIP_REASONS, WAITING_REASONS } from '../../src/core/lifecycle.ts';
import { FACTS } from '../../src/core/order-event.ts';
import { SHOWN_CODES } from '../../src/core/order-words.ts';
import { CALL_OUTCOME_WORDS, DELIVERY_RESULT_WORDS } from '../../src/http/activity-words.ts';

export const CODES = [
  ...new Set<string>([
    ...Object.values(SHOWN_CODES).flat(),
    ...SKIP_REASONS,
    ...ATTENTION_REASONS,
    ...WAITING_REASONS,
    ...FACTS,
    ...Object.keys(CALL_OUTCOME_WORDS),
    ...Object.keys(DELIVERY_RESULT_WORDS),
  ]),
];

/** The codes a text shows bare: the whole text, a code in brackets, or a code no sentence has (snake_case, camelCase). */
export const bareCodes = (text: string): string[] => {
  const trimmed = text.trim();
  return CODES.filter(
    (code) =>
      trimmed === code ||
      trimmed.includes(`(${code})`) ||
      (/[_A-Z]/.test(code) && new RegExp(`(^|[^A-Za-z_])${code}($|[^A-Za-z_])`).test(trimmed)),
  );
};

/** Each text with the codes it shows bare; none expected. */
export const withCodes = (texts: string[]) =>
  texts.map((text) => ({ text, codes: bareCodes(text) })).filter(({ codes }) => codes.length > 0);
