// What a file is, decided from its bytes (file-type: the magic numbers of each format, the library the Node
// ecosystem uses for exactly this) and never from its name or the type the client declared. Only photos and PDFs
// are taken: everything a browser could run or render as a page (HTML, SVG, scripts), archives, executables and
// plain text are refused, whatever they are called.
import { fileTypeFromBuffer } from 'file-type';

/** The accepted types by their media type, and whether an image (with a size and variants) or a document. */
export const ACCEPTED_TYPES: Readonly<Record<string, 'image' | 'document'>> = {
  'image/jpeg': 'image',
  'image/png': 'image',
  'image/webp': 'image',
  'image/gif': 'image',
  'image/heic': 'image',
  'image/heif': 'image',
  'image/heic-sequence': 'image',
  'image/heif-sequence': 'image',
  'application/pdf': 'document',
};

/** Enough of a file's start for file-type to tell every accepted format (its documented minimum). */
export const HEAD_BYTES = 4100;

/** The accepted media type of a file whose first bytes are `head`, or undefined when it is not one of them. */
export async function detectContentType(head: Uint8Array): Promise<string | undefined> {
  const found = await fileTypeFromBuffer(head);
  return found && ACCEPTED_TYPES[found.mime] ? found.mime : undefined;
}

export function isImageType(contentType: string): boolean {
  return ACCEPTED_TYPES[contentType] === 'image';
}
