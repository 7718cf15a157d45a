#!/usr/bin/env node
// Runs the TypeScript sources as they are: Node strips the types itself
// (22.18 and above, checked first by node-floor.js), so production runs no
// transpiler and there is no build step to forget. Every fsync of the ledger holds one of libuv's threads until
// the disk answers: with the default 4, a slow disk (network storage) makes
// acknowledgements, folds and saves queue for threads rather than for the
// disk. Set before the pool starts; UV_THREADPOOL_SIZE in the environment wins.
// (The import of the CLI is dynamic: a static one would run before this line.)
import './node-floor.js';
process.env.UV_THREADPOOL_SIZE ??= '16';
await import('../src/cli.ts');
