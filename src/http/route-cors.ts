// CORS for a module's route that names the origins whose scripts may call it (PlatformRoute.cors): a script at
// another origin (a platform's extension sandbox) reads an answer only when the answer names that origin, and
// sends a header such as Authorization only after a preflight the bridge approved. Every other origin gets no
// CORS header at all, so its browser keeps the answer from it. A route open to any origin is answered "*", which a
// browser honours only for a request without credentials, and never with Access-Control-Allow-Credentials.
// https://fetch.spec.whatwg.org/#http-cors-protocol
import type { Request, Response } from 'express';
import type { RouteCors } from '../core/platform-module.ts';

/** How long a browser may keep an approved preflight: Chromium caps it at 2 hours, Firefox at 24. */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

const allowedOrigin = (cors: RouteCors, req: Request): string | undefined => {
  // Any origin, as "*": what the token in the request proves does not depend on where the script runs.
  if (cors.origins === 'any') return '*';
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return undefined;
  // A page's origin is a scheme and a host: "null" (a sandboxed frame, a file) is no store's page.
  if (cors.origins === 'any-page') return /^https?:\/\/[^/\s]+$/.test(origin) ? origin : undefined;
  return cors.origins.includes(origin) ? origin : undefined;
};

/** On every answer of the route: the origin named back when it may read it; Vary, as the answer depends on it. */
export function setCorsHeaders(cors: RouteCors, req: Request, res: Response): void {
  if (cors.origins !== 'any') res.vary('origin');
  const origin = allowedOrigin(cors, req);
  if (origin) res.set('access-control-allow-origin', origin);
}

/** The preflight (OPTIONS): approved for a listed origin asking for the route's method and headers it takes. */
export function answerPreflight(cors: RouteCors, method: string, req: Request, res: Response): void {
  if (cors.origins !== 'any') res.vary('origin');
  res.set('cache-control', 'no-store');
  const origin = allowedOrigin(cors, req);
  const asked = String(req.headers['access-control-request-method'] ?? '');
  const headers = String(req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((each) => each.trim().toLowerCase())
    .filter(Boolean);
  const taken = cors.headers ?? [];
  if (!origin || asked !== method || !headers.every((each) => taken.includes(each))) {
    res.status(403).json({ error: 'this origin may not call this route' });
    return;
  }
  res
    .status(204)
    .set({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': method,
      'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
      ...(taken.length > 0 ? { 'access-control-allow-headers': taken.join(', ') } : {}),
    })
    .end();
}
