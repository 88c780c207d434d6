// A lead's photos and files, on the lead's side: adding and removing them takes the lead's lock, keeps its count
// (its list item shows it) and runs in one transaction with the attachments' rows and events. The bytes are
// stored before that transaction (attachments/upload.ts) and removed again when it does not commit; a removal's
// bytes go after its commit.
import {
  type Attachment,
  type AttachmentSource,
  getAttachment,
  listAttachments,
  recordAttachments,
  removeAttachment,
} from '../attachments/attachments.js';
import type { AttachmentStorage } from '../attachments/storage.js';
import type { ReceivedFile, Upload } from '../attachments/upload.js';
import type { Store } from '../platform/db/store.js';
import { NotFoundError } from '../shared/errors.js';
import type { Page, PageQuery } from '../shared/paging.js';
import { lockLead, realLeadExists, updateAttachmentCount } from './queries.js';

/** NotFoundError unless the lead is the brand's (spam is not there until released, as for reads). */
export async function assertLeadExists(store: Store, brandId: string, leadId: string): Promise<void> {
  if (!(await realLeadExists(store, brandId, leadId))) throw new NotFoundError(`No lead with id ${leadId}`);
}

/**
 * Records a post's stored files as the lead's attachments (attachment.created each), at most `maxPerLead` in all.
 * When the write fails (the lead is gone, the limit, the database) the files' bytes are removed before the error
 * is passed on: nothing points at a missing file and no file is left without its row.
 */
export async function addLeadAttachments(
  store: Store,
  upload: Upload,
  target: { brandId: string; leadId: string },
  options: { source: AttachmentSource; maxPerLead: number },
): Promise<Attachment[]> {
  const files: readonly ReceivedFile[] = upload.files;
  try {
    return await store.write(async (tx) => {
      await lockLead(tx, target.leadId);
      await assertLeadExists(tx, target.brandId, target.leadId);
      const added = await recordAttachments(tx, target, files, options);
      await updateAttachmentCount(tx, target.leadId, added.length);
      return added;
    });
  } catch (error) {
    await upload.discard();
    throw error;
  }
}

/** A page of the brand's lead's attachments, newest first unless order is asc. NotFoundError for another brand's lead. */
export async function listLeadAttachments(
  store: Store,
  brandId: string,
  leadId: string,
  query: PageQuery,
): Promise<Page<Attachment>> {
  await assertLeadExists(store, brandId, leadId);
  return listAttachments(store, brandId, leadId, query);
}

/** Removes the brand's attachment (attachment.deleted); its bytes go after the commit. NotFoundError otherwise. */
export async function deleteLeadAttachment(
  store: Store,
  storage: AttachmentStorage,
  brandId: string,
  id: string,
): Promise<void> {
  await store.write(async (tx) => {
    const found = await getAttachment(tx, brandId, id);
    await lockLead(tx, found.leadId);
    // Read again under the lock: a delete that ran meanwhile has removed it.
    const attachment = await getAttachment(tx, brandId, id);
    if (!(await removeAttachment(tx, storage, brandId, attachment))) {
      throw new NotFoundError(`No attachment with id ${id}`);
    }
    await updateAttachmentCount(tx, attachment.leadId, -1);
  });
}
