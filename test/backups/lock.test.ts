// The DATA_DIR lock: servers share it, a restore needs it alone, and each side is refused while the other holds it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { DataDirBusyError, lockExclusive, lockShared } from '../../src/platform/backup/lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-lock-'));
  dirs.push(dir);
  return dir;
};

it('two servers share the lock; a restore is refused until both let go', () => {
  const dir = tempDir();
  const first = lockShared(dir);
  const second = lockShared(dir);
  expect(() => lockExclusive(dir)).toThrow(DataDirBusyError);
  expect(() => lockExclusive(dir)).toThrow(`a server is running on DATA_DIR (${dir})`);
  first.release();
  expect(() => lockExclusive(dir)).toThrow(DataDirBusyError);
  second.release();
  const restore = lockExclusive(dir);
  restore.release();
  expect(fs.existsSync(path.join(dir, 'lead-intake.lock'))).toBe(true);
});

it('a server does not start while a restore holds the lock', () => {
  const dir = tempDir();
  const restore = lockExclusive(dir);
  const started = Date.now();
  expect(() => lockShared(dir, 200)).toThrow(/a restore is running on DATA_DIR/);
  expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  expect(() => lockExclusive(dir)).toThrow(DataDirBusyError);
  restore.release();
  lockShared(dir).release();
});
