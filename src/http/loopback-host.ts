// Whether a bind address (HOST) keeps a server to this machine. A wildcard
// (0.0.0.0, ::) or any other address lets the network in.
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  return family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}
