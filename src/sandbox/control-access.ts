// Who may read what the sandbox holds and change how it behaves
// (/_sandbox/state, /_sandbox/reset, /_sandbox/faults and whatever joins
// them): the operator, by the admin token, or a caller holding this
// sandbox's own credentials. The state holds customers' names, e-mails and
// phones, so the public default credentials never open it, whatever else
// they may open.
import type { NextFunction, Request, Response } from 'express';
import { HEADER, SERVICE_MESSAGE } from '../loyalty/protocol.ts';
import { sameSecret } from '../same-secret.ts';
import { arePublic, type SandboxCredentials } from './credentials.ts';

type SendFailure = (res: Response, httpStatus: number, message: string, detail: string) => void;

export interface ControlAccess {
  /** Authorization: Bearer <this>. The bridge passes its admin token (ADMIN_TOKEN, or the one made for the run). */
  adminToken: string | undefined;
  /** The sandbox's API credentials: they open the control routes too, unless they are the public defaults. */
  credentials: SandboxCredentials;
}

const REFUSED =
  'the sandbox state and controls take Authorization: Bearer <admin token>, ' +
  'or x-api-key and x-brand-id of credentials of its own (never the public sandbox-key and sandbox-brand)';

export function requireControlAccess({ adminToken, credentials }: ControlAccess, sendFailure: SendFailure) {
  const own = arePublic(credentials) ? undefined : credentials;
  return (req: Request, res: Response, next: NextFunction) => {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1];
    if (bearer !== undefined && adminToken !== undefined && sameSecret(bearer, adminToken)) return next();
    const givenKey = req.get(HEADER.apiKey);
    const givenBrand = req.get(HEADER.brandId);
    if (own && givenKey && givenBrand) {
      // Both compared, always, so timing says nothing about which one was wrong.
      const keyOk = sameSecret(givenKey, own.apiKey);
      const brandOk = sameSecret(givenBrand, own.brandId);
      if (keyOk && brandOk) return next();
    }
    res.set('www-authenticate', 'Bearer');
    sendFailure(res, 401, SERVICE_MESSAGE.invalidAuth, REFUSED);
  };
}
