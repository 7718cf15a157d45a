// What the outbound policy refused, as a tagged union each client turns into
// its own permanent error with its own fix. Addresses are shown as origin and
// path only: a query string, a fragment or a user name can hold a key.
import { BridgeError } from '../errors.ts';

export type Refusal =
  /** A redirect to another scheme, host or port: not followed, nothing sent there. */
  | { kind: 'redirect'; status: number; from: string; to: string }
  /** Plain http to another machine: a credential would cross the network in clear text. */
  | { kind: 'insecure'; url: string }
  /** A user-given address whose connection resolved to loopback, private or link-local. */
  | { kind: 'private_address'; host: string; address: string };

export const REFUSED_CODE = 'ERR_OUTBOUND_REFUSED';

/** An address as it may be shown: scheme, host, port and path. */
export function shownUrl(url: URL | string, base?: URL | string): string {
  try {
    const parsed = new URL(url, base);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(an address that is not a URL)';
  }
}

function describe(refusal: Refusal): string {
  switch (refusal.kind) {
    case 'redirect':
      return `${refusal.from} answered ${refusal.status}, a redirect to ${refusal.to}: redirects are followed only within one scheme, host and port, so nothing was sent there`;
    case 'insecure':
      return `${refusal.url} is plain http: credentials travel only over https (http only to this machine)`;
    case 'private_address':
      return refusal.host === refusal.address
        ? `${refusal.host} is not a public internet address (loopback, private or link-local)`
        : `${refusal.host} resolved to ${refusal.address}, which is not a public internet address (loopback, private or link-local)`;
  }
}

export class OutboundRefused extends BridgeError<typeof REFUSED_CODE> {
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    super(REFUSED_CODE, describe(refusal));
    this.refusal = refusal;
  }
}

// request-filtering-agent refuses a connection with a plain Error in these
// words (src/request-filtering-agent.ts, validateIPAddress); a unit test pins
// them, so that an upgrade that rewords them fails there and not in silence.
const AGENT_REFUSAL = /^DNS lookup (.+?)\(family:[^,]*, host:([^)]*)\) is not allowed\./;

/** The refusal behind an error from got (or fetch), wherever in its causes it is. */
export function refusalOf(error: unknown): Refusal | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof OutboundRefused) return current.refusal;
    const agent = AGENT_REFUSAL.exec(current.message);
    if (agent) {
      const [, address = '', host = ''] = agent;
      return { kind: 'private_address', host: host && host !== 'undefined' ? host : address, address };
    }
  }
  return undefined;
}

/** The refusal in words, for a client that adds its own fix. */
export const refusalText = (refusal: Refusal): string => describe(refusal);
