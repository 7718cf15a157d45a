// A shop's own loyalty account, from its page: read it, make one (or a trial on the bridge's sandbox), change
// it and its program settings, and its calls against its limit. Each handler is a route of shop-admin-api.ts:
// it reads the request, calls the merchant's service (src/services/merchant.ts) and answers.
import type { RequestHandler } from 'express';
import type { MerchantService } from '../services/merchant.ts';
import { Refused } from '../services/refused.ts';
import { SETTINGS_ELSEWHERE } from './admin-accounts.ts';
import { askerOf, objectOf } from './shop-admin-context.ts';

/** GET /account: the shop's account, if it may read it, and what it may do. */
export const readAccount =
  (merchant: MerchantService): RequestHandler =>
  async (_req, res) => {
    res.json(await merchant.account(askerOf(res)));
  };

/** POST /account: an account the shop makes for itself, linked to it at once. */
export const makeAccount =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    res.status(201).json(await merchant.makeAccount(askerOf(res), objectOf(req.body)));
  };

/** GET /account/settings: the settings in force, and those saved. */
export const readSettings =
  (merchant: MerchantService): RequestHandler =>
  async (_req, res) => {
    res.json(await merchant.settings(askerOf(res)));
  };

/** PATCH /account: the account's name, address, credentials or limit (its settings have a route of their own). */
export const changeAccount =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    const body = () => {
      const value = objectOf(req.body)();
      if ('settings' in value) throw new Refused(400, [SETTINGS_ELSEWHERE]);
      return value;
    };
    res.json(await merchant.changeAccount(askerOf(res), body));
  };

/** PATCH /account/settings: settings as given, over the ones saved. */
export const changeSettings =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    res.json(await merchant.changeSettings(askerOf(res), objectOf(req.body)));
  };

/** GET /account/usage: the account's own calls in the last minute against its limit. */
export const readUsage =
  (merchant: MerchantService): RequestHandler =>
  async (_req, res) => {
    res.json(await merchant.usage(askerOf(res)));
  };
