// A real S3-compatible server for tests: s3rver (an S3 API over the file system, an npm package) on 127.0.0.1 at
// a free port, with one bucket, in a temporary folder. Under CI=true a server that cannot start fails the test.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { StorageConfig } from '../src/platform/config.js';
import { freePort } from './helpers.js';

export interface TestS3 {
  storage: Extract<StorageConfig, { kind: 's3' }>;
  close(): Promise<void>;
}

export async function startS3(bucket = 'lead-intake-test'): Promise<TestS3> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'lead-intake-s3rver-'));
  const port = await freePort();
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  try {
    await server.run();
  } catch (error) {
    await fs.rm(directory, { recursive: true, force: true });
    throw new Error(`the local S3 server (s3rver) could not start: ${(error as Error).message}`);
  }
  return {
    storage: {
      kind: 's3',
      endpoint: `http://127.0.0.1:${port}/`,
      region: 'us-east-1',
      bucket,
      // s3rver's fixed credentials.
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      forcePathStyle: true,
      // s3rver predates the SDK's default CRC checksums.
      checksums: 'when_required',
    },
    async close() {
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}
