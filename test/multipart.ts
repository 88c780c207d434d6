// multipart/form-data bodies for inject(): files (and fields) with the names and types a test chooses.
import { randomBytes } from 'node:crypto';

export interface Part {
  /** The part's field name (default "attachments"). */
  field?: string;
  /** A file part's name; without it the part is a plain field. */
  filename?: string;
  /** Sent as `filename*=UTF-8''…` (RFC 5987) instead of a quoted filename. */
  encodedName?: boolean;
  type?: string;
  data: Buffer | string;
}

export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----test${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const field = part.field ?? 'attachments';
    let disposition = `form-data; name="${field}"`;
    if (part.filename !== undefined) {
      disposition += part.encodedName
        ? `; filename*=UTF-8''${encodeURIComponent(part.filename)}`
        : `; filename="${part.filename.replace(/"/g, '%22')}"`;
    }
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${
      part.filename !== undefined ? `Content-Type: ${part.type ?? 'application/octet-stream'}\r\n` : ''
    }\r\n`;
    chunks.push(
      Buffer.from(head),
      Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** A 1×1 PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
