// Serving an attachment over HTTP, the same for the API and the dashboard: how a post of files is read (the
// multipart plugin's limits) and how the stored bytes are answered (headers, ETag and conditional GETs).
import type { FastifyMultipartOptions } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../platform/db/store.js';
import { readContent } from './attachments.js';
import type { Variant } from './images.js';
import type { AttachmentStorage } from './storage.js';
import type { UploadLimits } from './upload.js';

/** The form fields a post of files may carry besides them: how many, and how long each may be. */
export interface FieldLimits {
  count: number;
  bytes: number;
}

/**
 * The multipart plugin's options for a post of files. Files are streamed, never buffered: busboy stops a file one
 * byte past its limit and one file past the count still arrives, so Upload refuses them by name (a 422). A name
 * with a path in it is refused (checkFileName), not quietly cut to its last part (busboy's default).
 */
export function multipartOptions(
  limits: UploadLimits,
  fields: FieldLimits = { count: 20, bytes: 1024 },
): FastifyMultipartOptions {
  const files = limits.maxFilesPerPost + 1;
  return {
    preservePath: true,
    limits: {
      fileSize: limits.maxFileBytes + 1,
      files,
      fields: fields.count,
      fieldSize: fields.bytes,
      parts: fields.count + files,
      headerPairs: 100,
    },
  };
}

/** RFC 8187's encoding of a file name for `filename*=UTF-8''…`. */
function rfc8187(name: string): string {
  return encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Whether an If-None-Match header names this (strong) ETag; a weak validator of the same value matches too. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  return !!ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

export interface ContentRequest {
  brandId: string;
  id: string;
  /** An image's JPEG variant instead of the original bytes. */
  variant?: Variant;
  /** How a variant is answered: shown in the page (`inline`, the dashboard's thumbnails) or as a download. */
  variantDisposition: 'inline' | 'attachment';
}

/**
 * Answers with the bytes of the brand's attachment: the original as a download, or an image's variant. The ETag is
 * strong (the stored sha256, plus the variant), so a client that sends it back in If-None-Match gets a 304 without
 * the bytes. Another brand's attachment, or a variant a file does not have, is a NotFoundError.
 */
export async function sendContent(
  deps: { database: Store; storage: AttachmentStorage },
  request: FastifyRequest,
  reply: FastifyReply,
  { brandId, id, variant, variantDisposition }: ContentRequest,
) {
  const content = await readContent(deps.database, deps.storage, brandId, id, variant);
  const { attachment } = content;
  const etag = `"${attachment.sha256}${variant ? `-${variant}` : ''}"`;
  const base = attachment.fileName.replace(/\.[^.]*$/, '') || 'image';
  const name = variant ? `${base}-${variant}.jpg` : attachment.fileName;
  const disposition = variant ? variantDisposition : 'attachment';
  reply
    .header('ETag', etag)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Disposition', `${disposition}; filename*=UTF-8''${rfc8187(name)}`)
    .header('Cache-Control', 'private, no-cache');
  if (matches(request.headers['if-none-match'], etag)) {
    content.stream.destroy();
    return reply.code(304).send();
  }
  return reply.type(content.contentType).header('Content-Length', String(content.size)).send(content.stream);
}
