// Photos and files with a request. A lead's attachments are recorded in the transaction that adds them (with
// attachment.created), after their bytes were stored (upload.ts); their bytes go after the commit that removes
// their rows. The leads capability owns the lead side (its lock, its count, its list item) and calls these.
import { Readable } from 'node:stream';
import { type Static, Type } from '@sinclair/typebox';
import type { Runner } from '../platform/db/sql.js';
import type { Store, Tx } from '../platform/db/store.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { Timestamp } from '../shared/json-schema.js';
import { type Page, type PageQuery, toPage } from '../shared/paging.js';
import { iso } from '../shared/time.js';
import { recordEvent } from '../webhooks/events.js';
import { isImageType } from './content.js';
import { renderVariant, type Variant } from './images.js';
import {
  type AttachmentRow,
  countLeadAttachments,
  deleteAttachmentRow,
  deleteAttachmentsOfLeads,
  insertAttachments,
  selectAttachment,
  selectAttachmentPage,
  selectExistingIds,
  selectLeadAttachments,
} from './queries.js';
import { type AttachmentStorage, discardKeys, keysOf, variantKey } from './storage.js';
import { FIELD, type ReceivedFile } from './upload.js';

export const ATTACHMENT_SOURCES = ['form', 'api', 'dashboard'] as const;
export type AttachmentSource = (typeof ATTACHMENT_SOURCES)[number];

const NullableInteger = (description: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, description });

export const AttachmentSchema = Type.Object(
  {
    id: Type.String({ description: 'att_… identifier.' }),
    leadId: Type.String({ description: 'wrk_… of the lead or work item it belongs to.' }),
    fileName: Type.String({ description: 'The name the file was sent with, for display; never a path.' }),
    contentType: Type.String({
      enum: [
        'image/jpeg',
        'image/png',
        'image/webp',
        'image/gif',
        'image/heic',
        'image/heif',
        'image/heic-sequence',
        'image/heif-sequence',
        'application/pdf',
      ],
      description: 'Decided from the bytes, never from the name or the type the client declared.',
    }),
    size: Type.Integer({ minimum: 1, description: 'Bytes.' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Hex SHA-256 of the bytes as received.' }),
    width: NullableInteger(
      'Pixels, upright; null for files that are not images or whose size cannot be read.',
    ),
    height: NullableInteger('Pixels, upright; null like width.'),
    source: Type.String({
      enum: [...ATTACHMENT_SOURCES],
      description: 'How it came: a website form, the API, the dashboard.',
    }),
    createdAt: Timestamp(),
  },
  { additionalProperties: false, title: 'Attachment' },
);
export type Attachment = Static<typeof AttachmentSchema>;

export function attachmentOf(row: AttachmentRow): Attachment {
  return {
    id: row.id,
    leadId: row.lead_id,
    fileName: row.file_name,
    contentType: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    width: row.width === null ? null : Number(row.width),
    height: row.height === null ? null : Number(row.height),
    source: row.source,
    createdAt: iso(Number(row.created_at)),
  };
}

/** A lead's attachments, oldest first: the single read's `attachments` (a write's tx reads its own). */
export async function leadAttachments(runner: Runner, leadId: string): Promise<Attachment[]> {
  return (await selectLeadAttachments(runner, leadId)).map(attachmentOf);
}

/** A page of a lead's attachments by (createdAt, id), in the query's order; the caller has checked the lead is the brand's. */
export async function listAttachments(
  store: Store,
  brandId: string,
  leadId: string,
  query: PageQuery,
): Promise<Page<Attachment>> {
  const rows = await selectAttachmentPage(store, brandId, leadId, query);
  return toPage(
    rows,
    query.limit,
    query.order,
    (r) => ({ time: Number(r.created_at), id: r.id }),
    attachmentOf,
  );
}

/** One attachment of the brand. NotFoundError for another brand's or an unknown id. */
export async function getAttachment(store: Store, brandId: string, id: string): Promise<Attachment> {
  const row = await selectAttachment(store, brandId, id);
  if (!row) throw new NotFoundError(`No attachment with id ${id}`);
  return attachmentOf(row);
}

/**
 * Records stored files as the lead's attachments, with an attachment.created event each (`{ attachment }`; none
 * when `quiet`: the caller writes them), in the caller's transaction, which holds the lead's lock (or has just
 * inserted the lead). A lead may have at most `maxPerLead` (a 422 naming `attachments` beyond). The caller
 * removes the files' bytes if this write does not commit.
 */
export async function recordAttachments(
  tx: Tx,
  lead: { brandId: string; leadId: string },
  files: readonly ReceivedFile[],
  options: { source: AttachmentSource; maxPerLead: number; now?: number; quiet?: boolean },
): Promise<Attachment[]> {
  const now = options.now ?? Date.now();
  const existing = await countLeadAttachments(tx, lead.leadId);
  if (existing + files.length > options.maxPerLead) {
    throw new ValidationError([
      {
        field: FIELD,
        message: `a lead can have at most ${options.maxPerLead} files; it has ${existing}, and ${files.length} more were sent`,
        text: { key: 'attachments.error.leadFull', values: { max: options.maxPerLead } },
      },
    ]);
  }
  const rows: AttachmentRow[] = files.map((f) => ({
    id: f.id,
    lead_id: lead.leadId,
    brand_id: lead.brandId,
    file_name: f.fileName,
    content_type: f.contentType,
    size: f.size,
    sha256: f.sha256,
    width: f.width,
    height: f.height,
    source: options.source,
    storage_key: f.storageKey,
    created_at: now,
  }));
  await insertAttachments(tx, rows);
  const attachments = rows.map(attachmentOf);
  // `quiet`: a spam lead's files, which (like the lead) write no event.
  if (!options.quiet) {
    for (const attachment of attachments) {
      await recordEvent(tx, lead.brandId, 'attachment.created', { attachment }, now);
    }
  }
  return attachments;
}

/**
 * Removes an attachment in the caller's transaction, with attachment.deleted (`{ attachment }`, as it was); its
 * bytes are removed once the write has committed.
 */
export async function removeAttachment(
  tx: Tx,
  storage: AttachmentStorage,
  brandId: string,
  attachment: Attachment,
  now: number = Date.now(),
): Promise<boolean> {
  if (!(await deleteAttachmentRow(tx, attachment.id))) return false;
  await recordEvent(tx, brandId, 'attachment.deleted', { attachment }, now);
  tx.onCommit(() => void discardKeys(storage, [attachment.id]));
  return true;
}

/**
 * Removes every attachment of leads being deleted in the caller's transaction (no events: the leads go too);
 * their bytes go after the commit. Without a storage the bytes are left to the sweep.
 */
export async function removeAttachmentsOfLeads(
  tx: Tx,
  leadIds: readonly string[],
  storage: AttachmentStorage | undefined,
): Promise<number> {
  const rows = await deleteAttachmentsOfLeads(tx, leadIds);
  if (rows.length && storage) {
    tx.onCommit(
      () =>
        void discardKeys(
          storage,
          rows.map((r) => r.id),
        ),
    );
  }
  return rows.length;
}

/**
 * Erasure: deletes every attachment row of these leads in the caller's transaction (no events: the erasure sends
 * its own) and returns their ids, for eraseAttachmentBytes once the write has committed.
 */
export async function eraseAttachmentsOfLeads(tx: Tx, leadIds: readonly string[]): Promise<string[]> {
  return (await deleteAttachmentsOfLeads(tx, leadIds)).map((r) => r.id);
}

/**
 * Deletes the stored bytes of these attachments (originals and variants) and waits for it. Returns the keys that
 * could not be deleted (storage unreachable): no row names them any more, so the hourly sweep removes them.
 */
export async function eraseAttachmentBytes(
  storage: AttachmentStorage,
  ids: readonly string[],
): Promise<string[]> {
  const failed: string[] = [];
  await Promise.all(
    ids.flatMap(keysOf).map((key) =>
      storage.delete(key).catch(() => {
        failed.push(key);
      }),
    ),
  );
  return failed;
}

export interface Content {
  stream: Readable;
  size: number;
  contentType: string;
}

/**
 * An attachment's bytes: the original as received, or an image's variant (made on first request and kept in
 * storage). NotFoundError when the file has no such variant (a PDF, an image that cannot be decoded) or its
 * bytes are missing.
 */
export async function readContent(
  store: Store,
  storage: AttachmentStorage,
  brandId: string,
  id: string,
  variant?: Variant,
): Promise<Content & { attachment: Attachment }> {
  const row = await selectAttachment(store, brandId, id);
  if (!row) throw new NotFoundError(`No attachment with id ${id}`);
  const attachment = attachmentOf(row);
  return { attachment, ...(await contentOf(storage, attachment, row.storage_key, variant)) };
}

async function contentOf(
  storage: AttachmentStorage,
  attachment: Attachment,
  storageKey: string,
  variant: Variant | undefined,
): Promise<Content> {
  if (!variant) {
    const stored = await storage.get(storageKey);
    if (!stored) throw new NotFoundError(`The bytes of attachment ${attachment.id} are missing`);
    return { ...stored, contentType: attachment.contentType };
  }
  const none = () =>
    new NotFoundError(
      `Attachment ${attachment.id} has no ${variant} (only images that can be decoded have one)`,
    );
  if (!isImageType(attachment.contentType)) throw none();
  const key = variantKey(attachment.id, variant);
  const kept = await storage.get(key);
  if (kept) return { ...kept, contentType: 'image/jpeg' };
  const original = await storage.get(storageKey);
  if (!original) throw new NotFoundError(`The bytes of attachment ${attachment.id} are missing`);
  const chunks: Buffer[] = [];
  for await (const chunk of original.stream) chunks.push(chunk as Buffer);
  let rendered: Buffer;
  try {
    rendered = await renderVariant(Buffer.concat(chunks), variant);
  } catch {
    throw none();
  }
  // Kept for the next request; two first requests at once store the same bytes. One that races a delete leaves
  // an object without a row, which the sweep removes.
  await storage.put(key, rendered, { contentType: 'image/jpeg' });
  return { stream: Readable.from([rendered]), size: rendered.length, contentType: 'image/jpeg' };
}

/** Stored objects younger than this are never swept: their attachment's transaction may still be running. */
export const ORPHAN_AGE_MS = 60 * 60 * 1000;
const SWEEP_BATCH = 500;

/**
 * Removes stored objects that no attachment names and that are older than an hour: bytes of a post whose
 * transaction never committed (a crash between storing and recording), of rows removed while storage was
 * unreachable, or variants made while their attachment was being deleted. Returns how many it removed.
 */
export async function sweepOrphans(
  store: Store,
  storage: AttachmentStorage,
  now: number = Date.now(),
): Promise<number> {
  let removed = 0;
  let batch: { key: string; id: string }[] = [];
  const flush = async () => {
    const existing = await selectExistingIds(store, [...new Set(batch.map((b) => b.id))]);
    for (const { key, id } of batch) {
      if (existing.has(id)) continue;
      await storage.delete(key);
      removed++;
    }
    batch = [];
  };
  for await (const object of storage.list()) {
    if (object.modifiedAt > now - ORPHAN_AGE_MS) continue;
    const id = object.key.split('/')[0] ?? '';
    // Only what this service writes: attachments' keys, and a disk storage's unfinished temporary files.
    if (id === '.tmp') {
      await storage.delete(object.key);
      removed++;
      continue;
    }
    if (!/^att_[0-9a-z]{26}$/.test(id)) continue;
    batch.push({ key: object.key, id });
    if (batch.length >= SWEEP_BATCH) await flush();
  }
  if (batch.length) await flush();
  return removed;
}
