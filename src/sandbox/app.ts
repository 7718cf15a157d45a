// The loyalty service served locally: the same paths, headers, envelope, errors and rate limit as DESIGN.md
// gives them, mounted at /sandbox in sandbox mode or served alone by `npm run sandbox`. It serves several
// accounts (accounts.ts), each with its own key, brand, activities, rate limit and state; its state and
// controls (/_sandbox/*) sit behind control-access.ts.
import express, { type NextFunction, type Request, type Response } from 'express';
import { isSafeNumber, parse as parseLosslessJson } from 'lossless-json';
import { HEADER, SERVICE_MESSAGE, type ReplyStyle } from '../loyalty/protocol.ts';
import { isLoopbackHost } from '../net/addresses.ts';
import { SandboxAccounts, type AccountInput, type SandboxAccount } from './accounts.ts';
import { controlRoutes, type SendFailure } from './control-routes.ts';
import type { SandboxCredentials } from './credentials.ts';
import { FaultInjector, type FaultSettingsInput } from './faults.ts';
import { operationFor } from './operations.ts';
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
  const readBody = [express.text({ type: () => true, limit: options.bodyLimit ?? '1mb' }), readJsonBody(sendFailure)];
  const findAccount = (apiKey: string, brandId: string) => accounts.find(apiKey, brandId);
  const control = controlRoutes({
    accounts,
    first,
    faults,
    adminToken: options.adminToken,
    findAccount,
    sendFailure,
    readBody,
  });

  const app = express();
  if (options.loopbackHostOnly) app.use(loopbackOnly(sendFailure));
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use('/_sandbox', control);
  app.use(requireCredentials(findAccount, sendFailure));
  app.use(readBody);
  app.use(serviceCall(faults, style, sendFailure));
  app.use(answerError(sendFailure));

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

/** Answers only requests addressed to this machine by name (SandboxOptions.loopbackHostOnly). */
function loopbackOnly(sendFailure: SendFailure) {
  return (req: Request, res: Response, next: NextFunction) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (isLoopbackHost(host)) return next();
    sendFailure(
      res,
      421,
      'Misdirected Request',
      'this sandbox answers only requests addressed to localhost, 127.0.0.1 or [::1]',
    );
  };
}

/** A failure the fault injector chose, with its own message or the service's for its status. */
function injectedFailureSender(sendFailure: SendFailure) {
  return (
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
}

/** One call of the service, from an authenticated account with its body read: rate limit, faults, then the operation. */
function serviceCall(faults: FaultInjector, style: ReplyStyle, sendFailure: SendFailure) {
  const sendInjectedFailure = injectedFailureSender(sendFailure);
  return async (req: Request, res: Response) => {
    const account = callingAccount(res);
    // The service limits each API key: one account's calls never spend another's.
    const used = account.takeCall();
    if (!used.allowed) {
      res.set(HEADER.retryAfter, String(Math.max(1, Math.ceil(used.retryAfterMs / 1000))));
      return sendFailure(res, 429, SERVICE_MESSAGE.rateLimited, `more than ${account.rateLimit} calls in the window`);
    }

    const operation = operationFor(req.path);
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
  };
}

/** Errors from the body's readers and the rest: 413 for a body too large, the status a reader gave, else 500. */
function answerError(sendFailure: SendFailure) {
  return (error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (error.type === 'entity.too.large')
      return sendFailure(res, 413, SERVICE_MESSAGE.invalidSource, 'the body is too large');
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 500;
    sendFailure(
      res,
      status,
      status === 500 ? 'Internal error' : SERVICE_MESSAGE.invalidSource,
      status === 500 ? 'unexpected error' : error.message,
    );
  };
}

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
