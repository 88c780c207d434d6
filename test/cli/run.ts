// The built `lead-intake` binary as a child process, for the CLI tests: run to completion with a clean environment.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const bin = path.join(root, 'bin', 'lead-intake.js');

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export type Env = Record<string, string>;

/**
 * Runs the binary to completion. stdin is closed at once unless input is given (so never a terminal). The timeout
 * only stops a binary that wrongly keeps running (a server started by mistake).
 */
export function run(args: string[], env: Env, input = '', timeout = 25_000): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env, stdio: 'pipe', timeout });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    // A command that fails before reading stdin closes it; that is not the test's failure.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A clean environment: nothing from the developer's shell (a DATABASE_URL, a PORT) leaks into the binary. */
export function baseEnv(dataDir: string): Env {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), DATA_DIR: dataDir };
}

/** A run that must succeed quietly: its stdout as JSON. */
export const json = (result: Result) => {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
};
