// A secret a browser keeps in a cookie of the bridge's (adapters/shared/browser-secret.ts), read from an express
// request: a WooCommerce sign-in's return shows with it that it is the browser that began.
import type { Request } from 'express';
import { keptSecret as keptInHeader } from '../../adapters/shared/browser-secret.ts';

export { newSecret, secretHash } from '../../adapters/shared/browser-secret.ts';

/** The secret this browser keeps in `cookie`, if it has one of the bridge's making. */
export const keptSecret = (req: Request, cookie: string): string | undefined => keptInHeader(req.get('cookie'), cookie);
