// Who may read what the sandbox holds and change how it behaves (/_sandbox/*): the operator, by the admin
// token, or a caller with one of its accounts' own credentials, for that account. The state holds customers'
// names, e-mails and phones, so the public default credentials never open it.
import type { NextFunction, Request, Response } from 'express';
import { HEADER, SERVICE_MESSAGE } from '../loyalty/protocol.ts';
import { sameSecret } from '../same-secret.ts';
import type { SandboxAccount } from './accounts.ts';
import { arePublic } from './credentials.ts';

type SendFailure = (res: Response, httpStatus: number, message: string, detail: string) => void;

export interface ControlAccess {
  /** Authorization: Bearer <this>. The bridge passes its admin token (ADMIN_TOKEN, or the one made for the run). */
  adminToken: string | undefined;
  /** The account these API credentials are: they open the control routes too, for that account, unless they are the public defaults. */
  findAccount(apiKey: string, brandId: string): SandboxAccount | undefined;
}

/** Who is calling: the operator (every account), or one account's holder. */
export type ControlCaller = { admin: true } | { admin: false; account: SandboxAccount };

const REFUSED =
  'the sandbox state and controls take Authorization: Bearer <admin token>, ' +
  'or x-api-key and x-brand-id of credentials of its own (never the public sandbox-key and sandbox-brand)';

export function requireControlAccess({ adminToken, findAccount }: ControlAccess, sendFailure: SendFailure) {
  return (req: Request, res: Response, next: NextFunction) => {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1];
    if (bearer !== undefined && adminToken !== undefined && sameSecret(bearer, adminToken)) {
      res.locals.controlCaller = { admin: true } satisfies ControlCaller;
      return next();
    }
    const givenKey = req.get(HEADER.apiKey);
    const givenBrand = req.get(HEADER.brandId);
    const account = givenKey && givenBrand ? findAccount(givenKey, givenBrand) : undefined;
    if (account && !arePublic(account.credentials)) {
      res.locals.controlCaller = { admin: false, account } satisfies ControlCaller;
      return next();
    }
    res.set('www-authenticate', 'Bearer');
    sendFailure(res, 401, SERVICE_MESSAGE.invalidAuth, REFUSED);
  };
}

/** Who requireControlAccess let in. */
export const controlCaller = (res: Response): ControlCaller => res.locals.controlCaller as ControlCaller;
