// What a shop's page reads of its own orders (and who is signed in), what needs its attention, and its dead
// letters, which it may send again. Each handler is a route of shop-admin-api.ts: it reads the request, calls the
// merchant's service (src/services/merchant.ts) and answers; another shop's is a 404.
import type { RequestHandler } from 'express';
import type { MerchantService } from '../services/merchant.ts';
import { orderQuery, read } from './admin-api.ts';
import { askerOf, notFound } from './shop-admin-context.ts';

/** A shop's query may narrow its own orders, never name a platform or shop. */
const shopOrderQuery = orderQuery.omit({ platform: true, shop: true });

/** GET /session: who is signed in, and what the page calls the shop. */
export const readSession =
  (merchant: MerchantService): RequestHandler =>
  async (_req, res) => {
    res.json(await merchant.session(askerOf(res)));
  };

/** GET /orders: a page of the shop's orders, with their words and points. */
export const listOrders =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    res.json(await merchant.orders(askerOf(res), read(shopOrderQuery, req.query)));
  };

/** GET /orders/:key: one of the shop's orders in full. */
export const readOrder =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    const order = await merchant.order(askerOf(res), String(req.params.key));
    if (!order) return notFound(res, `no order ${req.params.key}`);
    res.json(order);
  };

/** GET /:platform/shops: its own platform's installs alone, and only its own shop's access in them. */
export const listShops =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    const shops = await merchant.shops(askerOf(res), String(req.params.platform));
    if (!shops) return notFound(res, 'not found');
    res.json(shops);
  };

/** GET /attention: what Home tells the merchant to look at. */
export const readAttention =
  (merchant: MerchantService): RequestHandler =>
  async (_req, res) => {
    res.json(await merchant.attention(askerOf(res)));
  };

/** GET /dead-letters: what could not go on, of this shop. */
export const listDeadLetters =
  (merchant: MerchantService): RequestHandler =>
  async (_req, res) => {
    res.json(await merchant.deadLetters(askerOf(res)));
  };

/** POST /dead-letters/:id/retry: one of the shop's dead letters sent again. */
export const retryLetter =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    const result = await merchant.retryLetter(askerOf(res), String(req.params.id));
    if (!result) return notFound(res, `no dead letter ${req.params.id}`);
    res.status(result.retried ? 200 : 409).json(result);
  };
