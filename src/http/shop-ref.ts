// Which shop a caller let in by a shop door acts for, and who it is in the audit. Every door says which
// platform's shop it let in (res.locals.platform) and which shop (res.locals.shop): a request with neither
// never reached the shop routes through a door, so it is refused rather than taken for some platform's.
import type { Response } from 'express';
import type { ShopRef } from '../accounts/account-records.ts';

const said = (res: Response, what: 'platform' | 'shop'): string => {
  const value: unknown = res.locals[what];
  if (typeof value !== 'string' || value === '') throw new Error(`a shop route was reached without a door's ${what}`);
  return value;
};

/** The shop a caller let in by a shop door acts for. */
export const shopRefOf = (res: Response): ShopRef => ({ platform: said(res, 'platform'), shop: said(res, 'shop') });

/** Who made a change, in the audit: the shop's session, and the staff member when its session names one. */
export const byOf = (res: Response): string => {
  const { platform, shop } = shopRefOf(res);
  return `${platform} ${shop}${typeof res.locals.user === 'string' ? ` (staff ${res.locals.user})` : ''}`;
};
