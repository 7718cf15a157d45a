// A request id for every request: the caller's x-request-id when it sends a
// sane one (a proxy's), else a new one. It goes back in the response header
// and into every log line about the request.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
  res.setHeader('x-request-id', id);
  return id;
}
