#!/usr/bin/env node
// Runs the TypeScript sources as they are: Node strips the types itself
// (22.18 and above), so production runs no transpiler and there is no build
// step to forget. Every fsync of the ledger holds one of libuv's threads until
// the disk answers: with the default 4, a slow disk (network storage) makes
// acknowledgements, folds and saves queue for threads rather than for the
// disk. Set before the pool starts; UV_THREADPOOL_SIZE in the environment wins.
// (The import below is dynamic: a static one would run before this line.)
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `loyalty-bridge needs Node.js 22.18 or later (this is ${process.version}): it runs its TypeScript through Node's own type stripping.`,
  );
  process.exit(1);
}
process.env.UV_THREADPOOL_SIZE ??= '16';
await import('../src/cli.ts');
