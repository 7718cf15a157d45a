// Runs the real CLI in a child process, as a merchant would, and finds out
// where it listens from its first log line.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileCache } from './compile-cache.ts';

export const CLI = fileURLToPath(new URL('../../bin/loyalty-bridge.js', import.meta.url));

const baseEnv = () => ({
  PATH: process.env.PATH ?? '',
  ...compileCache(),
  HOST: '127.0.0.1',
  PORT: '0',
  SANDBOX_PORT: '0',
  DEMO_STORE: 'off',
  DATA_DIR: mkdtempSync(join(tmpdir(), 'lb-cli-')),
});

export interface RunningCli {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

// Every child a test starts ends with the test's worker, even when the test timed out waiting on it.
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Starts the CLI and resolves once it prints where it listens. There is no
 * deadline of its own: a start on a loaded machine may take long, and the
 * test's timeout is what decides that it took too long.
 */
export function startCli(args: string[], env: Record<string, string>): Promise<RunningCli> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
      if (match?.[1]) {
        resolve({
          child,
          url: match[1],
          output: () => output,
          stop: async (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
  });
}

/** Runs the CLI to completion and returns its exit code and output; `input`, what it reads on stdin. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...baseEnv(), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Nothing given: the command reads an empty stdin, as it would with ignore. A command that exits without reading it is no error.
  child.stdin.on('error', () => undefined);
  child.stdin.end(input ?? '');
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

export interface InteractiveCli {
  /** Resolves with the first match of the pattern in what the command printed, waiting for it (at most `timeoutMs`, if given). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code and everything printed, once the command ends. */
  exited: Promise<{ code: number | null; output: string }>;
  kill(): void;
}

/** Runs the CLI and lets a test answer what it prints while it runs (a link to follow, say). */
export function spawnCli(args: string[], env: Record<string, string>): InteractiveCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters) waiter();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve({ code, output });
    }),
  );
  return {
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (!match) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(match);
        };
        // Without a bound of the caller's, the test's own timeout decides.
        const timer =
          timeoutMs === undefined
            ? undefined
            : setTimeout(() => {
                waiters.delete(check);
                reject(new Error(`${pattern} not printed within ${timeoutMs} ms:\n${output}`));
              }, timeoutMs);
        waiters.add(check);
        check();
      }),
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}
