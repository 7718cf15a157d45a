// The loyalty service served locally: the same paths, headers, envelope, errors and rate limit as DESIGN.md
// gives them, mounted at /sandbox in sandbox mode or served alone by `npm run sandbox`. It serves several
// accounts (accounts.ts), each with its own key, brand, activities, rate limit and state; its state and
// controls (/_sandbox/*) sit behind control-access.ts.
import express, { type NextFunction, type Request, type Response } from 'express';
import { isSafeNumber, parse as parseLosslessJson } from 'lossless-json';
import { HEADER, SERVICE_MESSAGE, type ReplyStyle } from '../loyalty/protocol.ts';
import { isLoopbackHost } from '../net/addresses.ts';
import {
  SandboxAccountError,
  SandboxAccounts,
  type AccountInput,
  type AccountView,
  type SandboxAccount,
} from './accounts.ts';
import { controlCaller, requireControlAccess, type ControlCaller } from './control-access.ts';
import type { SandboxCredentials } from './credentials.ts';
import { FaultInjector, faultSettingsSchema, type FaultSettingsInput } from './faults.ts';
import * as operations from './operations.ts';
import { replyBody } from './reply.ts';
import type { SandboxState, SandboxStore } from './store.ts';

export interface SandboxOptions {
  /** The first account's credentials: the sandbox's own. */
  apiKey: string;
  brandId: string;
  /** The first account's activities: id to the points it earns. */
  activities?: Record<string, number>;
  /** The first account's calls per window. */
  rateLimit?: number;
  /** Every account's rate window: a minute; tests scale it down. */
  rateWindowMs?: number;
  /** More accounts beside the first, each with its own credentials (random where not given), activities and limit. */
  accounts?: AccountInput[];
  faults?: FaultSettingsInput;
  bodyLimit?: string;
  /** The shape of every reply: the documented envelope (default) or the flat one. */
  replyStyle?: ReplyStyle;
  /** Opens /_sandbox/* as Authorization: Bearer <adminToken>, beside the sandbox's own (not public) credentials. */
  adminToken?: string | undefined;
  /**
   * Answer only requests addressed to this machine by name (Host: localhost,
   * 127.0.0.1, [::1]): the standalone sandbox with the public credentials,
   * which a page in the developer's browser could otherwise reach through a
   * name that resolves to 127.0.0.1 (DNS rebinding).
   */
  loopbackHostOnly?: boolean;
  /** The first account starts from this saved state (SandboxStore.snapshot()) instead of empty: tests that pick up where an earlier run stopped. */
  state?: SandboxState | undefined;
}

export interface Sandbox {
  app: express.Express;
  /** The first account's state. */
  store: SandboxStore;
  /** Service-wide: they apply to every account's calls. */
  faults: FaultInjector;
  /** What callers of the first account must send as x-api-key and x-brand-id. */
  credentials: SandboxCredentials;
  /** Calls refused for being over the rate limit, every account's (not injected faults): a caller that keeps to the limit sees none. */
  readonly refusedForRate: number;
  /** Every account it serves, the first one first. */
  readonly accounts: readonly SandboxAccount[];
  /** Adds an account (random credentials where not given); throws SandboxAccountError when its input is wrong or its key or brand taken. */
  addAccount(input?: AccountInput): SandboxAccount;
  /** Takes an account away (never the first), by its brand id. */
  removeAccount(brandId: string): boolean;
}

type Operation = (
  context: operations.OperationContext,
  params: Record<string, unknown>,
  activityId: string,
) => operations.OperationOutcome;

const ROUTES: Record<string, Operation> = {
  '/loyalty/v1/redeem': (context, params) => operations.redeem(context, params),
  '/loyalty/v1/transaction': (context, params) => operations.transaction(context, params),
  '/loyalty/v1/updatePoints': (context, params) => operations.updatePoints(context, params),
  '/api/v1/conversion/add': (context, params) => operations.addConversion(context, params),
  '/api/v1/conversion/confirm': (context, params) => operations.confirmConversion(context, params),
};
const EARN_PATH = /^\/loyalty\/v1\/earn\/([^/]+)\/?$/;

export function createSandbox(options: SandboxOptions): Sandbox {
  const accounts = new SandboxAccounts({
    credentials: { apiKey: options.apiKey, brandId: options.brandId },
    activities: options.activities,
    rateLimit: options.rateLimit,
    rateWindowMs: options.rateWindowMs ?? 60_000,
  });
  const first = accounts.first;
  if (options.state) first.store.restore(options.state);
  for (const account of options.accounts ?? []) accounts.add(account);
  const faults = new FaultInjector(options.faults);
  const style = options.replyStyle ?? 'envelope';
  const sendFailure = (res: Response, httpStatus: number, message: string, detail: string): void => {
    res.status(httpStatus).json(replyBody(style, false, httpStatus, message, { detail }));
  };
  const sendInjectedFailure = (
    res: Response,
    fault: { status: number; message?: string | undefined; retryAfterSeconds?: number | undefined },
  ): void => {
    if (fault.retryAfterSeconds !== undefined) res.set(HEADER.retryAfter, String(fault.retryAfterSeconds));
    const message =
      fault.message ??
      (fault.status === 429
        ? SERVICE_MESSAGE.rateLimited
        : fault.status >= 500
          ? 'Service unavailable'
          : SERVICE_MESSAGE.invalidSource);
    sendFailure(res, fault.status, message, 'injected fault');
  };
  const readBody = [express.text({ type: () => true, limit: options.bodyLimit ?? '1mb' }), readJsonBody(sendFailure)];
  const findAccount = (apiKey: string, brandId: string) => accounts.find(apiKey, brandId);

  /**
   * The accounts a control call reaches: the one named by ?account=<brand id>
   * for the admin token, or every one; an account's own credentials, only
   * that account. Undefined, answered 404, for a brand the caller does not
   * reach (another account's looks the same as none).
   */
  const reached = (req: Request, caller: ControlCaller): readonly SandboxAccount[] | undefined => {
    const named = req.query.account;
    if (!caller.admin)
      return named === undefined || named === caller.account.credentials.brandId ? [caller.account] : undefined;
    if (named === undefined) return accounts.all;
    const account = typeof named === 'string' ? accounts.byBrand(named) : undefined;
    return account ? [account] : undefined;
  };
  const noSuchAccount = (res: Response) => res.status(404).json({ error: 'no account has this brand id' });
  /** Faults and accounts are the sandbox's, not an account's: the admin token or the sandbox's own (first) credentials. */
  const sandboxWide = (res: Response): boolean => {
    const caller = controlCaller(res);
    if (caller.admin || caller.account === first) return true;
    res.status(403).json({
      error: "faults and accounts are the sandbox's: they take the admin token or the sandbox's own credentials",
    });
    return false;
  };

  // Credentials first, here as below: an unauthenticated body is never read.
  const control = express.Router();
  control.use(requireControlAccess({ adminToken: options.adminToken, findAccount }, sendFailure));
  control.use(readBody);
  control.get('/state', (req, res) => {
    const caller = controlCaller(res);
    const reach = reached(req, caller);
    if (!reach) return noSuchAccount(res);
    // One account: its state as it always was. The admin token without ?account: the first
    // account's at the top (what a single-account sandbox answered), and every account's, grouped.
    if (!caller.admin || req.query.account !== undefined) return res.json(reach[0]?.store.snapshot());
    res.json({
      ...first.store.snapshot(),
      accounts: reach.map((account) => ({ brandId: account.credentials.brandId, ...account.store.snapshot() })),
    });
  });
  control.post('/reset', (req, res) => {
    const reach = reached(req, controlCaller(res));
    if (!reach) return noSuchAccount(res);
    for (const account of reach) account.reset();
    res.json({ reset: true, accounts: reach.map((account) => account.credentials.brandId) });
  });
  control.get('/accounts', (_req, res) => {
    const caller = controlCaller(res);
    const shown = caller.admin || caller.account === first ? accounts.all : [caller.account];
    res.json({ accounts: shown.map((account): AccountView => account.view()) });
  });
  control.post('/accounts', (req, res) => {
    if (!sandboxWide(res)) return;
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
  });
  control.get('/faults', (_req, res) => {
    res.json(faults.settings);
  });
  control.put('/faults', (req, res) => {
    if (!sandboxWide(res)) return;
    const parsed = faultSettingsSchema.safeParse(req.body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      res.status(400).json({ error: `${issue?.path.join('.') || 'body'}: ${issue?.message}` });
      return;
    }
    faults.configure(parsed.data);
    res.json(faults.settings);
  });
  control.use((req, res) =>
    sendFailure(res, 402, SERVICE_MESSAGE.invalidUrl, `unknown path ${req.method} /_sandbox${req.path}`),
  );

  const app = express();
  if (options.loopbackHostOnly) {
    app.use((req, res, next) => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      if (isLoopbackHost(host)) return next();
      sendFailure(
        res,
        421,
        'Misdirected Request',
        'this sandbox answers only requests addressed to localhost, 127.0.0.1 or [::1]',
      );
    });
  }
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use('/_sandbox', control);
  app.use(requireCredentials(findAccount, sendFailure));
  app.use(readBody);

  app.use(async (req: Request, res: Response) => {
    const account = callingAccount(res);
    // The service limits each API key: one account's calls never spend another's.
    const used = account.takeCall();
    if (!used.allowed) {
      res.set(HEADER.retryAfter, String(Math.max(1, Math.ceil(used.retryAfterMs / 1000))));
      return sendFailure(res, 429, SERVICE_MESSAGE.rateLimited, `more than ${account.rateLimit} calls in the window`);
    }

    const earnMatch = EARN_PATH.exec(req.path);
    const operation: Operation | undefined = earnMatch
      ? (ctx, params) => operations.earn(ctx, decodeURIComponent(earnMatch[1] ?? ''), params)
      : ROUTES[req.path.replace(/\/$/, '')];
    if (!operation) return sendFailure(res, 402, SERVICE_MESSAGE.invalidUrl, `unknown path ${req.method} ${req.path}`);
    if (req.method !== 'POST')
      return sendFailure(res, 402, SERVICE_MESSAGE.invalidUrl, `${req.path} takes POST, not ${req.method}`);

    const params = { ...(req.query as Record<string, unknown>), ...(req.body as Record<string, unknown>) };
    if (params.format !== undefined && String(params.format).toUpperCase() !== 'JSON') {
      return sendFailure(res, 400, SERVICE_MESSAGE.invalidSource, 'format must be JSON');
    }
    delete params.format;

    const latency = faults.latencyFor(req.path);
    if (latency > 0) await sleep(latency);
    const fault = faults.decide(req.path);
    if (fault.kind === 'fail' && fault.phase === 'before') return sendInjectedFailure(res, fault);
    if (fault.kind === 'hang' && fault.phase === 'before') return hang(res, fault.ms);

    const outcome = operation(account, params, '');
    if (fault.kind === 'fail') return sendInjectedFailure(res, fault);
    if (fault.kind === 'hang') return hang(res, fault.ms);
    if (!outcome.ok) {
      const message =
        outcome.message ?? (outcome.status === 402 ? SERVICE_MESSAGE.invalidUrl : SERVICE_MESSAGE.invalidSource);
      return sendFailure(res, outcome.status, message, outcome.detail);
    }
    // As the real service documents transaction: no figures at all (the sandbox's own are its addition).
    const data = faults.settings.bareTransactions && req.path.startsWith('/loyalty/v1/transaction') ? {} : outcome.data;
    res.json(replyBody(style, true, 200, outcome.message, data));
  });

  app.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (error.type === 'entity.too.large')
      return sendFailure(res, 413, SERVICE_MESSAGE.invalidSource, 'the body is too large');
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 500;
    sendFailure(
      res,
      status,
      status === 500 ? 'Internal error' : SERVICE_MESSAGE.invalidSource,
      status === 500 ? 'unexpected error' : error.message,
    );
  });

  return {
    app,
    store: first.store,
    faults,
    credentials: first.credentials,
    get refusedForRate() {
      return accounts.all.reduce((sum, account) => sum + account.refusedForRate, 0);
    },
    get accounts() {
      return accounts.all;
    },
    addAccount: (input = {}) => accounts.add(input),
    removeAccount: (brandId) => accounts.remove(brandId),
  };
}

type SendFailure = (res: Response, httpStatus: number, message: string, detail: string) => void;

/** No answer at all until the time is up, then the connection is dropped: a timeout, as the caller sees it. */
function hang(res: Response, ms: number): void {
  const timer = setTimeout(() => res.socket?.destroy(), ms);
  res.on('close', () => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Bodies are parsed losslessly: an order id above 2^53 sent as a JSON number keeps its digits. */
const readJsonBody =
  (sendFailure: SendFailure) =>
  (req: Request, res: Response, next: NextFunction): void => {
    const text = typeof req.body === 'string' ? req.body.trim() : '';
    if (text === '') {
      req.body = {};
      return next();
    }
    let parsed: unknown;
    try {
      parsed = parseLosslessJson(text, undefined, (value) => (isSafeNumber(value) ? Number(value) : value));
    } catch (error) {
      return sendFailure(
        res,
        400,
        SERVICE_MESSAGE.invalidSource,
        `the body is not valid JSON (${(error as Error).message})`,
      );
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return sendFailure(res, 400, SERVICE_MESSAGE.invalidSource, 'the body must be a JSON object');
    }
    req.body = parsed;
    next();
  };

/** The account a call is for: the one whose key and brand it sent, else 401 Invalid auth. */
function requireCredentials(
  findAccount: (apiKey: string, brandId: string) => SandboxAccount | undefined,
  sendFailure: SendFailure,
) {
  return (req: Request, res: Response, next: NextFunction) => {
    const givenKey = req.get(HEADER.apiKey);
    const givenBrand = req.get(HEADER.brandId);
    if (!givenKey || !givenBrand) {
      return sendFailure(res, 401, SERVICE_MESSAGE.invalidAuth, 'the x-api-key and x-brand-id headers are required');
    }
    const account = findAccount(givenKey, givenBrand);
    if (!account) return sendFailure(res, 401, SERVICE_MESSAGE.invalidAuth, 'unknown x-api-key or x-brand-id');
    res.locals.account = account;
    next();
  };
}

const callingAccount = (res: Response): SandboxAccount => res.locals.account as SandboxAccount;
