// The storage is checked when the app starts: a bucket that is missing or refused, an S3 server that does not
// answer, or an attachments folder that cannot be made stops the start with a message that says what and where,
// instead of refusing the first customer's photos. Against a real S3-compatible server (s3rver) the tests start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { freePort } from '../helpers.js';
import { startS3, type TestS3 } from '../s3.js';

describe('the storage probe at startup', () => {
  let s3: TestS3;
  let dir: string;
  beforeAll(async () => {
    s3 = await startS3('probe-bucket');
    dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-probe-'));
  });
  afterAll(async () => {
    await s3?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const s3Env = (overrides: Record<string, string> = {}) => ({
    DATA_DIR: dir,
    ATTACHMENT_STORAGE: 's3',
    S3_ENDPOINT: s3.storage.endpoint ?? '',
    S3_REGION: 'us-east-1',
    S3_BUCKET: 'probe-bucket',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
    S3_CHECKSUMS: 'when_required',
    ...overrides,
  });
  const start = (env: Record<string, string>) => buildApp(loadConfig(env), { logger: false });

  it('starts with a bucket that is there, and says which in /readyz', async () => {
    const app = await start(s3Env());
    try {
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.json()).toMatchObject({
        status: 'ready',
        checks: { attachmentStorage: 's3 probe-bucket' },
      });
    } finally {
      await app.close();
    }
  });

  it('refuses to start without the bucket, naming it and the endpoint', async () => {
    await expect(start(s3Env({ S3_BUCKET: 'no-such-bucket' }))).rejects.toThrow(
      `attachments cannot be stored in S3 bucket "no-such-bucket" at ${s3.storage.endpoint}: there is no such bucket`,
    );
  });

  it('refuses to start when the S3 server does not answer', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}/`;
    await expect(start(s3Env({ S3_ENDPOINT: endpoint }))).rejects.toThrow(
      new RegExp(`S3 bucket "probe-bucket" at ${endpoint}: the server cannot be reached: ECONNREFUSED`),
    );
  });

  it('refuses to start with credentials the server does not know', async () => {
    await expect(start(s3Env({ S3_ACCESS_KEY_ID: 'SOMEONE-ELSE' }))).rejects.toThrow(
      /S3 bucket "probe-bucket" at .*: access is denied \(check S3_ACCESS_KEY_ID/,
    );
  });

  it('refuses to start when the attachments folder cannot be made', async () => {
    // DATA_DIR/attachments is a plain file: no folder can be made there, not even by root.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'lead-intake-probe-disk-'));
    try {
      writeFileSync(path.join(dataDir, 'attachments'), 'not a folder');
      await expect(start({ DATA_DIR: dataDir })).rejects.toThrow(
        `attachments cannot be stored in ${path.join(dataDir, 'attachments')}: `,
      );
      rmSync(path.join(dataDir, 'attachments'));
      const app = await start({ DATA_DIR: dataDir });
      await app.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
