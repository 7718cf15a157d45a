// `npm run test:loaded`: the whole suite (or the files given) while CPU hogs
// keep all but one core busy, as a busy CI machine or a laptop building
// something else would. A test that passes only on an idle machine races
// with something; this run finds it. The hogs are child processes spinning,
// stopped with the run, whatever its end.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const hogs = Array.from({ length: Math.max(1, availableParallelism() - 1) }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopHogs = () => hogs.forEach((hog) => hog.kill('SIGKILL'));
process.on('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

console.log(`test:loaded: ${hogs.length} CPU hog(s) spinning beside the suite`);
const suite = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
});
suite.on('exit', (code, signal) => {
  stopHogs();
  process.exit(code ?? (signal ? 1 : 0));
});
