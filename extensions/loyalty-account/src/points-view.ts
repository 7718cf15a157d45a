// What the customer account extension shows, from the bridge's answer (GET /shopify/storefront/account-points,
// the same shapes as the app proxy's /storefront/points: docs/storefront.md): plain data and translation keys
// of locales/en.default.json, with numbers and dates formatted for the customer's locale. No Shopify global is
// read here, so the tests run it as it is; the Preact components only render what it returns.

/** A phrase of locales/en.default.json, with what fills its {{placeholders}}; `count` chooses one/other. */
export interface Words {
  key: string;
  values?: Readonly<Record<string, string | number>>;
}

export interface PointsScreen {
  /** The balance as a number with the locale's separators, and the words that say it ("1,234 points"). */
  balance?: Words;
  /** Sentences under the balance: pending points and when, an old balance's time, what is not counted, a refusal. */
  notes: Words[];
  /** Said as a warning (the points cannot be shown) rather than as information. */
  warning?: Words;
  /** Newest first, as the bridge sends them. */
  history: Array<{ date: string; points: string; words: string; earned: boolean }>;
  ways: Array<{ words: string; points: Words }>;
  /** Ask again after this long (the bridge's own hint, when it was busy). */
  retryAfterSeconds?: number;
}

export interface Formatting {
  /** BCP 47, as the customer account's localization gives it: "en", "fr-CA". */
  locale: string;
  /** The customer's; the runtime's otherwise (tests pin one). */
  timeZone?: string;
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const finite = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
const words = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Something the extension cannot show as points: a refusal, a missing shop, an answer of another shape. */
export const failed = (key: 'error' | 'notConfigured' | 'notFound'): PointsScreen => ({
  notes: [],
  warning: { key },
  history: [],
  ways: [],
});

export function pointsScreen(status: number, answer: unknown, format: Formatting): PointsScreen {
  if (status === 404) return failed('notFound');
  if (status !== 200 || !isRecord(answer)) return failed('error');
  const number = new Intl.NumberFormat(format.locale, { maximumFractionDigits: 0 });
  const dateOf = (iso: unknown, withTime = false): string | undefined => {
    const date = typeof iso === 'string' ? new Date(iso) : undefined;
    if (!date || Number.isNaN(date.getTime())) return undefined;
    return new Intl.DateTimeFormat(format.locale, {
      dateStyle: 'medium',
      ...(withTime ? { timeStyle: 'short' } : {}),
      ...(format.timeZone ? { timeZone: format.timeZone } : {}),
    }).format(date);
  };
  const pointsWords = (points: number): Words => ({
    key: 'points',
    values: { count: Math.abs(points), points: number.format(points) },
  });
  const ways = (Array.isArray(answer.waysToEarn) ? answer.waysToEarn : []).flatMap((way) => {
    const text = isRecord(way) ? words(way.words) : undefined;
    const points = isRecord(way) ? finite(way.points) : undefined;
    return text && points !== undefined ? [{ words: text, points: pointsWords(points) }] : [];
  });
  const screen: PointsScreen = { notes: [], history: [], ways };
  if (answer.customer === 'guest') return { ...screen, notes: [{ key: 'signIn' }] };
  if (answer.customer !== 'signed-in') return failed('error');
  const unavailable = words(answer.unavailable);
  if (unavailable) {
    const retry = finite(answer.retryAfterSeconds);
    // The bridge's own sentence, already in the customer's words (docs/storefront.md, CUSTOMER_WORDS).
    return {
      ...screen,
      warning: { key: 'unavailable', values: { reason: unavailable } },
      ...(retry !== undefined && retry > 0 ? { retryAfterSeconds: retry } : {}),
    };
  }
  const balance = isRecord(answer.balance) ? answer.balance : undefined;
  const available = finite(balance?.available);
  if (!balance || available === undefined) return failed('error');
  const notes: Words[] = [];
  const pending = finite(balance.pending) ?? 0;
  if (pending > 0) {
    const until = dateOf(balance.pendingUntil);
    notes.push(
      until
        ? { key: 'pendingUntil', values: { count: pending, points: number.format(pending), date: until } }
        : { key: 'pending', values: { count: pending, points: number.format(pending) } },
    );
  }
  const asOf = dateOf(balance.asOf, true);
  if (balance.stale === true && asOf) notes.push({ key: 'stale', values: { time: asOf } });
  if (balance.missingElsewhere === true) notes.push({ key: 'missingElsewhere' });
  const history = (Array.isArray(answer.history) ? answer.history : []).flatMap((line) => {
    if (!isRecord(line)) return [];
    const points = finite(line.points);
    const date = dateOf(line.at);
    const text = words(line.words);
    if (points === undefined || !date || !text) return [];
    // Spent points carry their sign; earned ones are shown with a plus, as a statement shows them.
    const shown = points > 0 ? `+${number.format(points)}` : number.format(points);
    return [{ date, points: shown, words: text, earned: points > 0 }];
  });
  return { ...screen, balance: pointsWords(available), notes, history };
}
