// The admin API's door: Authorization: Bearer <ADMIN_TOKEN>, compared in
// constant time. With no ADMIN_TOKEN configured, admin is off and its routes
// answer 404, as if they did not exist.
import type { NextFunction, Request, Response } from 'express';
import { sameSecret } from '../same-secret.ts';

export function requireAdminToken(token: string | undefined) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (token === undefined) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    const header = req.get('authorization') ?? '';
    const given = /^Bearer\s+(.+)$/i.exec(header)?.[1] ?? '';
    if (!sameSecret(given, token)) {
      res
        .status(401)
        .set('www-authenticate', 'Bearer')
        .json({ error: 'a valid admin token is required (Authorization: Bearer <ADMIN_TOKEN>)' });
      return;
    }
    next();
  };
}
