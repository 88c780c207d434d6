// An S3-compatible bucket (AWS S3, MinIO, R2, …) through the AWS SDK v3 (@aws-sdk/client-s3): the reference
// client, kept by AWS, that speaks every S3-compatible server. PutObject is atomic: readers see the old object or
// the whole new one. A stream of unknown length is spooled to a temporary file first (S3 needs the length up
// front), so memory stays small whatever the size; a stream that fails while spooling stores nothing.
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { ulid } from '../../shared/ids.js';
import type { StorageConfig } from '../config.js';
import type { ListedObject, ObjectStorage, StoredObject } from './storage.js';
import { checkKey, StorageUnavailableError } from './storage.js';

type S3Config = Extract<StorageConfig, { kind: 's3' }>;

const isMissing = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

export class S3Storage implements ObjectStorage {
  private readonly client: S3Client;
  private readonly bucket: string;
  /** The endpoint as an operator set it, for messages: S3_ENDPOINT, else AWS in the region. */
  private readonly where: string;

  constructor(config: S3Config) {
    this.bucket = config.bucket;
    this.where = config.endpoint ?? `AWS S3 (${config.region})`;
    const checksums =
      config.checksums === 'when_required' ? 'WHEN_REQUIRED' : config.checksums && 'WHEN_SUPPORTED';
    const options: S3ClientConfig = {
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      ...(config.credentials ? { credentials: config.credentials } : {}),
      ...(checksums ? { requestChecksumCalculation: checksums, responseChecksumValidation: checksums } : {}),
    };
    this.client = new S3Client(options);
  }

  async put(key: string, body: Readable | Buffer, options: { contentType: string }): Promise<void> {
    checkKey(key);
    if (Buffer.isBuffer(body)) {
      await this.send(key, body, body.length, options.contentType);
      return;
    }
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lead-intake-s3-'));
    const spool = path.join(dir, ulid());
    try {
      await pipeline(body, createWriteStream(spool));
      const { size } = await fs.stat(spool);
      await this.send(key, createReadStream(spool), size, options.contentType);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  private async send(key: string, body: Buffer | Readable, length: number, contentType: string) {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentLength: length,
        ContentType: contentType,
      }),
    );
  }

  async get(key: string): Promise<StoredObject | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: checkKey(key) }));
      const body = out.Body;
      if (!body) return null;
      const stream = body instanceof Readable ? body : Readable.fromWeb(body.transformToWebStream() as never);
      return { stream, size: Number(out.ContentLength ?? 0) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: checkKey(key) }));
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  async *list(): AsyncIterable<ListedObject> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token, MaxKeys: 1000 }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key) yield { key: object.Key, modifiedAt: object.LastModified?.getTime() ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * HeadBucket: the one request that proves the endpoint answers, the bucket exists and the credentials may use
   * it, without writing anything. Its errors carry no message body, so the status says which it is.
   */
  async probe(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      const e = error as {
        name?: string;
        code?: string;
        message?: string;
        $metadata?: { httpStatusCode?: number };
      };
      const status = e.$metadata?.httpStatusCode;
      const why =
        status === 404
          ? 'there is no such bucket (create it, or correct S3_BUCKET)'
          : status === 403
            ? 'access is denied (check S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY and the bucket policy)'
            : status === 301
              ? 'the bucket is in another region (correct S3_REGION)'
              : status
                ? `the server answered ${status}${e.name ? ` (${e.name})` : ''}`
                : `the server cannot be reached: ${e.code ?? e.name ?? ''}${e.message ? ` ${e.message}` : ''}`.trim();
      throw new StorageUnavailableError(
        `attachments cannot be stored in S3 bucket "${this.bucket}" at ${this.where}: ${why}.`,
      );
    }
  }

  describe(): string {
    return `s3 ${this.bucket}`;
  }

  close(): void {
    this.client.destroy();
  }
}
