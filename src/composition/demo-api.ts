// The demo shops' APIs, on a first run, for a platform whose deliveries name their order only (PlatformDemo.api):
// its module reads each order from the store, so the demo's shop answers those reads on the bridge, below
// /demo/api/<platform>, from the orders it sent as each stands now (its last step delivered), and its module's
// adapter is the one that reads them there, for the demo's shop alone. Nothing answers once the demo stopped.
import express, { type RequestHandler } from 'express';
import type { PlatformAdapter } from '../core/platform-adapter.ts';
import type { DemoApi, DemoOrderState } from '../core/platform-module.ts';
import type { DemoPlayer, SentOrder } from './demo-store.ts';

/** Below the demo's prefix (DEMO_PAGE_PREFIX); each platform's API below it, at /<platform>. */
export const API_PATH = '/api';

/** The orders as they stand: each sent order with a step delivered, at its last. */
export const orderStates = (sent: readonly SentOrder[]): DemoOrderState[] =>
  sent.flatMap(({ id, number, order, deliveries }) => {
    const first = deliveries[0];
    const last = deliveries.at(-1);
    return first && last ? [{ id, number, order, step: last.step, createdAt: first.at, at: last.at }] : [];
  });

/**
 * The module's adapter with the demo's reading its demo shop's deliveries: the rest, the module's own (a store of
 * the merchant's connected while the demo plays is read as ever).
 */
export function demoReadingAdapter(
  own: PlatformAdapter<unknown> | undefined,
  demo: PlatformAdapter<unknown>,
  shop: string,
): PlatformAdapter<unknown> {
  if (!own) return demo;
  return { ...own, translate: (stored) => (stored.shop === shop ? demo : own).translate(stored) };
}

/** GET /demo/api/<platform>/...: the demo shop's answers to its module's reads, while the demo plays. */
export function demoApiRoutes(parts: {
  player: DemoPlayer;
  api: DemoApi;
  sent(): readonly SentOrder[];
  playing(): boolean;
}): express.Router {
  const { player, api } = parts;
  const answer: RequestHandler = (req, res) => {
    if (!parts.playing()) return void res.status(404).json({ error: 'not found' });
    const query = Object.entries(req.query).flatMap(([key, value]) =>
      typeof value === 'string' ? [[key, value] as const] : [],
    );
    const headers = Object.fromEntries(
      Object.entries(req.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
    );
    const answered = api.answer({
      method: req.method,
      path: req.path,
      query,
      headers,
      secret: player.secret,
      orders: orderStates(parts.sent()),
    });
    if (!answered) return void res.status(404).json({ error: 'not found' });
    res.status(answered.status).set('cache-control', 'no-store').json(answered.body);
  };
  return express.Router().get('/*path', answer);
}
