#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx: no build step to forget.
// Every fsync of the ledger holds one of libuv's threads until the disk
// answers: with the default 4, a slow disk (network storage) makes
// acknowledgements, folds and saves queue for threads rather than for the
// disk. Set before the pool starts; UV_THREADPOOL_SIZE in the environment wins.
// (Imports below are dynamic: a static one would run before this line.)
process.env.UV_THREADPOOL_SIZE ??= '16';
const { register } = await import('tsx/esm/api');

register();
await import('../src/cli.ts');
