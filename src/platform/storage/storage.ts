// Where stored files' bytes live: a folder on disk (the default) or an S3-compatible bucket. The platform knows
// keys and bytes only; what the keys name (an attachment's original, its preview) is the capability's business.
import type { Readable } from 'node:stream';
import type { StorageConfig } from '../config.js';
import { DiskStorage } from './disk.js';
import { S3Storage } from './s3.js';

export interface StoredObject {
  /** The bytes, as stored. */
  stream: Readable;
  /** How many there are (Content-Length). */
  size: number;
}

export interface ListedObject {
  key: string;
  /** When it was written, epoch ms. */
  modifiedAt: number;
}

export interface ObjectStorage {
  /**
   * Stores the bytes under `key`, replacing what was there, all or nothing: a reader never sees half an object,
   * and a put that fails (its body stream errors) leaves nothing behind. Resolves once the bytes are durable.
   */
  put(key: string, body: Readable | Buffer, options: { contentType: string }): Promise<void>;
  /** The object's bytes and size, or null when there is none under `key`. */
  get(key: string): Promise<StoredObject | null>;
  /** Removes the object; one that is not there is no error. */
  delete(key: string): Promise<void>;
  /** Every stored object (in no particular order), for sweeping what nothing points at. */
  list(): AsyncIterable<ListedObject>;
  /**
   * Checks at startup that files can be stored: the folder can be written (disk), the bucket is there and the
   * credentials may use it (S3). Throws a StorageUnavailableError saying what is wrong and where.
   */
  probe(): Promise<void>;
  /** What the readiness probe says of it: `disk` or `s3 <bucket>`. */
  describe(): string;
  /** Lets go of connections (S3); the app calls it when it closes. */
  close?(): void;
}

/** The storage cannot be used: the service refuses to start rather than lose the first photo sent to it. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
}

/** Keys are paths of safe segments (letters, digits, `_ - .`), never `..` or absolute. */
export function checkKey(key: string): string {
  if (
    !/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(key) ||
    key.split('/').some((s) => s === '.' || s === '..')
  ) {
    throw new Error(`not a storage key: ${JSON.stringify(key)}`);
  }
  return key;
}

export function createStorage(config: StorageConfig): ObjectStorage {
  return config.kind === 'disk' ? new DiskStorage(config.dir) : new S3Storage(config);
}
