// The kill tests' bridge processes (helpers/rewards-bridge-child.ts): started with the settings given, killed with
// SIGKILL, or stopped as a host stops them (SIGTERM).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/composition/open-store.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { createLogger } from '../../src/logger.ts';
import { compileCache } from './compile-cache.ts';

const CHILD = fileURLToPath(new URL('./rewards-bridge-child.ts', import.meta.url));

export interface Child {
  process: ChildProcess;
  url: string;
  output: () => string;
}

export function startChild(env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, [CHILD], {
    env: { PATH: process.env.PATH ?? '', ...compileCache(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no address within 20 s:\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /\{"url":"(http:\/\/[^"]+)"\}/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ process: child, url, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${output}`));
    });
  });
}

export const kill = (child: Child) =>
  new Promise<void>((resolve) => {
    if (child.process.exitCode !== null || child.process.signalCode !== null) return resolve();
    child.process.once('exit', () => resolve());
    child.process.kill('SIGKILL');
  });

/** Stopped as a host stops it (SIGTERM): its writes flushed and its sweep finished, so its ledger can be read. */
export const stop = (child: Child) =>
  new Promise<void>((resolve) => {
    if (child.process.exitCode !== null || child.process.signalCode !== null) return resolve();
    child.process.once('exit', () => resolve());
    child.process.kill('SIGTERM');
  });

/** The ledger the processes of `env` keep, opened here (read or changed) while every one of them is down. */
export async function withLedger<T>(env: Record<string, string>, use: (store: LedgerStore) => Promise<T>): Promise<T> {
  const loaded = loadConfig({ env: { ...env, PORT: '0' } });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const opened = await openStore(loaded.config, createLogger({ level: 'silent' }));
  await opened.store.open();
  try {
    return await use(opened.store);
  } finally {
    await opened.store.close();
    await opened.release();
  }
}
