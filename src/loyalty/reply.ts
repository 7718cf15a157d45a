// What the loyalty service answered, read from either shape it is seen in (the documented envelope
// {"response": {data, message, status}}, and the flat {"status": <int>, "response", "message", ...} of
// /api/v1), and anything else leniently. Never a throw for a field not expected: a call that may have
// succeeded must not be repeated because its answer had another shape.
import { isPlainRecord } from '../plain-record.ts';

export interface ServiceReply {
  /** Which shape it came in, for logs and tests. */
  shape: 'envelope' | 'flat' | 'other';
  ok: boolean;
  message: string;
  data: Record<string, unknown>;
  /** The service's own explanation of a failure, when it gives one. */
  detail: string | undefined;
  /** The status number a flat reply carries beside HTTP's, when it carries one. */
  replyStatus: number | undefined;
}

export type ReplyResult = { readable: true; reply: ServiceReply } | { readable: false; why: string };

const SUCCESS_WORDS = new Set(['success', 'ok', 'true', '1']);
const FAILURE_WORDS = new Set(['failure', 'fail', 'failed', 'error', 'false', '0']);
const FLAT_KEYS = new Set(['status', 'response', 'message']);

/** success, failure, or undefined when the value says neither. */
function verdict(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const word = String(value).trim().toLowerCase();
  return SUCCESS_WORDS.has(word) ? true : FAILURE_WORDS.has(word) ? false : undefined;
}

const isRecord = isPlainRecord;
const text = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
const statusNumber = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value)
    ? value
    : typeof value === 'string' && /^\d{3}$/.test(value.trim())
      ? Number(value)
      : undefined;

/** Reads a parsed JSON body answered with HTTP `httpStatus`. */
export function readReply(body: unknown, httpStatus: number): ReplyResult {
  if (!isRecord(body)) return { readable: false, why: 'not a JSON object' };
  const httpOk = httpStatus >= 200 && httpStatus < 300;

  if (isRecord(body.response)) {
    const inner = body.response;
    const data = isRecord(inner.data)
      ? inner.data
      : inner.data === undefined || inner.data === null
        ? {}
        : { value: inner.data };
    return {
      readable: true,
      reply: finish('envelope', verdict(inner.status) ?? httpOk, text(inner.message), data, undefined),
    };
  }

  const data = Object.fromEntries(Object.entries(body).filter(([key]) => !FLAT_KEYS.has(key)));
  const replyStatus = statusNumber(body.status);
  if (typeof body.response === 'string') {
    const ok = verdict(body.response) ?? (replyStatus === undefined ? httpOk : replyStatus < 400 && httpOk);
    return { readable: true, reply: finish('flat', ok, text(body.message), data, replyStatus) };
  }
  // Neither shape: read what signs there are, and otherwise believe HTTP.
  const error = typeof body.error === 'string' ? body.error : undefined;
  const ok =
    verdict(body.status) ??
    verdict(body.success) ??
    (error !== undefined ? false : replyStatus !== undefined ? replyStatus < 400 && httpOk : httpOk);
  return { readable: true, reply: finish('other', ok, text(body.message) || (error ?? ''), data, replyStatus) };
}

function finish(
  shape: ServiceReply['shape'],
  ok: boolean,
  message: string,
  data: Record<string, unknown>,
  replyStatus: number | undefined,
): ServiceReply {
  const detail = typeof data.detail === 'string' ? data.detail : undefined;
  return { shape, ok, message, data, detail, replyStatus };
}
