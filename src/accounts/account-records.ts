// What the ledger keeps of loyalty accounts (records of kind 'account'), of
// which account each shop uses ('shop-link'), and of every change to either
// ('audit'). An account's API key is a secret: the store seals it at rest,
// and nothing shows more of it than its last four characters.
import { z } from 'zod';
import { recordType } from '../core/store/roles/record-types.ts';
import type { ProgramInput } from './program-settings.ts';

export interface AccountRecord {
  id: string;
  name: string;
  baseUrl: string;
  apiKey: string;
  brandId: string;
  rateLimitPerMinute: number;
  /** The program settings saved for it, as given (the configuration's names); the rest are config/default.json's. */
  settings: ProgramInput;
  /** The last check of its credentials: a transaction call, as the pause's probe makes. */
  check?: CredentialsCheck | undefined;
  /**
   * An account on the bridge's own sandbox, made for a merchant's trial
   * ("try it with the sandbox first"): its calls go to that sandbox wherever
   * the bridge serves it now, as the operator's calls do (baseUrl is where it
   * was then). A new address makes it an account like any other.
   */
  onBridgeSandbox?: true | undefined;
  /** Made by a merchant for their own shop (a merchant's reach: reach.ts), rather than by the operator. */
  madeFor?: ShopRef | undefined;
  /**
   * When a shop other than the one it was made for was first linked to it:
   * from then on other merchants' orders may belong to it (they stay with it
   * after their shop moves), so the merchant it was made for never changes it
   * again.
   */
  sharedAt?: string | undefined;
  /**
   * When the operator removed it. Kept for the orders whose calls went to it
   * (an earned order may still be approved or cancelled there); no shop may
   * be linked to it, and it is not listed.
   */
  retiredAt?: string | undefined;
  createdAt: string;
  updatedAt: string;
}

export interface CredentialsCheck {
  status: 'connected' | 'refused' | 'unreachable';
  at: string;
  /** What the service said, or why it could not be asked; never a credential. */
  detail?: string | undefined;
  /**
   * Unreachable because the bridge itself would not send there (an address on this machine or a private
   * network, plain http): the address is to fix, not the service. Absent from checks of earlier releases.
   */
  addressRefused?: true | undefined;
}

export interface ShopRef {
  platform: string;
  shop: string;
}

export interface ShopLink {
  account: string;
  linkedAt: string;
  by: string;
}

/** One change to accounts or links: who, when, what; secrets are never in it. */
export interface AuditEntry {
  at: string;
  /** The admin token's label, or a merchant's session (shop, and the platform's user id when there is one). */
  by: string;
  action: 'account.create' | 'account.update' | 'account.delete' | 'account.settings' | 'shop.link' | 'shop.unlink';
  account?: string | undefined;
  shop?: ShopRef | undefined;
  /** The changed fields and their new values; an API key only as its last four characters. */
  changes?: Record<string, unknown> | undefined;
}

const shopRef = z.looseObject({ platform: z.string(), shop: z.string() });

export const ACCOUNT_KIND = recordType<AccountRecord>(
  'account',
  z.looseObject({
    id: z.string(),
    name: z.string(),
    baseUrl: z.string(),
    apiKey: z.string(),
    brandId: z.string(),
    rateLimitPerMinute: z.number(),
    // As given, each key checked when the settings are used (program-settings.ts).
    settings: z.record(z.string(), z.unknown()),
    check: z
      .looseObject({
        status: z.enum(['connected', 'refused', 'unreachable']),
        at: z.string(),
        detail: z.string().optional(),
        addressRefused: z.literal(true).optional(),
      })
      .optional(),
    onBridgeSandbox: z.literal(true).optional(),
    madeFor: shopRef.optional(),
    sharedAt: z.string().optional(),
    retiredAt: z.string().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

export const SHOP_LINK_KIND = recordType<ShopLink>(
  'shop-link',
  z.looseObject({ account: z.string(), linkedAt: z.string(), by: z.string() }),
);

export const AUDIT_KIND = recordType<AuditEntry>(
  'audit',
  z.looseObject({
    at: z.string(),
    by: z.string(),
    action: z.enum([
      'account.create',
      'account.update',
      'account.delete',
      'account.settings',
      'shop.link',
      'shop.unlink',
    ]),
    account: z.string().optional(),
    shop: shopRef.optional(),
    changes: z.record(z.string(), z.unknown()).optional(),
  }),
);

export const shopLinkId = ({ platform, shop }: ShopRef) => `${platform}:${shop}`;

/** The last four characters of a key, for people who must tell two keys apart. */
export const keyHint = (key: string) => (key.length <= 8 ? '…' : `…${key.slice(-4)}`);
