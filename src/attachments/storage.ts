// Where attachments' bytes are kept: the platform's object storage (disk or S3, src/platform/storage/), under
// keys made of the attachment's id and never of its file name: `<id>/original` (the bytes as received) and
// `<id>/preview.jpg`, `<id>/thumbnail.jpg` (variants, made on first request and kept).
import type { ObjectStorage } from '../platform/storage/storage.js';
import type { Variant } from './images.js';

export type AttachmentStorage = ObjectStorage;

export const originalKey = (id: string) => `${id}/original`;
export const variantKey = (id: string, variant: Variant) => `${id}/${variant}.jpg`;

/** Every key an attachment may have stored. */
export const keysOf = (id: string) => [
  originalKey(id),
  variantKey(id, 'preview'),
  variantKey(id, 'thumbnail'),
];

/**
 * Removes what these attachments stored. Best effort: a key that cannot be removed now (storage unreachable) is
 * left to the sweep (sweepOrphans), which removes objects no attachment names.
 */
export async function discardKeys(storage: AttachmentStorage, ids: readonly string[]): Promise<void> {
  await Promise.all(ids.flatMap(keysOf).map((key) => storage.delete(key).catch(() => {})));
}
