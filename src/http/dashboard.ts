// The dashboard at /admin: one static page that signs in with the admin token
// (kept in the tab's sessionStorage, never in a URL) and reads the admin API.
import { fileURLToPath } from 'node:url';
import express from 'express';

const ASSETS = fileURLToPath(new URL('./dashboard/', import.meta.url));

export function dashboard(): express.Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    // The page loads only its own files; nothing inline runs.
    res.set('content-security-policy', "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'");
    res.set('x-content-type-options', 'nosniff');
    res.set('referrer-policy', 'no-referrer');
    next();
  });
  router.use(express.static(ASSETS, { index: 'index.html', maxAge: 0 }));
  return router;
}
