// The loyalty service served locally: the same paths, headers, envelope,
// errors and rate limit as DESIGN.md gives them. Mounted by the bridge at
// /sandbox in sandbox mode, or served alone by `npm run sandbox`. Its state
// and controls (/_sandbox/*) sit behind control-access.ts.
import express, { type NextFunction, type Request, type Response } from 'express';
import { isSafeNumber, parse as parseLosslessJson } from 'lossless-json';
import { HEADER, SERVICE_MESSAGE, type ReplyStyle } from '../loyalty/protocol.ts';
import { isLoopbackHost } from '../net/addresses.ts';
import { sameSecret } from '../same-secret.ts';
import { requireControlAccess } from './control-access.ts';
import type { SandboxCredentials } from './credentials.ts';
import { FaultInjector, faultSettingsSchema, type FaultSettingsInput } from './faults.ts';
import * as operations from './operations.ts';
import { replyBody } from './reply.ts';
import { SlidingWindowCounter } from './sliding-window.ts';
import { SandboxStore, type SandboxState } from './store.ts';

export interface SandboxOptions {
  apiKey: string;
  brandId: string;
  /** Activity id to the points it earns. */
  activities?: Record<string, number>;
  rateLimit?: number;
  /** A minute; tests scale it down. */
  rateWindowMs?: number;
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
  /** Start from this saved state (SandboxStore.snapshot()) instead of empty: tests that pick up where an earlier run stopped. */
  state?: SandboxState | undefined;
}

export interface Sandbox {
  app: express.Express;
  store: SandboxStore;
  faults: FaultInjector;
  /** What callers must send as x-api-key and x-brand-id. */
  credentials: SandboxCredentials;
  /** Calls refused for being over the rate limit (not injected faults): a caller that keeps to the limit sees none. */
  readonly refusedForRate: number;
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
  const store = new SandboxStore();
  if (options.state) store.restore(options.state);
  const faults = new FaultInjector(options.faults);
  const window = new SlidingWindowCounter(options.rateLimit ?? 500, options.rateWindowMs ?? 60_000);
  let refusedForRate = 0;
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
  const context: operations.OperationContext = {
    store,
    activities: new Map(Object.entries(options.activities ?? { '1': 100 })),
  };

  const credentials: SandboxCredentials = { apiKey: options.apiKey, brandId: options.brandId };
  const readBody = [express.text({ type: () => true, limit: options.bodyLimit ?? '1mb' }), readJsonBody(sendFailure)];

  // Credentials first, here as below: an unauthenticated body is never read.
  const control = express.Router();
  control.use(requireControlAccess({ adminToken: options.adminToken, credentials }, sendFailure));
  control.use(readBody);
  control.get('/state', (_req, res) => {
    res.json(store.snapshot());
  });
  control.post('/reset', (_req, res) => {
    store.reset();
    window.reset();
    res.json({ reset: true });
  });
  control.get('/faults', (_req, res) => {
    res.json(faults.settings);
  });
  control.put('/faults', (req, res) => {
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
  app.use(requireCredentials(credentials, sendFailure));
  app.use(readBody);

  app.use(async (req: Request, res: Response) => {
    const used = window.take(req.get(HEADER.apiKey) ?? '');
    if (!used.allowed) {
      refusedForRate++;
      res.set(HEADER.retryAfter, String(Math.max(1, Math.ceil(used.retryAfterMs / 1000))));
      return sendFailure(
        res,
        429,
        SERVICE_MESSAGE.rateLimited,
        `more than ${options.rateLimit ?? 500} calls in the window`,
      );
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

    const outcome = operation(context, params, '');
    if (fault.kind === 'fail') return sendInjectedFailure(res, fault);
    if (fault.kind === 'hang') return hang(res, fault.ms);
    if (!outcome.ok) {
      const message =
        outcome.message ?? (outcome.status === 402 ? SERVICE_MESSAGE.invalidUrl : SERVICE_MESSAGE.invalidSource);
      return sendFailure(res, outcome.status, message, outcome.detail);
    }
    res.json(replyBody(style, true, 200, outcome.message, outcome.data));
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
    store,
    faults,
    credentials,
    get refusedForRate() {
      return refusedForRate;
    },
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

function requireCredentials({ apiKey, brandId }: SandboxCredentials, sendFailure: SendFailure) {
  return (req: Request, res: Response, next: NextFunction) => {
    const givenKey = req.get(HEADER.apiKey);
    const givenBrand = req.get(HEADER.brandId);
    if (!givenKey || !givenBrand) {
      return sendFailure(res, 401, SERVICE_MESSAGE.invalidAuth, 'the x-api-key and x-brand-id headers are required');
    }
    // Both compared, always, so timing says nothing about which one was wrong.
    const keyOk = sameSecret(givenKey, apiKey);
    const brandOk = sameSecret(givenBrand, brandId);
    if (!keyOk || !brandOk)
      return sendFailure(res, 401, SERVICE_MESSAGE.invalidAuth, 'unknown x-api-key or x-brand-id');
    next();
  };
}
