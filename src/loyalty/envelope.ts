// Every reply of the loyalty service is wrapped the same way:
// {"response": {"data": {...}, "message": "...", "status": "success" | "failure"}}.
// The real service documents no data fields, so data is read loosely: what we
// know is typed, everything else passes through untouched.
import { z } from 'zod';

export const envelopeSchema = z.object({
  response: z.looseObject({
    status: z.string().transform((status) => status.toLowerCase()),
    message: z.string().optional().default(''),
    data: z.unknown().optional(),
  }),
});

export type Envelope = z.infer<typeof envelopeSchema>;

export interface ParsedEnvelope {
  ok: boolean;
  message: string;
  data: Record<string, unknown>;
  /** The service's own explanation of a failure, when it gives one. */
  detail: string | undefined;
}

export type EnvelopeResult = { parsed: true; envelope: ParsedEnvelope } | { parsed: false; why: string };

export function parseEnvelope(body: unknown): EnvelopeResult {
  const result = envelopeSchema.safeParse(body);
  if (!result.success) return { parsed: false, why: result.error.issues[0]?.message ?? 'unexpected shape' };
  const { status, message, data } = result.data.response;
  const record = isRecord(data) ? data : data === undefined || data === null ? {} : { value: data };
  const detail = typeof record.detail === 'string' ? record.detail : undefined;
  return { parsed: true, envelope: { ok: status === 'success', message, data: record, detail } };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
