// Which bind addresses keep a server to this machine: the standalone sandbox
// takes the public credentials only on those (the same answer as where plain
// http may go: test/unit/outbound-policy.test.ts).
import { expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/net/addresses.ts';

it.each(['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])(
  'keeps %s to this machine',
  (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  },
);

it.each([
  '0.0.0.0',
  '::',
  '',
  '192.168.1.20',
  '10.0.0.1',
  '::ffff:10.0.0.1',
  '128.0.0.1',
  'example.com',
  'localhost.example.com',
])('lets the network in on %j', (host) => {
  expect(isLoopbackHost(host)).toBe(false);
});
