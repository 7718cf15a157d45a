// What the customer account extension shows, from the bridge's answer (GET /shopify/storefront/account-points,
// the same shapes as the app proxy's /storefront/points: docs/storefront.md; and POST …/redeem's): plain data and translation keys
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
  /** The shop's rewards; `confirm` asks before spending, `short` says how many points are missing. */
  rewards: Reward[];
  /** Whether the customer may redeem here (signed in, their balance shown). */
  canRedeem: boolean;
  /** The customer's unused codes, newest first. */
  codes: Code[];
  /** Ask again after this long (the bridge's own hint, when it was busy). */
  retryAfterSeconds?: number;
}

export interface Reward {
  id: string;
  /** The bridge's words for it ("500 points for 5.00 off", "800 points for 10% off"). */
  words: string;
  /** "Spend 800 points for 10% off?": a sentence for each kind of reward. */
  confirm: Words;
  short?: Words;
}

/** A reward code to use at checkout: what it gives (none for a kind this extension does not know) and its last day. */
export interface Code {
  code: string;
  gives?: Words;
  useBefore: Words;
}

/** What a redemption gave: the code, or the bridge's words for why not (or a phrase of the locale). */
export type Redeemed = { ok: true; code: Code } | { ok: false; error: Words };

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
  rewards: [],
  canRedeem: false,
  codes: [],
});

const formats = (format: Formatting) => {
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
  /** A code of the bridge's answer ({code, benefit, expiresAt}), or nothing where it is not one. */
  const codeOf = (value: unknown): Code | undefined => {
    if (!isRecord(value)) return undefined;
    const code = words(value.code);
    const benefit = benefitOf(value);
    const gives = benefit && givesWords(benefit, number);
    const until = dateOf(value.expiresAt);
    if (!code || !until) return undefined;
    return { code, ...(gives ? { gives } : {}), useBefore: { key: 'useBefore', values: { date: until } } };
  };
  return { number, dateOf, codeOf };
};

/** What a reward or code gives, as the bridge's reward-benefit.ts names it; `other` for a kind not known here. */
type Benefit =
  | { kind: 'amount_off'; amount: string }
  | { kind: 'percent_off'; percent: number }
  | { kind: 'free_shipping' }
  | { kind: 'other' };

/** A reward's or code's benefit; a bridge from before benefits had kinds names amountOff alone. None: unreadable. */
function benefitOf(value: Json): Benefit | undefined {
  const { benefit } = value;
  if (!isRecord(benefit)) {
    const amount = words(value.amountOff);
    return amount ? { kind: 'amount_off', amount } : undefined;
  }
  const amount = words(benefit.amount);
  const percent = finite(benefit.percent);
  switch (benefit.kind) {
    case 'amount_off':
      return amount ? { kind: 'amount_off', amount } : undefined;
    case 'percent_off':
      return percent !== undefined ? { kind: 'percent_off', percent } : undefined;
    case 'free_shipping':
      return { kind: 'free_shipping' };
    default:
      return typeof benefit.kind === 'string' ? { kind: 'other' } : undefined;
  }
}

/** "5.00 off your order", "10% off your order", "Free shipping on your order"; none for a kind not known here. */
function givesWords(benefit: Benefit, number: Intl.NumberFormat): Words | undefined {
  switch (benefit.kind) {
    case 'amount_off':
      return { key: 'amountOff', values: { amount: benefit.amount } };
    case 'percent_off':
      return { key: 'percentOff', values: { percent: number.format(benefit.percent) } };
    case 'free_shipping':
      return { key: 'freeShipping' };
    case 'other':
      return undefined;
  }
}

/** "Spend 800 points for 10% off?": each kind its own sentence, and one for a kind not known here. */
function confirmWords(benefit: Benefit, points: number, number: Intl.NumberFormat): Words {
  const values = { count: points, points: number.format(points) };
  switch (benefit.kind) {
    case 'amount_off':
      return { key: 'confirmAmountOff', values: { ...values, amount: benefit.amount } };
    case 'percent_off':
      return { key: 'confirmPercentOff', values: { ...values, percent: number.format(benefit.percent) } };
    case 'free_shipping':
      return { key: 'confirmFreeShipping', values };
    case 'other':
      return { key: 'confirmReward', values };
  }
}

/** The answer to POST …/account-points/redeem?reward=<id>: the code, or what the customer reads instead. */
export function redeemed(status: number, answer: unknown, format: Formatting): Redeemed {
  const record = isRecord(answer) ? answer : {};
  const code = status === 200 && record.redeemed === true ? formats(format).codeOf(record) : undefined;
  if (code) return { ok: true, code };
  if (status === 401) return { ok: false, error: { key: 'signInToRedeem' } };
  const said = words(record.error);
  // The bridge's own sentence, already in the customer's words (docs/storefront.md, REDEEM_WORDS).
  return { ok: false, error: said ? { key: 'unavailable', values: { reason: said } } : { key: 'redeemFailed' } };
}

export function pointsScreen(status: number, answer: unknown, format: Formatting): PointsScreen {
  if (status === 404) return failed('notFound');
  if (status !== 200 || !isRecord(answer)) return failed('error');
  const { number, dateOf, codeOf } = formats(format);
  const pointsWords = (points: number): Words => ({
    key: 'points',
    values: { count: Math.abs(points), points: number.format(points) },
  });
  const ways = (Array.isArray(answer.waysToEarn) ? answer.waysToEarn : []).flatMap((way) => {
    const text = isRecord(way) ? words(way.words) : undefined;
    const points = isRecord(way) ? finite(way.points) : undefined;
    return text && points !== undefined ? [{ words: text, points: pointsWords(points) }] : [];
  });
  const offered = (Array.isArray(answer.rewards) ? answer.rewards : []).flatMap((reward) => {
    if (!isRecord(reward)) return [];
    const id = words(reward.id);
    const text = words(reward.words);
    const points = finite(reward.points);
    const benefit = benefitOf(reward);
    return id && text && points !== undefined && benefit ? [{ id, words: text, points, benefit }] : [];
  });
  const rewardsFor = (available: number | undefined): Reward[] =>
    offered.map(({ id, words: text, points, benefit }) => {
      const short = available === undefined ? 0 : points - available;
      return {
        id,
        words: text,
        confirm: confirmWords(benefit, points, number),
        ...(short > 0 ? { short: { key: 'needMore', values: { count: short, points: number.format(short) } } } : {}),
      };
    });
  const screen: PointsScreen = {
    notes: [],
    history: [],
    ways,
    rewards: rewardsFor(undefined),
    canRedeem: false,
    codes: [],
  };
  if (answer.customer === 'guest')
    return { ...screen, notes: [{ key: 'signIn' }, ...(offered.length > 0 ? [{ key: 'signInToRedeem' }] : [])] };
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
  const codes = (Array.isArray(answer.codes) ? answer.codes : []).flatMap((each) => codeOf(each) ?? []);
  return {
    ...screen,
    balance: pointsWords(available),
    notes,
    history,
    rewards: rewardsFor(available),
    canRedeem: true,
    codes,
  };
}
