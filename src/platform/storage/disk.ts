// Files under one folder (DATA_DIR/attachments by default), one file per key. A put writes a temporary file in
// the folder's .tmp/, flushes it to disk (fsync) and renames it into place, then flushes the folder that now
// names it: a crash leaves either the whole object or none, never a torn one. Temporary files a crash left
// behind are listed like objects (under .tmp/), so the owner's sweep removes them.
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ulid } from '../../shared/ids.js';
import { fsyncPath } from '../fsync.js';
import type { ListedObject, ObjectStorage, StoredObject } from './storage.js';
import { checkKey, StorageUnavailableError } from './storage.js';

const TMP = '.tmp';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

const syncDir = (dir: string) => fsyncPath(dir, 'dir');

export class DiskStorage implements ObjectStorage {
  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    return path.join(this.root, ...checkKey(key).split('/'));
  }

  async put(key: string, body: Readable | Buffer): Promise<void> {
    const target = this.pathOf(key);
    const tmpDir = path.join(this.root, TMP);
    await fs.mkdir(tmpDir, { recursive: true });
    const tmp = path.join(tmpDir, `${ulid()}.part`);
    const handle = await fs.open(tmp, 'wx', 0o640);
    try {
      try {
        if (Buffer.isBuffer(body)) await handle.writeFile(body);
        else for await (const chunk of body) await handle.write(chunk as Buffer);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.rename(tmp, target);
    } catch (error) {
      await fs.rm(tmp, { force: true });
      throw error;
    }
    await syncDir(path.dirname(target));
  }

  async get(key: string): Promise<StoredObject | null> {
    const file = this.pathOf(key);
    try {
      const handle = await fs.open(file, 'r');
      const { size } = await handle.stat();
      // The stream owns the handle from here: it closes it at its end or when destroyed.
      return { stream: handle.createReadStream(), size };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    await fs.rm(file, { force: true });
    // The key's folder goes with its last object (rmdir refuses a folder that still holds something).
    const dir = path.dirname(file);
    if (dir !== this.root && dir !== path.join(this.root, TMP)) await fs.rmdir(dir).catch(() => {});
  }

  async *list(): AsyncIterable<ListedObject> {
    yield* this.walk(this.root, []);
  }

  private async *walk(dir: string, prefix: string[]): AsyncIterable<ListedObject> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) yield* this.walk(full, [...prefix, entry.name]);
      else if (entry.isFile()) {
        const stat = await fs.stat(full).catch(() => undefined);
        if (stat) yield { key: [...prefix, entry.name].join('/'), modifiedAt: stat.mtimeMs };
      }
    }
  }

  async probe(): Promise<void> {
    try {
      await fs.mkdir(this.root, { recursive: true });
      await fs.access(this.root, fsConstants.W_OK | fsConstants.X_OK);
    } catch (error) {
      throw new StorageUnavailableError(
        `attachments cannot be stored in ${this.root}: ${(error as Error).message}. Make the folder writable for the service, or set ATTACHMENT_STORAGE=s3.`,
      );
    }
  }

  describe(): string {
    return 'disk';
  }
}
