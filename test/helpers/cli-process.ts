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

export function startCli(args: string[], env: Record<string, string>): Promise<RunningCli> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running behind the failed test.
      child.kill('SIGKILL');
      reject(new Error(`no listening line within 15 s:\n${output}`));
    }, 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
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
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${output}`));
    });
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
  /** Resolves with the first match of the pattern in what the command printed, waiting for it. */
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
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters) waiter();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, output })),
  );
  return {
    waitFor: (pattern, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (!match) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(match);
        };
        const timer = setTimeout(() => {
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
