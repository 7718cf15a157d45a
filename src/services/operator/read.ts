// A request's input read with its schema: the value, or a BadInput naming the first field that cannot be used.
import type { z } from 'zod';
import { BadInput } from '../refused.ts';

export function read<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  throw new BadInput(field, issue?.message ?? 'is invalid');
}
