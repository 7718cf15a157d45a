// The values a platform's capabilities (capabilities/) take and give: a reward code asked for, a customer's
// contact, who asks the storefront, a store as the operator's panel shows it, a setting's problem.
import type { RewardBenefit } from './reward-benefit.ts';

/** Whether an install can serve something now, or what it lacks: scopes the merchant approves, with why in words. */
export type Readiness = { ready: true } | { ready: false; missingScopes: string[]; why: string };

/** A session of the merchant page the bridge made, as a door is asked whether it still opens. */
export interface DoorSession {
  shop: string;
  user?: string;
  issuedAt: number;
}

/** A reward's code as the platform makes it: for one customer, used once, until it expires. */
export interface DiscountCodeRequest {
  shop: string;
  /** The platform's own id of the customer the code is for: only they may use it, where the platform allows. */
  customerId: string;
  /**
   * The customer's e-mail, where the account knows them by one: for a platform that keeps a code to a customer by
   * their e-mail rather than by their id. Platforms that key codes by customerId ignore it.
   */
  email?: string;
  /**
   * The code's text, chosen by the bridge before the code exists (long and random): a code whose make answered
   * nothing (a crash, a lost answer) is found again by it (`find`) and removed.
   */
  code: string;
  /** The code's name in the store's admin ("Loyalty reward: 500 points"). */
  title: string;
  /** What the code gives (reward-benefit.ts): each platform's maker makes every kind, or says it cannot. */
  benefit: RewardBenefit;
  /** The smallest order subtotal it applies to, or none. */
  minimumOrder: string | null;
  startsAt: string;
  expiresAt: string;
  /**
   * Whether it combines with product and shipping discounts. Never with another order discount: an order pays
   * with at most one of the bridge's codes, so its one redeem is that code's.
   */
  combinesWithOthers: boolean;
}

/** What making a code came to: the platform's id of it, or the install may not make codes (a scope it lacks). */
export type MadeCode = { kind: 'made'; platformId: string } | { kind: 'not-allowed'; why: string };

/** A customer's identifiers at the loyalty service, as the platform's customer record has them. */
export interface CustomerContact {
  email?: string;
  /** E.164, where the record has a phone. */
  phone?: string;
}

/** Who is asking the storefront: a customer of a shop, a guest of it, or a request the platform did not sign. */
export type StorefrontAsker =
  | {
      kind: 'customer';
      shop: string;
      customerId: string;
      /**
       * Who they are at the loyalty service, where what the platform signed carries it (a token the store's own
       * server signs with their e-mail and phone): then `contact` is not asked. Absent: read with `contact`.
       */
      contact?: CustomerContact;
      /**
       * The platform names them by an address they have not proven yet (one the store never checked): they are
       * read as no one, and asked to prove it (the answer's `proveContact`, which the widget's transport carries
       * out on the store's side).
       */
      contactUnproven?: true;
    }
  | { kind: 'guest'; shop: string }
  | { kind: 'refused' };

/** One store as the operator's stores panel shows it: never a key, token or secret. */
export interface StoreConnectionView {
  shop: string;
  /** Its address, where the platform names stores by one. */
  url: string | null;
  /** How the bridge came to serve it: environment (configured), connect, app (installed). */
  via: string;
  connectedAt: string | null;
  /** What its key may do, where the platform says. */
  keyPermissions: string | null;
  /** How its key gets through (the query string where the server drops the Authorization header). */
  authMode: string | null;
}

/** Where a connect lands once approved: the operator's dashboard, or the store's own page (a link made for its merchant). */
export type ConnectLanding = 'dashboard' | 'store-page';

/** One shop's install, as the dashboard shows it (the module may say more). */
export interface PlatformInstall {
  shop: string;
  access: string;
  expiresAt: string | null;
  scope: string | null;
}

/** A setting that is wrong given the others: one line, for one key. */
export interface SettingProblem {
  key: string;
  message: string;
}
