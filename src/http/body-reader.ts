// Reading webhook bodies at a bounded cost. Only requests with their platform's signature header get here,
// but that header is free to forge: so bodies are read a limited number at a time, each within a size limit
// and a deadline that counts the wait for a turn, and a body that does not start within two seconds of its
// turn gives the turn up. A sender that trickles bodies costs at most the reads in flight times the size
// limit, for at most the deadline; one that holds sockets idle, two seconds a turn.
import type { IncomingMessage } from 'node:http';
import PQueue from 'p-queue';
import getRawBody from 'raw-body';

export interface BodyLimits {
  maxBytes: number;
  /** From the request's arrival to its last byte, the wait for a turn included. */
  deadlineMs: number;
  /** Bodies read at once; the others wait their turn, within their deadline. */
  concurrentReads: number;
}

export type BodyRead =
  | { ok: true; body: Buffer }
  | { ok: false; status: 400 | 408 | 413 | 503; reason: 'too_large' | 'too_slow' | 'unreadable' | 'busy' };

/** How many requests may wait for a turn, per read in flight, before the next is told to come back later. */
const WAITING_PER_READ = 4;
/**
 * Once a request has its turn, its body must start at once: a platform sends
 * it with its headers. A connection that holds a turn without sending (idle
 * sockets filling the reads, so that real deliveries wait) loses it quickly.
 */
const FIRST_BYTE_MS = 2_000;

export function bodyReader(limits: BodyLimits): (req: IncomingMessage, maxBytes?: number) => Promise<BodyRead> {
  const reads = new PQueue({ concurrency: limits.concurrentReads });
  return async (req, maxBytes = limits.maxBytes) => {
    if (reads.size >= limits.concurrentReads * WAITING_PER_READ) return { ok: false, status: 503, reason: 'busy' };
    const deadline = AbortSignal.timeout(limits.deadlineMs);
    try {
      return await reads.add(() => readWithin(req, maxBytes, deadline), { signal: deadline });
    } catch {
      // The deadline passed while the request waited for a turn.
      req.destroy();
      return { ok: false, status: 408, reason: 'too_slow' };
    }
  };
}

async function readWithin(req: IncomingMessage, maxBytes: number, deadline: AbortSignal): Promise<BodyRead> {
  if (deadline.aborted) return { ok: false, status: 408, reason: 'too_slow' };
  // raw-body has no deadline of its own: the request is destroyed, which ends its read with an error.
  let tooSlow = false;
  const expire = () => {
    tooSlow = true;
    req.destroy();
  };
  deadline.addEventListener('abort', expire, { once: true });
  // Listened to only once raw-body listens (it attaches synchronously), so that no byte flows past it.
  const reading = getRawBody(req, { limit: maxBytes, length: req.headers['content-length'] });
  const idle = setTimeout(expire, FIRST_BYTE_MS);
  const started = () => clearTimeout(idle);
  req.once('data', started);
  req.once('end', started);
  try {
    return { ok: true, body: await reading };
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large')
      return { ok: false, status: 413, reason: 'too_large' };
    return tooSlow ? { ok: false, status: 408, reason: 'too_slow' } : { ok: false, status: 400, reason: 'unreadable' };
  } finally {
    clearTimeout(idle);
    req.off('data', started);
    req.off('end', started);
    deadline.removeEventListener('abort', expire);
  }
}

/** How long, and how much, a refused request's body is read and dropped before its connection closes. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 4 * 1024 * 1024;

/** Whether Node closes the connection after its answer (HTTP/1.0 without keep-alive, as nginx proxies by default). */
function closesAfterAnswer(req: IncomingMessage): boolean {
  const tokens = (req.headers.connection ?? '')
    .toLowerCase()
    .split(',')
    .map((token) => token.trim());
  if (tokens.includes('close')) return true;
  return req.httpVersion === '1.0' && !tokens.includes('keep-alive');
}

/**
 * Answers a request refused before its body was read (too large), and reads and drops what is still on its way, for
 * a moment and a size at most. Closed with bytes still coming, a connection is reset by the kernel, and a proxy in
 * front still sending (nginx) may take the reset before the answer and tell the platform 502 in place of ours. So on a
 * connection that closes after its answer, the rest is dropped first and the answer follows; on one kept alive, the
 * answer goes at once (a client may wait for it before sending more) and the connection is kept for the client's next
 * request, which it may already have sent. A body that does not end in time is cut, and its connection closed.
 */
export function answerOnceDropped(req: IncomingMessage, answer: (close: boolean) => void): void {
  const first = !closesAfterAnswer(req);
  if (first) answer(false);
  let dropped = 0;
  let settled = false;
  const settle = (ended: boolean) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    req.off('data', drop);
    // A client gone before its body ended has nobody left to answer.
    if (req.socket.destroyed) return;
    if (!first) answer(!ended);
    if (!ended) req.socket.destroySoon();
  };
  const drop = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) settle(false);
  };
  const timer = setTimeout(() => settle(false), LINGER_MS);
  timer.unref();
  if (req.readableEnded) return settle(true);
  req.on('data', drop);
  req.once('end', () => settle(true));
  req.resume();
}
