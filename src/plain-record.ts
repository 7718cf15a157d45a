// Whether a parsed value is an object of named fields (JSON's object), not null, an array or a scalar: the one
// check before reading a field of something that came from outside (a reply, a file, a stored record).
export const isPlainRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
