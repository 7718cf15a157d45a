// The points each activity gives, as declared: parsed from the configuration and an account's settings (one
// line per bad key), prefilled from the sandbox's in sandbox mode, and read into an order's points.
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activityPointsOf, loadConfig, type Config } from '../../src/config.ts';
import { parseProgramSettings, programDefaults, programSettingsOf } from '../../src/accounts/program-settings.ts';
import { activityGiving, givableAmounts, orderPoints, pointsText } from '../../src/core/activity-points.ts';
import { merchantReader, pointsOf } from '../../src/core/order-points-view.ts';

function load(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'lb-points-'));
  copyFileSync(new URL('../../config/default.json', import.meta.url), join(dir, 'default.json'));
  return loadConfig({ configDir: dir, env });
}
const configOf = (env: Record<string, string>): Config => {
  const result = load(env);
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.config;
};

describe('LOYALTY_ACTIVITY_POINTS', () => {
  it('reads activity=points, and is the sandbox’s in sandbox mode until declared', () => {
    expect(configOf({ SANDBOX_ACTIVITIES: '1=100,7=250', LOYALTY_ACTIVITY_POINTS: ' 1=100, 7=250' })).toMatchObject({
      LOYALTY_ACTIVITY_POINTS: { '1': 100, '7': 250 },
    });
    const sandbox = configOf({ SANDBOX_ACTIVITIES: '1=100,7=250' });
    expect(sandbox.LOYALTY_ACTIVITY_POINTS).toBeUndefined();
    expect(activityPointsOf(sandbox)).toEqual({ '1': 100, '7': 250 });
    expect(programSettingsOf(sandbox).LOYALTY_ACTIVITY_POINTS).toEqual({ '1': 100, '7': 250 });
    const real = configOf({ LOYALTY_BASE_URL: 'https://service.example', LOYALTY_API_KEY: 'k', LOYALTY_BRAND_ID: 'b' });
    expect(activityPointsOf(real)).toEqual({});
  });

  it('refuses points that are not whole numbers, and points the sandbox does not give', () => {
    const bad = load({ LOYALTY_ACTIVITY_POINTS: '1=lots' });
    expect(bad.ok ? [] : bad.errors).toEqual(['LOYALTY_ACTIVITY_POINTS (environment): points must be a whole number']);
    const other = load({ LOYALTY_ACTIVITY_POINTS: '1=150,9=10' });
    // One line for the key, saying how each activity differs.
    expect(other.ok ? [] : other.errors).toEqual([
      'LOYALTY_ACTIVITY_POINTS (environment): activity 1 gives 100 points in the sandbox, not 150; activity 9 gives nothing in the sandbox (SANDBOX_ACTIVITIES does not have it)',
    ]);
  });

  it('is a program setting: an account’s bad value is one line of its own', () => {
    const parsed = parseProgramSettings(
      { LOYALTY_ACTIVITY_POINTS: '1=100,7=x', MIN_ORDER_TOTAL: 'ten' },
      programDefaults(),
    );
    expect(parsed).toEqual({
      ok: false,
      errors: [
        'LOYALTY_ACTIVITY_POINTS: activity 7: points must be a whole number',
        'MIN_ORDER_TOTAL: must be an amount like 10 or 9.99',
      ],
    });
    expect(parseProgramSettings({ LOYALTY_ACTIVITY_POINTS: '1=100,7=250' }, programDefaults())).toMatchObject({
      ok: true,
      settings: { LOYALTY_ACTIVITY_POINTS: { '1': 100, '7': 250 } },
    });
  });
});

describe('an order’s points', () => {
  const declared = { '1': 100, '7': 250, '8': 250 };

  it('picks the activity that gives exactly so many, and lists the amounts that can be given', () => {
    expect(activityGiving(declared, 250)).toBe('7');
    expect(activityGiving(declared, 120)).toBeUndefined();
    expect(givableAmounts(declared)).toEqual([100, 250]);
    expect(givableAmounts(undefined)).toEqual([]);
  });

  it('reads its activity’s points, its state and what it redeemed', () => {
    const pending = orderPoints(
      { upstream: 'earned', earnActivityId: '1', redeemedPoints: 50 },
      declared,
      (id) => `declare how many points activity ${id} gives, in Set up`,
    );
    expect(pending).toEqual({ earned: 100, state: 'pending', redeemed: 50, activityId: '1' });
    expect(pointsText(pending)).toBe('earned 100 points, pending; 50 redeemed');
    expect(pointsText(orderPoints({ upstream: 'approved', earnActivityId: '7' }, declared, () => 'x'))).toBe(
      'earned 250 points, approved',
    );
    expect(pointsText(orderPoints({ upstream: 'cancelled', earnActivityId: '7' }, declared, () => 'x'))).toBe(
      '250 points cancelled',
    );
    expect(pointsText(orderPoints({ upstream: 'none' }, declared, () => 'x'))).toBe('no points');
  });

  it('says how to declare an activity’s points when they are not', () => {
    const unknown = orderPoints(
      { upstream: 'earned', earnActivityId: '9' },
      declared,
      (id) => `declare how many points activity ${id} gives, in Set up`,
    );
    expect(unknown).toMatchObject({ earned: null, undeclared: 'declare how many points activity 9 gives, in Set up' });
    expect(pointsText(unknown)).toBe(
      'earned points, pending (how many is not known: declare how many points activity 9 gives, in Set up)',
    );
  });

  it('reads nothing from an activity named like an object’s own property (constructor, __proto__, toString)', () => {
    // An account with no list declared runs on {} (from-config.ts), and activity ids may be any letters: an order
    // earned under "constructor" read Object itself as its points ("earned function Object() { [native code] }
    // points" on the pages and in status), and under "__proto__" Object.prototype ("[object Object] points").
    for (const id of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      for (const list of [{}, { ...declared }]) {
        const points = orderPoints(
          { upstream: 'earned', earnActivityId: id },
          list,
          (activity) => `declare how many points activity ${activity} gives, in Set up`,
        );
        expect([id, points.earned]).toEqual([id, null]);
        expect(points.undeclared).toBe(`declare how many points activity ${id} gives, in Set up`);
        expect(pointsText(points)).not.toMatch(/native code|object Object/);
      }
    }
  });
});

describe('the fix for an undeclared activity, by who reads it', () => {
  const accounts = {
    runtime: async () => ({ activityPoints: { '1': 100 }, earnActivityId: '1', policy: { earnBands: [] } }),
  };
  const undeclared = async (mayChangeProgram: boolean | undefined) =>
    (await pointsOf([{ upstream: 'earned', earnActivityId: '9' }], accounts, merchantReader(mayChangeProgram)))[0]
      ?.undeclared;

  it('sends a merchant to Set up where the program is theirs, and to the operator where it is not', async () => {
    expect(await undeclared(true)).toBe(
      'declare how many points activity 9 gives, in Set up (Points each activity gives)',
    );
    expect(await undeclared(false)).toBe(
      'ask the bridge’s operator, who runs your program, to declare how many points activity 9 gives',
    );
    const [operator] = await pointsOf([{ upstream: 'earned', earnActivityId: '9' }], accounts, 'operator');
    expect(operator?.undeclared).toMatch(/in the account's settings \(LOYALTY_ACTIVITY_POINTS\)$/);
  });
});
