// The attachments capability's SQL. Kysely throughout, except the lead's attachments for its single read, a
// hand-written statement because getLead runs on a Runner (statements only) and is the measured hot path of the
// single read (bench/README.md "Speed, round two: lists from ready JSON"): one index range read
// (attachments_lead) added to it.
import type { Selectable } from 'kysely';
import { keysetPage } from '../platform/db/keyset.js';
import type { AttachmentTable } from '../platform/db/schema.js';
import { type Runner, statement } from '../platform/db/sql.js';
import type { Store, Tx } from '../platform/db/store.js';
import type { PageQuery } from '../shared/paging.js';

export type AttachmentRow = Selectable<AttachmentTable>;

const COLUMNS = [
  'id',
  'lead_id',
  'brand_id',
  'file_name',
  'content_type',
  'size',
  'sha256',
  'width',
  'height',
  'source',
  'storage_key',
  'created_at',
] as const;

const OF_LEAD = statement(
  `select ${COLUMNS.join(', ')} from attachments where lead_id = ? order by created_at, id`,
);

/** A lead's attachments, oldest first (the single read's `attachments`). */
export function selectLeadAttachments(runner: Runner, leadId: string): Promise<AttachmentRow[]> {
  return runner.all<AttachmentRow>(OF_LEAD, [leadId]);
}

/** A page of the brand's lead's attachments by (created_at, id). */
export function selectAttachmentPage(
  store: Store,
  brandId: string,
  leadId: string,
  page: PageQuery,
): Promise<AttachmentRow[]> {
  const query = store.db
    .selectFrom('attachments')
    .select([...COLUMNS])
    .where('brand_id', '=', brandId)
    .where('lead_id', '=', leadId);
  return keysetPage(query, { time: 'created_at', id: 'id' }, page).execute();
}

export async function selectAttachment(
  store: Store,
  brandId: string,
  id: string,
): Promise<AttachmentRow | undefined> {
  return store.db
    .selectFrom('attachments')
    .select([...COLUMNS])
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
}

export async function countLeadAttachments(tx: Tx, leadId: string): Promise<number> {
  const row = await tx.db
    .selectFrom('attachments')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('lead_id', '=', leadId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertAttachments(tx: Tx, rows: readonly AttachmentRow[]): Promise<void> {
  if (rows.length)
    await tx.db
      .insertInto('attachments')
      .values([...rows])
      .execute();
}

export async function deleteAttachmentRow(tx: Tx, id: string): Promise<boolean> {
  const result = await tx.db.deleteFrom('attachments').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes the leads' attachments, returning the rows they were. */
export async function deleteAttachmentsOfLeads(tx: Tx, leadIds: readonly string[]): Promise<AttachmentRow[]> {
  if (!leadIds.length) return [];
  const rows = await tx.db
    .selectFrom('attachments')
    .select([...COLUMNS])
    .where('lead_id', 'in', leadIds)
    .execute();
  if (rows.length) await tx.db.deleteFrom('attachments').where('lead_id', 'in', leadIds).execute();
  return rows;
}

/** Which of these ids name an attachment. */
export async function selectExistingIds(store: Store, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await store.db.selectFrom('attachments').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}
