// A request the way a platform's server sends one to the bridge: raw bytes,
// given headers, a deadline, and no redirect followed. Test certificates are
// self-signed (test/helpers/https-front.ts), so TLS is not verified here.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface PostAnswer {
  status: number;
  body: string;
}

/** status 0: no answer (refused, reset, or past the deadline). */
export function outboundPost(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostAnswer> {
  return outbound('POST', url, headers, body, timeoutMs);
}

export function outbound(
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostAnswer> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const length = method === 'POST' ? { 'content-length': String(Buffer.byteLength(body)) } : {};
    const req = send(
      target,
      { method, headers: { ...headers, ...length }, rejectUnauthorized: false, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve({ status: 0, body: '' }));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end(method === 'POST' ? body : undefined);
  });
}
