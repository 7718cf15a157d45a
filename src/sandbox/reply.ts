// The two shapes the service's replies are seen in. The documentation's
// "Getting Started" gives the envelope, {"response": {data, message, status}};
// code calling /api/v1 reads a flat {"status": <int>, "response": "success" |
// "fail", "message": ..., <data fields>}. SANDBOX_REPLY_STYLE picks one, so
// the client is tested against both.
import type { ReplyStyle } from '../loyalty/protocol.ts';

export function replyBody(
  style: ReplyStyle,
  ok: boolean,
  httpStatus: number,
  message: string,
  data: Record<string, unknown>,
): Record<string, unknown> {
  if (style === 'flat') return { ...data, status: httpStatus, response: ok ? 'success' : 'fail', message };
  return { response: { data, message, status: ok ? 'success' : 'failure' } };
}
