// Receiving the files of one post: each is streamed to storage while its bytes are counted and hashed, and cut
// off the moment it passes a limit, so an upload of any size costs at most a file's limit of work and never
// sits in memory. Its type is decided from its first bytes before anything is written. Whatever is refused, the
// post's files already stored are removed again (discard): a refusal stores nothing.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { type FieldError, ValidationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { detectContentType, HEAD_BYTES, isImageType } from './content.js';
import { readImageSize } from './images.js';
import { type AttachmentStorage, discardKeys, originalKey } from './storage.js';

export interface UploadLimits {
  maxFileBytes: number;
  maxTotalBytes: number;
  maxFilesPerPost: number;
}

/** A file stored for a post, not yet recorded (recordAttachments writes its row). */
export interface ReceivedFile {
  id: string;
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
  width: number | null;
  height: number | null;
  storageKey: string;
}

/** The files of a post are over ATTACHMENTS_MAX_TOTAL_BYTES together: a 413 (payload_too_large). */
export class UploadTooLargeError extends Error {
  readonly statusCode = 413;
  constructor(readonly maxTotalBytes: number) {
    super(`attachments: the files of one post must be at most ${bytesText(maxTotalBytes)} together`);
    this.name = 'UploadTooLargeError';
  }
}

/** The multipart body itself is broken (cut off, no boundary): a 400. */
export class MalformedUploadError extends Error {
  readonly statusCode = 400;
  constructor(cause: unknown) {
    super(`The multipart/form-data body could not be read: ${(cause as Error)?.message ?? cause}`);
    this.name = 'MalformedUploadError';
  }
}

export const FIELD = 'attachments';

export function bytesText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes.toLocaleString('en-US')} bytes`;
}

/** A file name as the API's messages quote it: JSON-quoted, long ones cut. */
const quoted = (name: string) => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);

function refuse(error: FieldError): never {
  throw new ValidationError([error]);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_NAME = 255;

/**
 * A file name as sent, kept for display and downloads only (never part of a path or storage key): refused when
 * empty, longer than 255 characters, or holding a path separator or control character.
 */
export function checkFileName(name: string): string {
  const bad =
    !name.trim() ||
    [...name].length > MAX_NAME ||
    name.includes('/') ||
    name.includes('\\') ||
    CONTROL.test(name);
  if (bad) {
    refuse({
      field: FIELD,
      message: `${quoted(name)}: a file name must be 1 to ${MAX_NAME} characters without path separators (/ \\) or control characters`,
      text: { key: 'attachments.error.name', values: { name: name.slice(0, 80) } },
    });
  }
  return name;
}

/** The files of one post, as they are received. */
export class Upload {
  readonly files: ReceivedFile[] = [];
  private total = 0;

  constructor(
    private readonly storage: AttachmentStorage,
    private readonly limits: UploadLimits,
  ) {}

  /**
   * Receives one file part: checks its name and the post's count, reads its first bytes to decide its type,
   * streams it to storage counting and hashing, and reads an image's size. Throws ValidationError (422) or
   * UploadTooLargeError (413); what this file had written is gone by then (the caller discards the rest).
   */
  async add(fileName: string, stream: Readable): Promise<ReceivedFile> {
    checkFileName(fileName);
    if (this.files.length >= this.limits.maxFilesPerPost) {
      refuse({
        field: FIELD,
        message: `${quoted(fileName)}: at most ${this.limits.maxFilesPerPost} files can be sent at once`,
        text: { key: 'attachments.error.tooMany', values: { max: this.limits.maxFilesPerPost } },
      });
    }
    const tooBig = (): never =>
      refuse({
        field: FIELD,
        message: `${quoted(fileName)}: a file must be at most ${bytesText(this.limits.maxFileBytes)}`,
        text: {
          key: 'attachments.error.fileTooBig',
          values: { name: fileName, max: bytesText(this.limits.maxFileBytes) },
        },
      });
    const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const hash = createHash('sha256');
    let size = 0;
    const next = async (): Promise<Buffer | undefined> => {
      let step: IteratorResult<Buffer>;
      try {
        step = await chunks.next();
      } catch (error) {
        // Busboy stops a file one byte past the limit (@fastify/multipart's fileSize): the same 422 as below.
        if ((error as { code?: unknown }).code === 'FST_REQ_FILE_TOO_LARGE') tooBig();
        // The multipart stream's own errors have a status (its other limits: 413); others mean a broken body.
        throw typeof (error as { statusCode?: unknown }).statusCode === 'number'
          ? error
          : new MalformedUploadError(error);
      }
      if (step.done) return undefined;
      size += step.value.length;
      this.total += step.value.length;
      if (size > this.limits.maxFileBytes) tooBig();
      if (this.total > this.limits.maxTotalBytes) throw new UploadTooLargeError(this.limits.maxTotalBytes);
      hash.update(step.value);
      return step.value;
    };

    const head: Buffer[] = [];
    let headLength = 0;
    while (headLength < HEAD_BYTES) {
      const chunk = await next();
      if (!chunk) break;
      head.push(chunk);
      headLength += chunk.length;
    }
    const first = Buffer.concat(head);
    const contentType = first.length ? await detectContentType(first) : undefined;
    if (!contentType) {
      refuse({
        field: FIELD,
        message: `${quoted(fileName)}: only JPEG, PNG, WebP, GIF, HEIC/HEIF images and PDF files are accepted (decided from the file's content)`,
        text: { key: 'attachments.error.type', values: { name: fileName } },
      });
    }

    const id = newId('attachment');
    const key = originalKey(id);
    async function* body() {
      yield first;
      for (let chunk = await next(); chunk; chunk = await next()) yield chunk;
    }
    // The storage removes a partly written object itself when the body fails (a limit, a broken stream).
    await this.storage.put(key, Readable.from(body()), { contentType });
    const file: ReceivedFile = {
      id,
      fileName,
      contentType,
      size,
      sha256: hash.digest('hex'),
      width: null,
      height: null,
      storageKey: key,
    };
    this.files.push(file);
    if (isImageType(contentType)) await this.measure(file);
    return file;
  }

  /** An image's width and height from its header; too many pixels (a decompression bomb) is a 422. */
  private async measure(file: ReceivedFile): Promise<void> {
    const stored = await this.storage.get(file.storageKey);
    if (!stored) throw new Error(`the file just stored under ${file.storageKey} is not there`);
    const bytes: Buffer[] = [];
    for await (const chunk of stored.stream) bytes.push(chunk as Buffer);
    const size = await readImageSize(Buffer.concat(bytes));
    if (size === 'too_large') {
      refuse({
        field: FIELD,
        message: `${quoted(file.fileName)}: the image has more pixels than can be processed`,
        text: { key: 'attachments.error.imageTooLarge', values: { name: file.fileName } },
      });
    }
    if (size) {
      file.width = size.width;
      file.height = size.height;
    }
  }

  /** Removes every file this post stored (after a refusal, or a transaction that failed). */
  discard(): Promise<void> {
    return discardKeys(
      this.storage,
      this.files.map((f) => f.id),
    );
  }
}
