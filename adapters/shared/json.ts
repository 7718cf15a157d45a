// Platform JSON is parsed losslessly: an order id above 2^53 arrives as its
// exact digits (a string), never as a rounded JS number.
import { isSafeNumber, parse } from 'lossless-json';

export type JsonParse = { ok: true; value: unknown } | { ok: false; reason: string };

// A bare number of 16 digits or more may be above 2^53; one with 15 or fewer never is.
const MAYBE_UNSAFE_NUMBER = /[:[,]\s*-?\d{16,}/;

export function parseJsonLossless(text: string): JsonParse {
  try {
    // The native parser is many times faster; the lossless one is needed only when a number could lose digits.
    if (!MAYBE_UNSAFE_NUMBER.test(text)) return { ok: true, value: JSON.parse(text) as unknown };
    return { ok: true, value: parse(text, undefined, (digits) => (isSafeNumber(digits) ? Number(digits) : digits)) };
  } catch {
    // Never the parser's own message: it quotes the text around the fault, which can be a customer's e-mail.
    return { ok: false, reason: `the body is not valid JSON${faultPosition(text)}` };
  }
}

/** Where the JSON goes wrong, as a position only (lossless-json says it; V8's messages quote the text instead). */
function faultPosition(text: string): string {
  try {
    parse(text);
    return '';
  } catch (error) {
    const position = /at position (\d+)/.exec((error as Error).message)?.[1];
    return position === undefined ? '' : ` (at character ${position})`;
  }
}

/** An id as exact decimal digits, from a number or a string; undefined when it is not one. */
export function idDigits(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === 'string' && /^\d{1,40}$/.test(value)) return value;
  return undefined;
}

/** An ISO timestamp from whatever the platform wrote, or undefined. */
export function isoTime(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const time = Date.parse(value.includes('T') || !/^\d{4}-\d\d-\d\d \d/.test(value) ? value : value.replace(' ', 'T'));
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

export type JsonObject = Record<string, unknown>;

export const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

export const asString = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;

export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A money amount as a decimal string, from a number or a string; undefined when it is not one. */
export function decimalText(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : (asString(value) ?? '');
  return /^-?\d+(\.\d+)?$/.test(text) ? text : undefined;
}

/** A string or number value as text (attribute values come as either); null otherwise. */
export const scalarText = (value: unknown): string | null =>
  typeof value === 'number' ? String(value) : asString(value);
