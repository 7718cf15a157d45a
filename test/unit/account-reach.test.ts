// A merchant's reach (src/accounts/reach.ts), as a table: what a caller
// limited to one shop may do with the account its shop earns on.
import { describe, expect, it } from 'vitest';
import type { ShopRef } from '../../src/accounts/account-records.ts';
import { ALLOWED, allowedFor, standing, type ReachFacts, type Standing } from '../../src/accounts/reach.ts';

const A: ShopRef = { platform: 'shopify', shop: 'alpha.myshopify.com' };
const B: ShopRef = { platform: 'shopify', shop: 'beta.myshopify.com' };
/** The same name on another platform is another shop. */
const A_ELSEWHERE: ShopRef = { platform: 'bigcommerce', shop: 'alpha.myshopify.com' };

const on = (
  account: string | undefined,
  madeFor: ShopRef | undefined,
  linked: ShopRef[],
  exists = true,
): ReachFacts => ({
  account,
  record: account && exists && account !== 'default' ? { id: account, madeFor } : undefined,
  linked,
});

describe('the standing of shop A with the account it earns on', () => {
  const table: Array<[string, ReachFacts, Standing]> = [
    ['linked to no account (a stranger’s open install)', on(undefined, undefined, []), 'unlinked'],
    ['on the default account, chosen by the operator (no link)', on('default', undefined, []), 'operator'],
    ['linked to the default account by the operator', on('default', undefined, [A]), 'operator'],
    ['on an account the operator made', on('acct-1', undefined, [A]), 'operator'],
    ['on an account made for shop B', on('acct-1', B, [A, B]), 'operator'],
    ['on an account made for B, A alone linked to it', on('acct-1', B, [A]), 'operator'],
    ['on an account made for the same name on another platform', on('acct-1', A_ELSEWHERE, [A]), 'operator'],
    ['on an account made for A, alone', on('acct-1', A, [A]), 'own'],
    ['on an account made for A, shared with B since', on('acct-1', A, [A, B]), 'outgrown'],
    ['on an account made for A, shared with A elsewhere', on('acct-1', A, [A, A_ELSEWHERE]), 'outgrown'],
    ['linked to an account that no longer exists', on('acct-gone', undefined, [A], false), 'operator'],
    [
      'on an account made for A, alone again after B was linked to it once (B’s orders may still be on it)',
      { account: 'acct-1', record: { id: 'acct-1', madeFor: A, sharedAt: '2026-11-23T10:00:00.000Z' }, linked: [A] },
      'outgrown',
    ],
  ];
  it.each(table)('%s: %s', (_what, facts, expected) => {
    expect(standing(A, facts)).toBe(expected);
  });
});

describe('what each standing allows', () => {
  const table: Array<[Standing, boolean, boolean, boolean]> = [
    // standing    read   change create
    ['unlinked', false, false, true],
    ['own', true, true, true],
    ['outgrown', false, false, true],
    ['operator', false, false, false],
  ];
  it.each(table)('%s: read %s, change %s, create %s', (which, read, change, create) => {
    expect(ALLOWED[which]).toEqual({ read, change, create });
  });

  it('never lets a shop read or change what it cannot also see is its own', () => {
    for (const allowed of Object.values(ALLOWED)) if (allowed.change) expect(allowed.read).toBe(true);
  });

  it('answers the standing with what it allows', () => {
    expect(allowedFor(A, on('acct-1', A, [A]))).toEqual({ standing: 'own', read: true, change: true, create: true });
    expect(allowedFor(B, on('acct-1', A, [A]))).toMatchObject({ standing: 'operator', read: false, create: false });
  });
});
