// What the ledger keeps of a delivery's body: the fields its translation reads, and nothing else. A
// platform sends the whole order (street addresses, the buyer's IP and browser, notes); keeping only what
// is read keeps the rest out of the ledger, its dead letters and its backups. Each adapter names its
// fields per topic as a shape; a test holds every shape to what translation reads.
import { isLosslessNumber, parse, stringify } from 'lossless-json';
import { isUtf8 } from 'node:buffer';

/** A number as lossless-json reads it: its exact digits. */
export { isLosslessNumber };

/**
 * The fields kept of a JSON value: `true` keeps the value whole; an object
 * keeps those of its keys that are there (null values and all, since a key's
 * presence can be what is read). Arrays are looked through, as Shopify's
 * include_fields does: refunds.id keeps the id of each refund. A value not of
 * the shape's kind is dropped, which translation reads as absent.
 */
export type Shape = true | { readonly [key: string]: Shape };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);

const DROPPED = Symbol('dropped');

function keep(value: unknown, shape: Shape): unknown {
  if (shape === true || value === null) return value;
  // An item that is not an object holds none of the fields: null keeps its place (a line without a total is
  // read as one), and an array in an array, never read, is not looked into (so no body nests the walk deeper
  // than the shape).
  if (Array.isArray(value)) return value.map((item) => (isObject(item) ? keep(item, shape) : null));
  if (!isObject(value)) return DROPPED;
  const kept: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(shape)) {
    if (!Object.hasOwn(value, key)) continue;
    const item = keep(value[key], inner);
    if (item !== DROPPED) kept[key] = item;
  }
  return kept;
}

/** The value with only the fields of the shape. */
export function keepOnly(value: unknown, shape: Shape): unknown {
  const kept = keep(value, shape);
  return kept === DROPPED ? {} : kept;
}

/** A shape from dotted field names, as Shopify's include_fields are written: customer.default_address.country_code. */
export function shapeOf(fields: readonly string[]): Shape {
  const root: Record<string, Shape> = {};
  for (const field of fields) {
    const parts = field.split('.');
    const last = parts.pop()!;
    let node: Record<string, Shape> | undefined = root;
    for (const part of parts) {
      const next: Shape = node[part] ?? (node[part] = {});
      // A field kept whole already holds everything under it.
      node = next === true ? undefined : (next as Record<string, Shape>);
      if (!node) break;
    }
    if (node) node[last] = true;
  }
  return root;
}

/**
 * The body with only the fields of the shape, as bytes to store. Numbers keep
 * every digit (lossless-json), so an id above 2^53 reads as it came. A body
 * that is not JSON (or not UTF-8) cannot be taken apart, and is kept as it
 * came: translation makes it a dead letter saying why. So is one lossless-json
 * refuses (a key given twice, nesting deeper than its parser goes). `refine`
 * blanks what a shape cannot tell apart (items by their value).
 */
export function keptBody(body: Buffer, shape: Shape, refine: (kept: unknown) => unknown = (kept) => kept): Buffer {
  if (!isUtf8(body)) return body;
  try {
    return Buffer.from(stringify(refine(keepOnly(parse(body.toString('utf8')), shape))) ?? '{}', 'utf8');
  } catch {
    return body;
  }
}
