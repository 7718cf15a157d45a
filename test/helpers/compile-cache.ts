// The tests' child processes get only the environment they name. Node 24 and later keep the code they compile from
// the type-stripped sources in NODE_COMPILE_CACHE (vitest.config.ts sets it), which takes a bridge's start from about
// 1.1 s of processor to 0.6 s; on Node 22, NODE_OPTIONS loads `strip-cache.ts`, which keeps the stripped sources
// (vitest.config.ts sets it too). Pass both on.
export function compileCache(): { NODE_COMPILE_CACHE?: string; NODE_OPTIONS?: string } {
  const dir = process.env.NODE_COMPILE_CACHE;
  const options = process.env.NODE_OPTIONS;
  return { ...(dir ? { NODE_COMPILE_CACHE: dir } : {}), ...(options ? { NODE_OPTIONS: options } : {}) };
}
