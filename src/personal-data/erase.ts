// Erasing a person's data (contract "Personal data"): the customer, every lead of theirs and every copy the
// service keeps, in one transaction, and gone from the database's files before the caller is answered. The
// retention run erases old leads (and customers left with nothing else) by the same code.

import { dropFlashesMentioning } from '../accounts/flashes.js';
import { eraseAttachmentBytes, eraseAttachmentsOfLeads } from '../attachments/attachments.js';
import { type CustomerActor, recordCustomerActivity } from '../customers/activity.js';
import { eraseCustomerRows, lockCustomerToErase, mergedCustomerIds } from '../customers/erase.js';
import { eraseLeads, leadIdsOfCustomers } from '../leads/erase.js';
import { dropMailAbout } from '../mail/outbox.js';
import type { Database } from '../platform/db/database.js';
import { rewriteIdempotentResponses } from '../platform/db/idempotency.js';
import { compactSearchIndex } from '../platform/db/search.js';
import type { Tx } from '../platform/db/store.js';
import type { ObjectStorage } from '../platform/storage/storage.js';
import { NotFoundError } from '../shared/errors.js';
import { iso } from '../shared/time.js';
import { recordEvent, rewriteEvents } from '../webhooks/events.js';
import { type ErasedRecords, redactJson } from './redact.js';

/** What an erasure needs besides the data: where attachments' bytes are, and what keeps copies in memory. */
export interface ErasureDeps {
  database: Database;
  storage: ObjectStorage;
  /** Kept responses (the response cache): cleared after an erasure. */
  responses?: { clear(): void };
  log?: { info(o: object, msg: string): void; error(o: object, msg: string): void };
}

export interface ErasureResult {
  id: string;
  erasedAt: string;
  /** Leads and work items erased now (0 when the customer was erased before). */
  leads: number;
  /** Attachments removed now. */
  attachments: number;
}

/** What one erasure's transaction covered, for what follows its commit. */
export interface Covered {
  leads: number;
  attachmentIds: string[];
}

/**
 * Erases in the caller's transaction: the contact fields of `customerIds` (and their addresses' streets), the
 * personal data of `leadIds`, and every copy of either in stored events, idempotent responses, mail and flashes;
 * `alsoMentioned`: ids of earlier records of the same person (customers merged away) whose copies go too;
 * `contacts`: the erased customers' emails and phones (a lead erased alone names none).
 */
export async function eraseRecords(
  tx: Tx,
  brandId: string,
  scope: { customerIds: string[]; leadIds: string[]; alsoMentioned: string[]; contacts: string[] },
  now: number,
): Promise<Covered> {
  const { customerIds, leadIds } = scope;
  const { noteIds, emails, since } = await eraseLeads(tx, brandId, leadIds, now);
  const attachmentIds = await eraseAttachmentsOfLeads(tx, leadIds);
  const addressIds = await eraseCustomerRows(tx, brandId, customerIds, now);
  const records: ErasedRecords = {
    customers: new Set([...customerIds, ...scope.alsoMentioned]),
    leads: new Set(leadIds),
    addresses: new Set(addressIds),
    notes: new Set(noteIds),
    attachments: new Set(attachmentIds),
  };
  const redact = (text: string) => redactJson(text, records);
  const mentioned = [...customerIds, ...scope.alsoMentioned, ...leadIds];
  // A customer is made with its first lead, in the same transaction: no event about these records is older than
  // the earliest lead (a customer without leads has none to go by: all of the brand's events are read).
  await rewriteEvents(tx, brandId, mentioned, redact, since === undefined ? undefined : since - 1000);
  await rewriteIdempotentResponses(tx, [...mentioned, ...noteIds, ...attachmentIds], redact);
  // Mail queued before mails named their lead is found by the person's addresses, once the whole person goes.
  const addresses = customerIds.length ? [...emails, ...scope.contacts.filter((c) => c.includes('@'))] : [];
  await dropMailAbout(tx, brandId, leadIds, addresses);
  await dropFlashesMentioning(tx, [...mentioned, ...scope.contacts, ...emails]);
  await compactSearchIndex(tx);
  return { leads: leadIds.length, attachmentIds };
}

/** The customer's history line and `customer.erased` (only the id and time), in the erasure's transaction. */
export async function recordErasure(
  tx: Tx,
  brandId: string,
  customerId: string,
  actor: CustomerActor,
  detail: Record<string, unknown>,
  now: number,
): Promise<void> {
  await recordCustomerActivity(tx, { brandId, customerId, kind: 'erased', actor, detail, at: now });
  await recordEvent(
    tx,
    brandId,
    'customer.erased',
    { customer: { id: customerId }, erasedAt: iso(now) },
    now,
  );
}

/**
 * After the commit: the attachments' bytes, the response cache, and the database files (SQLite: the WAL emptied
 * into the zeroed pages). Waits for all of it, so the caller answers only when the data is gone.
 */
export async function finishErasure(deps: ErasureDeps, covered: Covered, context: object): Promise<void> {
  const failed = covered.attachmentIds.length
    ? await eraseAttachmentBytes(deps.storage, covered.attachmentIds)
    : [];
  if (failed.length)
    deps.log?.error(
      { ...context, keys: failed },
      'could not delete erased attachments from storage; the hourly sweep removes them',
    );
  deps.responses?.clear();
  if (!(await deps.database.forgetOverwritten()))
    deps.log?.error(
      context,
      'the erasure committed, but a reader (a running backup?) kept the database WAL from being emptied; it is at the next checkpoint',
    );
}

/**
 * Erases the brand's customer and everything of theirs (contract "Personal data"). NotFoundError for an unknown
 * id. A customer erased before is answered as it is, with nothing changed.
 */
export async function eraseCustomer(
  deps: ErasureDeps,
  brandId: string,
  customerId: string,
  actor: CustomerActor,
  options: { reason?: string; now?: number } = {},
): Promise<ErasureResult> {
  const now = options.now ?? Date.now();
  const outcome = await deps.database.write(
    async (tx) => {
      const target = await lockCustomerToErase(tx, brandId, customerId);
      if (!target) throw new NotFoundError(`No customer with id ${customerId}`);
      if (target.erasedAt !== null) return { erasedAt: target.erasedAt, covered: null };
      const alsoMentioned = await mergedCustomerIds(tx, brandId, [customerId]);
      const leadIds = await leadIdsOfCustomers(tx, brandId, [customerId]);
      const covered = await eraseRecords(
        tx,
        brandId,
        { customerIds: [customerId], leadIds, alsoMentioned, contacts: target.contacts },
        now,
      );
      await recordErasure(
        tx,
        brandId,
        customerId,
        actor,
        options.reason ? { reason: options.reason } : {},
        now,
      );
      return { erasedAt: now, covered };
    },
    // Large: eraseRecords rewrites the whole search index (compactSearchIndex).
    { large: true },
  );
  const result: ErasureResult = {
    id: customerId,
    erasedAt: iso(outcome.erasedAt),
    leads: outcome.covered?.leads ?? 0,
    attachments: outcome.covered?.attachmentIds.length ?? 0,
  };
  if (outcome.covered) {
    const context = { brandId, customerId, actor: { type: actor.type, id: actor.id } };
    await finishErasure(deps, outcome.covered, context);
    deps.log?.info({ ...context, leads: result.leads, attachments: result.attachments }, 'customer erased');
  }
  return result;
}
