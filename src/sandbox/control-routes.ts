// The sandbox's control routes (/_sandbox/*): its state, resets, accounts and faults, behind control-access.ts.
import express, { type Request, type RequestHandler, type Response } from 'express';
import { SERVICE_MESSAGE } from '../loyalty/protocol.ts';
import { SandboxAccountError, type AccountView, type SandboxAccount, type SandboxAccounts } from './accounts.ts';
import { controlCaller, requireControlAccess, type ControlCaller } from './control-access.ts';
import { faultSettingsSchema, type FaultInjector } from './faults.ts';

export type SendFailure = (res: Response, httpStatus: number, message: string, detail: string) => void;

export interface ControlParts {
  accounts: SandboxAccounts;
  /** The sandbox's own account, as it was when the sandbox was made. */
  first: SandboxAccount;
  faults: FaultInjector;
  adminToken: string | undefined;
  findAccount: (apiKey: string, brandId: string) => SandboxAccount | undefined;
  sendFailure: SendFailure;
  /** The body's readers, the same the service's calls go through. */
  readBody: RequestHandler[];
}

export function controlRoutes(parts: ControlParts): express.Router {
  const { adminToken, findAccount, sendFailure, readBody } = parts;
  // Credentials first, here as below: an unauthenticated body is never read.
  const control = express.Router();
  control.use(requireControlAccess({ adminToken, findAccount }, sendFailure));
  control.use(readBody);
  control.get('/state', showState(parts));
  control.post('/reset', resetAccounts(parts));
  control.get('/accounts', listAccounts(parts));
  control.post('/accounts', addAccount(parts));
  control.get('/faults', showFaults(parts));
  control.put('/faults', configureFaults(parts));
  control.use((req, res) =>
    sendFailure(res, 402, SERVICE_MESSAGE.invalidUrl, `unknown path ${req.method} /_sandbox${req.path}`),
  );
  return control;
}

/**
 * The accounts a control call reaches: the one named by ?account=<brand id>
 * for the admin token, or every one; an account's own credentials, only
 * that account. Undefined, answered 404, for a brand the caller does not
 * reach (another account's looks the same as none).
 */
function reached(
  accounts: SandboxAccounts,
  req: Request,
  caller: ControlCaller,
): readonly SandboxAccount[] | undefined {
  const named = req.query.account;
  if (!caller.admin)
    return named === undefined || named === caller.account.credentials.brandId ? [caller.account] : undefined;
  if (named === undefined) return accounts.all;
  const account = typeof named === 'string' ? accounts.byBrand(named) : undefined;
  return account ? [account] : undefined;
}

const noSuchAccount = (res: Response) => res.status(404).json({ error: 'no account has this brand id' });

/** Faults and accounts are the sandbox's, not an account's: the admin token or the sandbox's own (first) credentials. */
function sandboxWide(first: SandboxAccount, res: Response): boolean {
  const caller = controlCaller(res);
  if (caller.admin || caller.account === first) return true;
  res.status(403).json({
    error: "faults and accounts are the sandbox's: they take the admin token or the sandbox's own credentials",
  });
  return false;
}

function showState({ accounts, first }: ControlParts): RequestHandler {
  return (req, res) => {
    const caller = controlCaller(res);
    const reach = reached(accounts, req, caller);
    if (!reach) return noSuchAccount(res);
    // One account: its state as it always was. The admin token without ?account: the first
    // account's at the top (what a single-account sandbox answered), and every account's, grouped.
    if (!caller.admin || req.query.account !== undefined) return res.json(reach[0]?.store.snapshot());
    res.json({
      ...first.store.snapshot(),
      accounts: reach.map((account) => ({ brandId: account.credentials.brandId, ...account.store.snapshot() })),
    });
  };
}

function resetAccounts({ accounts }: ControlParts): RequestHandler {
  return (req, res) => {
    const reach = reached(accounts, req, controlCaller(res));
    if (!reach) return noSuchAccount(res);
    for (const account of reach) account.reset();
    res.json({ reset: true, accounts: reach.map((account) => account.credentials.brandId) });
  };
}

function listAccounts({ accounts, first }: ControlParts): RequestHandler {
  return (_req, res) => {
    const caller = controlCaller(res);
    const shown = caller.admin || caller.account === first ? accounts.all : [caller.account];
    res.json({ accounts: shown.map((account): AccountView => account.view()) });
  };
}

function addAccount({ accounts, first }: ControlParts): RequestHandler {
  return (req, res) => {
    if (!sandboxWide(first, res)) return;
    try {
      const account = accounts.add(req.body);
      // The one answer that shows the key: whoever added the account needs it to call.
      res.status(201).json({
        account: {
          apiKey: account.credentials.apiKey,
          brandId: account.credentials.brandId,
          activities: Object.fromEntries(account.activities),
          rateLimitPerMinute: account.rateLimit,
        },
      });
    } catch (error) {
      if (!(error instanceof SandboxAccountError)) throw error;
      res.status(error.status).json({ error: error.message });
    }
  };
}

function showFaults({ faults }: ControlParts): RequestHandler {
  return (_req, res) => {
    res.json(faults.settings);
  };
}

function configureFaults({ faults, first }: ControlParts): RequestHandler {
  return (req, res) => {
    if (!sandboxWide(first, res)) return;
    const parsed = faultSettingsSchema.safeParse(req.body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      res.status(400).json({ error: `${issue?.path.join('.') || 'body'}: ${issue?.message}` });
      return;
    }
    faults.configure(parsed.data);
    res.json(faults.settings);
  };
}
