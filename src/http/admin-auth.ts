// The admin API's door: Authorization: Bearer <ADMIN_TOKEN>, compared in
// constant time. With no ADMIN_TOKEN configured, admin is off and its routes
// answer 404, as if they did not exist.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function requireAdminToken(token: string | undefined) {
  const expected = token === undefined ? undefined : digest(token);
  return (req: Request, res: Response, next: NextFunction) => {
    if (expected === undefined) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    const header = req.get('authorization') ?? '';
    const given = /^Bearer\s+(.+)$/i.exec(header)?.[1] ?? '';
    // Hashing first makes the comparison constant-time whatever the lengths.
    if (!timingSafeEqual(digest(given), expected)) {
      res.status(401).set('www-authenticate', 'Bearer').json({ error: 'a valid admin token is required (Authorization: Bearer <ADMIN_TOKEN>)' });
      return;
    }
    next();
  };
}
