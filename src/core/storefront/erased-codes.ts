// The codes of a shop whose data was erased (shop/redact), while they may still pay. The erasure forgets the shop's
// reservations, and a code of them still open keeps its points held by amount on its holder (erasedShopHolds); but a
// merchant who reinstalls gives the bridge its orders again, and an order paid with such a code then found nothing to
// redeem: the customer kept the discount and, at the code's expiry, the points (issue 64, review E 7b). So each such
// code is kept here by a digest of its shop and text, naming neither, nor the customer, until it can pay no more.
// An order that pays with it takes its hold back as a reservation it used: its redeem goes, and the sweeper removes
// the code from the store as for any spent code. A code an order had already used when its shop was erased is kept
// with what became of that order's redeem (ErasedCode.state), so that the same order imported again after a
// reinstall redeems only what was never sent (review G, G1 and G4).
import { createHash } from 'node:crypto';
import type { RecordRole } from '../store/ledger-store.ts';
import { CODE_KIND, HOLDER_KIND, codeIndexId, type CodeIndex, type Reservation } from './reservations.ts';
import { z } from 'zod';
import { keptBenefit, keptForEarlier, withBenefit } from '../reward-benefit.ts';
import { recordType } from '../store/roles/record-types.ts';

/**
 * What the code's reservation was at the shop's erasure: 'issued' (open, or 'reserving'; or used by an order since
 * cancelled), revived as used by an order that pays with it; 'owed' (used, its redeem not sent), revived for the order
 * that comes again, whose redeem then goes; 'doubt' (used, its redeem in doubt: a person was asked to check) and
 * 'taken' (its redeem went), never revived: that would be a second redeem of its points (erased-holds.ts).
 */
export type ErasedState = 'issued' | 'owed' | 'doubt' | 'taken';

/** The until of a hold that never lapses: points owed to the program for a discount given (OWED at eraseShop). */
export const OWED_UNTIL = '9999-12-31T00:00:00.000Z';

export interface ErasedCode {
  holder: string;
  /** Absent in codes kept before it was (kept only while open or used then, and revived as 'issued'). */
  state?: ErasedState | undefined;
  /** A digest of its platform and shop (shopDigest): a customer's erasure in one shop drops that shop's alone. */
  shop?: string | undefined;
  /** The reservation's id, also its hold's on the holder. */
  reservation: string;
  /** Its expiry and settling window: after this it pays for nothing and goes. */
  until: string;
  kept: Pick<Reservation, 'rewardId' | 'points' | 'benefit' | 'expiresAt' | 'createdAt'> & {
    platformId: string | null;
  };
}

export const ERASED_CODE_KIND = recordType<ErasedCode>(
  'reward-erased-code',
  z.looseObject({
    holder: z.string(),
    state: z.enum(['issued', 'owed', 'doubt', 'taken']).optional(),
    shop: z.string().optional(),
    reservation: z.string(),
    until: z.string(),
    kept: z.preprocess(
      withBenefit,
      z.looseObject({
        rewardId: z.string(),
        points: z.number(),
        benefit: keptBenefit,
        expiresAt: z.string(),
        createdAt: z.string(),
        platformId: z.string().nullable(),
      }),
    ),
  }),
);

const erasedCodeId = (platform: string, shop: string, code: string) =>
  createHash('sha256')
    .update(codeIndexId(platform, shop, code))
    .digest('base64url');

/** A shop's digest, naming neither: what an erased code keeps of its shop. */
export const shopDigest = (platform: string, shop: string): string =>
  createHash('sha256').update(`${platform}:${shop}`).digest('base64url');

/** At a shop's erasure: its code, open or used, kept for an order after a reinstall. */
export async function keepErasedCode(
  store: Pick<RecordRole, 'putRecord'>,
  holder: string,
  reservation: Reservation,
  kept: { until: string; state: ErasedState },
): Promise<void> {
  const { rewardId, points, benefit, expiresAt, createdAt, platformId } = reservation;
  const value: ErasedCode = {
    holder,
    state: kept.state,
    shop: shopDigest(reservation.platform, reservation.shop),
    reservation: reservation.id,
    until: kept.until,
    kept: {
      ...{ rewardId, points, benefit, ...keptForEarlier(benefit) },
      ...{ expiresAt, createdAt, platformId: platformId ?? null },
    },
  };
  await store.putRecord(
    ERASED_CODE_KIND,
    erasedCodeId(reservation.platform, reservation.shop, reservation.code),
    value,
  );
}

/**
 * An order paid with an erased shop's code: its hold becomes the order's reservation again ('used'), and the code is
 * indexed again, so that the order's claim goes on as for any code. The same order again after a crash finds it so;
 * undefined when the code is none of these, or can pay no more.
 */
export async function reviveErasedCode(
  store: Pick<RecordRole, 'getRecord' | 'changeRecord' | 'addRecord' | 'deleteRecord'>,
  at: { platform: string; shop: string; code: string; orderKey: string },
  now: Date,
): Promise<CodeIndex | undefined> {
  const id = erasedCodeId(at.platform, at.shop, at.code);
  const erased = await store.getRecord(ERASED_CODE_KIND, id);
  if (!erased || Date.parse(erased.until) <= now.getTime()) return undefined;
  // Its redeem went, or may have: the order that comes again (a reinstall's import) must not send a second one.
  if (erased.state === 'taken' || erased.state === 'doubt') return undefined;
  const { platformId, ...kept } = erased.kept;
  const used: Reservation = {
    ...kept,
    ...{ id: erased.reservation, platform: at.platform, shop: at.shop, customerId: '', code: at.code.toUpperCase() },
    ...{ state: 'used', orderKey: at.orderKey, platformId: platformId ?? undefined },
  };
  let back = false;
  await store.changeRecord(HOLDER_KIND, erased.holder, (current) => {
    back = current?.reservations.some((each) => each.id === erased.reservation) ?? false;
    const holds = current?.erasedShopHolds ?? [];
    if (!current || back || !holds.some((each) => each.reservation === erased.reservation)) return undefined;
    back = true;
    const left = holds.filter((each) => each.reservation !== erased.reservation);
    return {
      put: {
        ...current,
        reservations: [...current.reservations, used],
        erasedShopHolds: left.length ? left : undefined,
      },
    };
  });
  if (!back) return undefined;
  const index: CodeIndex = {
    ...{ platform: at.platform, shop: at.shop, holder: erased.holder, reservation: erased.reservation },
    createdAt: now.toISOString(),
  };
  await store.addRecord(CODE_KIND, codeIndexId(at.platform, at.shop, at.code), index);
  await store.deleteRecord(ERASED_CODE_KIND, id);
  return index;
}

/** The code's index, or an erased shop's code brought back for the order (reviveErasedCode). */
export async function codeIndexOrErased(
  store: Parameters<typeof reviveErasedCode>[0],
  at: Parameters<typeof reviveErasedCode>[1],
  now: Date,
): Promise<CodeIndex | undefined> {
  const index = await store.getRecord(CODE_KIND, codeIndexId(at.platform, at.shop, at.code));
  return index ?? reviveErasedCode(store, at, now);
}

/**
 * An order's redeem of a code settled (RewardCodes.settled) after its shop's erasure, on another bridge, took the
 * reservation off its holder and held its points by amount, as owed: the redeem went (or was refused, as the
 * reservation's would be), so that hold goes; kept, its points would be spent twice. Nothing when it is not so.
 */
export async function settleErasedHold(
  store: Pick<RecordRole, 'changeRecord'>,
  holder: string,
  reservation: string,
): Promise<void> {
  await store.changeRecord(HOLDER_KIND, holder, (current) => {
    const holds = current?.erasedShopHolds ?? [];
    if (!current || !holds.some((each) => each.reservation === reservation)) return undefined;
    if (current.reservations.some((each) => each.id === reservation)) return undefined;
    const left = holds.filter((each) => each.reservation !== reservation);
    const named = current.customer !== undefined || (current.redeemedEarlier ?? 0) > 0;
    if (left.length === 0 && current.reservations.length === 0 && !named) return { delete: true };
    return { put: { ...current, erasedShopHolds: left.length ? left : undefined } };
  });
}

/** The sweep's: those that can pay no more go. */
export async function dropEndedErasedCodes(
  store: Pick<RecordRole, 'listRecords' | 'deleteRecord'>,
  now: number,
): Promise<void> {
  for (const { id, value } of await store.listRecords(ERASED_CODE_KIND))
    if (Date.parse(value.until) <= now) await store.deleteRecord(ERASED_CODE_KIND, id);
}

/**
 * At a customer's erasure, in one shop or all: the codes kept for their holders go, whether or not the holders stay
 * (their ids name the customer, and a code brought back would tie them to its shop again). Such a code still pays
 * until its expiry, its points held by amount, as before a code was kept. An erasure asked in one shop takes that
 * shop's codes alone: another erased shop's code is that shop's, and an order paying with it after a reinstall must
 * still redeem it (review G, G3). A code kept before its shop was noted, or past its until, goes with any erasure.
 */
export async function dropErasedCodesOf(
  store: Pick<RecordRole, 'listRecords' | 'deleteRecord'>,
  holders: ReadonlySet<string>,
  inShop: { platform?: string | undefined; shop?: string | undefined },
  now: number,
): Promise<void> {
  const only =
    inShop.platform !== undefined && inShop.shop !== undefined ? shopDigest(inShop.platform, inShop.shop) : undefined;
  // One that can pay no more goes too: it keeps nothing for an order, and its holder's id names the customer.
  const theirs = (value: ErasedCode) =>
    only === undefined || value.shop === undefined || value.shop === only || Date.parse(value.until) <= now;
  for (const { id, value } of await store.listRecords(ERASED_CODE_KIND))
    if (holders.has(value.holder) && theirs(value)) await store.deleteRecord(ERASED_CODE_KIND, id);
}

/** The codes kept for the holders, as the customer's export shows them: what they hold, and until when. */
export async function erasedCodesOf(
  store: Pick<RecordRole, 'listRecords'>,
  holders: ReadonlySet<string>,
): Promise<Array<{ points: number; until: string; state: ErasedState }>> {
  return (await store.listRecords(ERASED_CODE_KIND))
    .filter(({ value }) => holders.has(value.holder))
    .map(({ value }) => ({ points: value.kept.points, until: value.until, state: value.state ?? 'issued' }));
}
