// One attempt at a call of the loyalty service: it is sent, its reply read, and its outcome reported; a
// failure becomes the LoyaltyError the client's retries judge. The client sends every attempt through here.
import { type Got, RequestError } from 'got';
import { refusalOf } from '../net/refusal.ts';
import {
  errorForResponse,
  LoyaltyError,
  networkError,
  redirectError,
  refusedAddressError,
  unreadableResponse,
} from './errors.ts';
import { withoutSentPersonalData } from './personal-data.ts';
import { HEADER } from './protocol.ts';
import { readReply } from './reply.ts';

export interface AttemptReport {
  operation: string;
  attempt: number;
  durationMs: number;
  outcome: 'success' | LoyaltyError['kind'];
  httpStatus: number | undefined;
}

/** What an attempt needs of its client: where and how it sends, and who is told of it. */
export interface Sender {
  http: Got;
  baseUrl: () => string;
  onAttempt: ((attempt: AttemptReport) => void) | undefined;
}

export async function sendAttempt(
  sender: Sender,
  operation: string,
  path: string,
  json: Record<string, unknown>,
  attempt: number,
) {
  const started = performance.now();
  let httpStatus: number | undefined;
  const url = `${sender.baseUrl()}${path}`;
  try {
    const response = await sender.http.post(url, { json });
    httpStatus = response.statusCode;
    if (response.statusCode >= 300 && response.statusCode < 400) {
      throw redirectError(operation, response.statusCode, url, headerText(response.headers.location), path);
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      if (response.statusCode >= 400)
        throw errorForResponse({
          operation,
          httpStatus: response.statusCode,
          retryAfterMs: parseRetryAfter(response.headers[HEADER.retryAfter]),
        });
      throw unreadableResponse(operation, response.statusCode, 'not JSON');
    }
    const read = readReply(body, response.statusCode);
    if (!read.readable) {
      if (response.statusCode >= 400) throw errorForResponse({ operation, httpStatus: response.statusCode });
      throw unreadableResponse(operation, response.statusCode, read.why);
    }
    const { reply } = read;
    if (response.statusCode >= 300 || !reply.ok) {
      // The service's words go into dead letters and logs: whatever of the customer it echoes from the call is taken out.
      const withoutCustomer = (text: string | undefined) =>
        text === undefined ? undefined : withoutSentPersonalData(text, json);
      throw errorForResponse({
        operation,
        httpStatus: response.statusCode,
        replyStatus: reply.replyStatus,
        serviceMessage: withoutCustomer(reply.message) ?? '',
        detail: withoutCustomer(reply.detail),
        retryAfterMs: parseRetryAfter(response.headers[HEADER.retryAfter]),
      });
    }
    report(sender, operation, attempt, started, 'success', httpStatus);
    return { message: reply.message, data: reply.data };
  } catch (error) {
    const refusal = error instanceof LoyaltyError ? undefined : refusalOf(error);
    if (refusal?.kind === 'redirect') httpStatus = refusal.status;
    const failure =
      error instanceof LoyaltyError
        ? error
        : refusal?.kind === 'redirect'
          ? redirectError(operation, refusal.status, url, refusal.to, path)
          : refusal
            ? refusedAddressError(operation, refusal)
            : networkError(
                operation,
                error instanceof RequestError ? error.code : ((error as Error).name ?? 'unknown'),
              );
    report(sender, operation, attempt, started, failure.kind, httpStatus);
    throw failure;
  }
}

function report(
  sender: Sender,
  operation: string,
  attempt: number,
  started: number,
  outcome: AttemptReport['outcome'],
  httpStatus: number | undefined,
) {
  sender.onAttempt?.({ operation, attempt, durationMs: performance.now() - started, outcome, httpStatus });
}

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Retry-After is seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
