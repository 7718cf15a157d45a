// The dashboard at /admin: one static page that signs in with the admin token
// (kept in the tab's sessionStorage, never in a URL) and reads the admin API.
// A merchant gets their own page instead, inside their platform's admin or
// out of it (merchant-page.ts).
import { fileURLToPath } from 'node:url';
import express from 'express';

const ASSETS = fileURLToPath(new URL('./dashboard/', import.meta.url));
/** The one date formatter, the merchant's page's (merchant/dates.js), served to the dashboard too. */
const DATES = fileURLToPath(new URL('./merchant/dates.js', import.meta.url));

const OPERATOR_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

export function dashboard(): express.Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    // The page loads only its own files; nothing inline runs.
    res.set('content-security-policy', OPERATOR_CSP);
    res.set('x-content-type-options', 'nosniff');
    res.set('referrer-policy', 'no-referrer');
    next();
  });
  router.get('/dates.js', (_req, res) => res.sendFile(DATES, { maxAge: 0 }));
  router.use(express.static(ASSETS, { index: 'index.html', maxAge: 0 }));
  return router;
}
