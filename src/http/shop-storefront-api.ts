// The merchant's storefront settings on the shop's own page: the switch ("Show customers their points in the
// store"), the rewards, the widget and the plugin's code. Each route reads the request and answers what the
// settings service (src/services/storefront-settings.ts) returns, as it is.
import express from 'express';
import {
  storefrontSettingsService,
  type SettingsAnswer,
  type StorefrontSettingsParts,
} from '../services/storefront-settings.ts';
import { byOf, shopRefOf } from './shop-ref.ts';

export { NOT_LINKED } from '../services/storefront-settings.ts';

const send = (res: express.Response, { status, json, headers }: SettingsAnswer): void => {
  if (headers) res.set(headers);
  res.status(status).json(json);
};

export function shopStorefrontApi(parts: StorefrontSettingsParts): express.Router {
  const settings = storefrontSettingsService(parts);
  const router = express.Router();
  router.get('/storefront', async (_req, res) => send(res, await settings.view(shopRefOf(res))));
  router.put('/storefront', async (req, res) => {
    const at = shopRefOf(res);
    const on = (req.body as { on?: unknown } | undefined)?.on;
    if (typeof on !== 'boolean') return void res.status(400).json({ errors: ['on: must be true or false'] });
    send(res, await settings.turn(at, on, byOf(res)));
  });
  // Only to who may connect the plugin, as its sign-in proved (the plugin's door signs it; res.locals.mayConnectPlugin).
  // Never kept by a cache, whatever it answers (a failure too, as before the service).
  router.post('/storefront/plugin-code', async (_req, res) => {
    res.set('cache-control', 'no-store');
    send(res, await settings.pluginCode(shopRefOf(res), res.locals.mayConnectPlugin as boolean | undefined));
  });
  router.get('/storefront/rewards', async (_req, res) => send(res, await settings.rewards(shopRefOf(res))));
  router.put('/storefront/rewards', async (req, res) =>
    send(res, await settings.saveRewards(shopRefOf(res), req.body, byOf(res))),
  );
  return router;
}
