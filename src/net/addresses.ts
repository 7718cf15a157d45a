// What kind of place an address names, read from the address alone (no DNS): may credentials go over plain
// http to it (only to this machine: localhost or a loopback number), and is an IP literal public (the ranges
// request-filtering-agent refuses at each connection)? A literal is refused at once, before the merchant goes
// through a consent screen for nothing; names are checked where they resolve, at each connection (outbound.ts).
import { BlockList, isIP } from 'node:net';

/** The hostname as URL gives it ("[::1]" for IPv6), without brackets. */
const bare = (hostname: string) =>
  hostname
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase();

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/**
 * Exactly localhost, 127.0.0.0/8, ::1 or ::ffff:127.x.y.z: this machine,
 * where http carries nothing over a network. Not *.localhost: RFC 6761 asks
 * resolvers to answer it with loopback, but Node's lookup asks the system's
 * resolver, which may ask the network, and whoever answers there chooses
 * where the API key goes in clear text.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = bare(hostname);
  if (host === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** https, or http to this very machine: the only ways a credential may travel. */
export const isSecureTransport = (url: URL): boolean =>
  url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));

type Range = readonly [address: string, prefix: number];

/** Loopback, private, link-local, shared, documentation, multicast, reserved: no store lives there. */
const IPV4_NOT_PUBLIC: readonly Range[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const IPV6_NOT_PUBLIC: readonly Range[] = [
  // The unspecified address, and IPv4-compatible addresses (::a00:1 is 10.0.0.1).
  ['::', 96],
  ['::1', 128],
  // IPv4-mapped and translated addresses reach IPv4 hosts under another name.
  ['::ffff:0:0', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['2620:4f:8000::', 48],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

// Two lists: Node's BlockList also checks an IPv4 address against IPv6
// rules as ::ffff:a.b.c.d, so one list with ::ffff:0:0/96 would refuse them all.
const NOT_PUBLIC_RANGES = (() => {
  const ipv4 = new BlockList();
  for (const [address, prefix] of IPV4_NOT_PUBLIC) ipv4.addSubnet(address, prefix, 'ipv4');
  const ipv6 = new BlockList();
  for (const [address, prefix] of IPV6_NOT_PUBLIC) ipv6.addSubnet(address, prefix, 'ipv6');
  return { ipv4, ipv6 };
})();

/** For an IP literal: whether it is outside the public internet. Undefined for a name, which only DNS can answer. */
export function isNonPublicLiteral(hostname: string): boolean | undefined {
  const host = bare(hostname);
  const family = isIP(host);
  if (family === 0) return undefined;
  return family === 4 ? NOT_PUBLIC_RANGES.ipv4.check(host, 'ipv4') : NOT_PUBLIC_RANGES.ipv6.check(host, 'ipv6');
}

/** A name meant for this machine (localhost, *.localhost): no user's store is there, wherever DNS says it is. */
export const isLocalName = (hostname: string): boolean => {
  const host = bare(hostname);
  return host === 'localhost' || host.endsWith('.localhost');
};
