// The customer account extension's logic (extensions/loyalty-account/src/points-view.ts): from each of the
// bridge's answers to what the customer reads, through the extension's own locale file, as Shopify's i18n
// fills it ({{name}} replaced, `count` choosing "one" or "other" by the locale's plural rules).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  pointsScreen,
  redeemed,
  type PointsScreen,
  type Words,
} from '../../extensions/loyalty-account/src/points-view.ts';

const LOCALE = JSON.parse(
  readFileSync(new URL('../../extensions/loyalty-account/locales/en.default.json', import.meta.url), 'utf8'),
) as Record<string, string | Record<string, string>>;
const say = ({ key, values = {} }: Words): string => {
  const entry = LOCALE[key];
  if (entry === undefined) throw new Error(`no phrase ${key} in en.default.json`);
  const phrase =
    typeof entry === 'string' ? entry : entry[new Intl.PluralRules('en').select(Number(values.count ?? 0))];
  if (phrase === undefined) throw new Error(`no plural form for ${key}`);
  return phrase.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no value for {{${name}}} in ${key}`);
    return String(values[name]);
  });
};
const read = (screen: PointsScreen) => ({
  balance: screen.balance && say(screen.balance),
  notes: screen.notes.map(say),
  warning: screen.warning && say(screen.warning),
  history: screen.history.map((line) => `${line.date} ${line.words} ${line.points}`),
  ways: screen.ways.map((way) => `${way.words}: ${say(way.points)}`),
});
const EN = { locale: 'en-US', timeZone: 'UTC' };
const WAYS = [
  { words: 'Place an order', points: 100 },
  { words: 'Place an order of 50.00 or more', points: 1 },
];
const balance = (over: Record<string, unknown> = {}) => ({
  customer: 'signed-in',
  balance: {
    available: 12345,
    pending: 0,
    pendingUntil: null,
    asOf: '2026-11-20T09:30:00.000Z',
    source: 'service',
    missingElsewhere: false,
    stale: false,
    ...over,
  },
  history: [
    { at: '2026-11-19T10:00:00.000Z', points: 250, words: 'Order #1001' },
    { at: '2026-11-18T10:00:00.000Z', points: -1000, words: 'Spent on a reward' },
  ],
  waysToEarn: WAYS,
});

describe('what the customer account extension shows', () => {
  it('shows a balance with the locale’s separators, the history with dates and signs, and the ways to earn', () => {
    expect(read(pointsScreen(200, balance(), EN))).toEqual({
      balance: '12,345 points',
      notes: [],
      warning: undefined,
      history: ['Nov 19, 2026 Order #1001 +250', 'Nov 18, 2026 Spent on a reward -1,000'],
      ways: ['Place an order: 100 points', 'Place an order of 50.00 or more: 1 point'],
    });
    // Another locale's separators and dates.
    const german = read(pointsScreen(200, balance(), { locale: 'de-DE', timeZone: 'UTC' }));
    expect(german.balance).toBe('12.345 points');
    expect(german.history[1]).toBe('18.11.2026 Spent on a reward -1.000');
  });

  it('says one point, not one points', () => {
    expect(read(pointsScreen(200, balance({ available: 1 }), EN)).balance).toBe('1 point');
    expect(read(pointsScreen(200, balance({ available: 0 }), EN)).balance).toBe('0 points');
  });

  it('shows pending points apart, with the day they become available when the bridge knows it', () => {
    expect(
      read(pointsScreen(200, balance({ pending: 1500, pendingUntil: '2026-12-03T00:00:00.000Z' }), EN)).notes,
    ).toEqual(['1,500 more points are pending, available from Dec 3, 2026.']);
    expect(read(pointsScreen(200, balance({ pending: 1 }), EN)).notes).toEqual(['1 more point is pending.']);
  });

  it('says when a balance is an old one, and when earns made elsewhere are not counted', () => {
    expect(read(pointsScreen(200, balance({ stale: true, missingElsewhere: true }), EN)).notes).toEqual([
      'This is your balance as of Nov 20, 2026, 9:30 AM: it could not be brought up to date just now.',
      'Points earned or spent outside this store are not counted here.',
    ]);
  });

  it('asks a guest to sign in, with the ways to earn', () => {
    expect(read(pointsScreen(200, { customer: 'guest', waysToEarn: WAYS, signIn: true }, EN))).toEqual({
      balance: undefined,
      notes: ['Sign in to see your points.'],
      warning: undefined,
      history: [],
      ways: ['Place an order: 100 points', 'Place an order of 50.00 or more: 1 point'],
    });
  });

  it('says the bridge’s own words when the points cannot be shown, and when to ask again', () => {
    const busy = pointsScreen(
      200,
      {
        customer: 'signed-in',
        unavailable: 'Your points cannot be shown just now. Try again in a moment.',
        retryAfterSeconds: 7,
        waysToEarn: WAYS,
      },
      EN,
    );
    expect(read(busy).warning).toBe('Your points cannot be shown just now. Try again in a moment.');
    expect(read(busy).balance).toBeUndefined();
    expect(busy.retryAfterSeconds).toBe(7);
  });

  it('shows a refusal, a missing route or an answer of another shape as a warning, never as a balance', () => {
    expect(read(pointsScreen(401, { error: 'this request is not signed by the store' }, EN)).warning).toBe(
      'Your points cannot be shown just now. Try again in a moment.',
    );
    expect(read(pointsScreen(404, { error: 'not found' }, EN)).warning).toBe(
      'This store does not show points here yet.',
    );
    for (const odd of [
      undefined,
      [],
      'text',
      { customer: 'signed-in' },
      { customer: 'signed-in', balance: { available: '12' } },
    ])
      expect(read(pointsScreen(200, odd, EN))).toMatchObject({ balance: undefined, warning: say({ key: 'error' }) });
  });

  it('leaves out history lines and ways it cannot read', () => {
    const odd = balance();
    odd.history.push(
      { at: 'not a date', points: 5, words: 'x' },
      { at: '2026-11-17T00:00:00Z', points: NaN, words: 'y' },
    );
    (odd.waysToEarn as unknown[]).push({ words: '', points: 5 }, { words: 'Review', points: '5' });
    const screen = read(pointsScreen(200, odd, EN));
    expect(screen.history).toHaveLength(2);
    expect(screen.ways).toHaveLength(2);
  });

  // As a bridge from before benefits had kinds answers them: the amount off alone.
  const REWARDS = [
    {
      id: 'r-1',
      points: 500,
      amountOff: '5.00',
      minimumOrder: null,
      expiresInDays: 30,
      words: '500 points for 5.00 off',
    },
    {
      id: 'r-2',
      points: 20000,
      amountOff: '250.00',
      minimumOrder: null,
      expiresInDays: 30,
      words: '20,000 points for 250.00 off',
    },
  ];
  const CODE = { code: 'LB-ABCDEFGHJKLMNPQR', amountOff: '5.00', points: 500, expiresAt: '2026-12-20T10:00:00.000Z' };

  it('lists the rewards with a confirmation and, out of reach, how many points are missing; and the unused codes', () => {
    const screen = pointsScreen(200, { ...balance(), rewards: REWARDS, codes: [CODE] }, EN);
    expect(screen.canRedeem).toBe(true);
    expect(screen.rewards.map((each) => [each.words, say(each.confirm), each.short && say(each.short)])).toEqual([
      ['500 points for 5.00 off', 'Spend 500 points for 5.00 off?', undefined],
      ['20,000 points for 250.00 off', 'Spend 20,000 points for 250.00 off?', 'You need 7,655 more points'],
    ]);
    expect(screen.codes.map(codeLine)).toEqual([
      'LB-ABCDEFGHJKLMNPQR 5.00 off your order · Use it at checkout before Dec 20, 2026',
    ]);
  });

  /** A reward of each kind, as the bridge answers them since benefits have kinds (amountOff beside an amount off). */
  const KINDS = [
    {
      id: 'r-amount',
      points: 500,
      benefit: { kind: 'amount_off', amount: '5.00' },
      amountOff: '5.00',
      minimumOrder: null,
      expiresInDays: 30,
      words: '500 points for 5.00 off',
    },
    {
      id: 'r-percent',
      points: 800,
      benefit: { kind: 'percent_off', percent: 10 },
      minimumOrder: '50.00',
      expiresInDays: 30,
      words: '800 points for 10% off on orders of 50.00 or more',
    },
    {
      id: 'r-shipping',
      points: 1,
      benefit: { kind: 'free_shipping' },
      minimumOrder: null,
      expiresInDays: 30,
      words: '1 points for free shipping',
    },
  ];
  const codeOf = (benefit: Record<string, unknown>, code = 'LB-ABCDEFGHJKLMNPQR') => ({
    code,
    benefit,
    points: 800,
    expiresAt: '2026-12-20T10:00:00.000Z',
  });
  const codeLine = (code: PointsScreen['codes'][number]) =>
    [code.code, [code.gives && say(code.gives), say(code.useBefore)].filter(Boolean).join(' · ')].join(' ');

  it('asks to confirm each kind of reward in its own words, and says what each kind of code gives', () => {
    const codes = [
      codeOf({ kind: 'percent_off', percent: 15 }, 'LB-PERCENTPERCENT1'),
      codeOf({ kind: 'free_shipping' }, 'LB-SHIPPINGSHIPPIN'),
    ];
    const screen = pointsScreen(200, { ...balance(), rewards: KINDS, codes }, EN);
    expect(screen.rewards.map((each) => `${each.words} | ${say(each.confirm)}`)).toEqual([
      '500 points for 5.00 off | Spend 500 points for 5.00 off?',
      '800 points for 10% off on orders of 50.00 or more | Spend 800 points for 10% off?',
      // One point: said as one.
      '1 points for free shipping | Spend 1 point for free shipping?',
    ]);
    expect(screen.codes.map(codeLine)).toEqual([
      'LB-PERCENTPERCENT1 15% off your order · Use it at checkout before Dec 20, 2026',
      'LB-SHIPPINGSHIPPIN Free shipping on your order · Use it at checkout before Dec 20, 2026',
    ]);
    const made = redeemed(200, { redeemed: true, ...codeOf({ kind: 'percent_off', percent: 10 }), available: 0 }, EN);
    expect(made.ok && codeLine(made.code)).toBe(
      'LB-ABCDEFGHJKLMNPQR 10% off your order · Use it at checkout before Dec 20, 2026',
    );
  });

  it('offers a kind of reward it does not know yet with the bridge’s words, and shows its code without a worth', () => {
    const later = {
      id: 'r-later',
      points: 900,
      benefit: { kind: 'free_item', sku: 'mug' },
      words: '900 points for a mug',
    };
    const screen = pointsScreen(
      200,
      { ...balance(), rewards: [later], codes: [codeOf({ kind: 'free_item', sku: 'mug' })] },
      EN,
    );
    expect(screen.rewards.map((each) => `${each.words} | ${say(each.confirm)}`)).toEqual([
      '900 points for a mug | Spend 900 points on this reward?',
    ]);
    expect(screen.codes.map(codeLine)).toEqual(['LB-ABCDEFGHJKLMNPQR Use it at checkout before Dec 20, 2026']);
    // A benefit it cannot read (a percentage with no number) is no reward to spend points on.
    const odd = { ...KINDS[1]!, benefit: { kind: 'percent_off' } };
    expect(pointsScreen(200, { ...balance(), rewards: [odd] }, EN).rewards).toEqual([]);
  });

  it('shows a guest the rewards with no way to redeem, and asks them to sign in', () => {
    const screen = pointsScreen(200, { customer: 'guest', waysToEarn: WAYS, rewards: REWARDS, signIn: true }, EN);
    expect([screen.canRedeem, screen.rewards.length, screen.rewards.some((each) => each.short)]).toEqual([
      false,
      2,
      false,
    ]);
    expect(read(screen).notes).toEqual(['Sign in to see your points.', 'Sign in to redeem your points.']);
  });

  it('reads a redemption: the code, the bridge’s words as they are, or a phrase of its own', () => {
    const made = redeemed(200, { redeemed: true, ...CODE, available: 0 }, EN);
    expect(made.ok && `${made.code.code} ${say(made.code.useBefore)}`).toBe(
      'LB-ABCDEFGHJKLMNPQR Use it at checkout before Dec 20, 2026',
    );
    const short = redeemed(409, { redeemed: false, error: 'You do not have enough points for this reward yet.' }, EN);
    expect(!short.ok && say(short.error)).toBe('You do not have enough points for this reward yet.');
    const guest = redeemed(401, { error: 'this request is not signed by the store' }, EN);
    expect(!guest.ok && say(guest.error)).toBe('Sign in to redeem your points.');
    const odd = redeemed(502, undefined, EN);
    expect(!odd.ok && say(odd.error)).toBe('Your reward could not be made just now. Try again in a moment.');
  });

  it('finds every phrase the components ask for in the locale file', () => {
    const components = [
      'loyalty-account/src/PointsView.tsx',
      'loyalty-account/src/ProfileBlock.tsx',
      'loyalty-account-page/src/FullPage.tsx',
    ].map((file) => readFileSync(new URL(`../../extensions/${file}`, import.meta.url), 'utf8'));
    const asked = components.flatMap((code) => [...code.matchAll(/translate\('(\w+)'/g)].map(([, key]) => key!));
    expect(asked.length).toBeGreaterThan(5);
    for (const key of asked) expect(Object.keys(LOCALE)).toContain(key);
  });

  it('has the same phrases in the full page extension as in the block, whose code it runs', () => {
    const page = readFileSync(
      new URL('../../extensions/loyalty-account-page/locales/en.default.json', import.meta.url),
      'utf8',
    );
    expect(JSON.parse(page)).toEqual(LOCALE);
  });
});
