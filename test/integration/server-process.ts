// Runs `node bin/lead-intake.js serve` as a real child process and finds the port it listens on.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/lead-intake.js');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process printed, for failure messages. */
  output(): string;
  /** SIGKILL: no shutdown hooks, no cleanup, like a crash or an OOM kill. */
  kill(): Promise<void>;
  /** SIGTERM: graceful shutdown. */
  stop(): Promise<void>;
}

/** The environment a child gets: the test's own settings only, never the developer's database or Redis. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  return { ...base, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env };
}

/** `cpus`: a taskset core list the server may run on (its CPU affinity), instead of this process's. */
export async function startServer(
  env: Record<string, string>,
  options: { cpus?: string } = {},
): Promise<ServerProcess> {
  const command = [process.execPath, bin, 'serve'];
  if (options.cpus !== undefined) command.unshift('taskset', '-c', options.cpus);
  const child = spawn(command[0]!, command.slice(1), { cwd: root, env: childEnv(env), stdio: 'pipe' });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { url, child, output: () => output, kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}

/** Runs the CLI once with the given environment and returns what it printed. */
export async function runCli(args: string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [bin, ...args], {
    cwd: root,
    env: childEnv(env),
  });
  return stdout;
}

export async function request(
  base: string,
  method: string,
  url: string,
  key: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely
): Promise<{ status: number; headers: Headers; json: () => Promise<any> }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, json: () => res.json() };
}
