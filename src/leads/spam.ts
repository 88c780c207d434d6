// Spam: leads whose form honeypot was filled. They are in no list, read or event until someone in the office
// releases one ("Not spam"), which makes it a lead exactly as if it had arrived normally; after 30 days the worker
// removes them with whatever only they had (lead history, activity, quietly created customers and addresses).

import { removeAttachmentsOfLeads } from '../attachments/attachments.js';
import type { AttachmentStorage } from '../attachments/storage.js';
import { findOrCreateAddress } from '../customers/addresses.js';
import { type ContactInput, deleteUnusedCustomers, linkReleasedCustomer } from '../customers/customers.js';
import { ADDRESS_FIELDS, valuesByName } from '../customers/fields.js';
import type { Store, Tx } from '../platform/db/store.js';
import { NotFoundError } from '../shared/errors.js';
import { type Page, type PageQuery, toPage } from '../shared/paging.js';
import { iso } from '../shared/time.js';
import { recordEvent } from '../webhooks/events.js';
import type { Submitted } from './input.js';
import { queueNewLeadEmails } from './new-lead-mail.js';
import {
  countSpam,
  deleteSpamLeads,
  type SpamRow,
  selectAddressPlace,
  selectOldSpamLocked,
  selectSpamLocked,
  selectSpamPage,
  updateLeadRow,
  updateSpamReleased,
} from './queries.js';
import { getLead } from './read.js';

/** How long spam is kept for someone to look at. */
export const SPAM_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const PURGE_BATCH = 200;

export interface SpamLead {
  id: string;
  title: string;
  description: string | null;
  receivedAt: string;
  /** The contact and address as the form sent them. */
  submitted: Partial<Submitted>;
  formId: string | null;
  formName: string | null;
}

function submittedOf(text: string): Partial<Submitted> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Partial<Submitted>) : {};
  } catch {
    return {};
  }
}

function contactOf(s: Partial<Submitted>): ContactInput {
  return {
    customerName: s.customerName ?? '',
    firstName: s.firstName ?? null,
    lastName: s.lastName ?? null,
    email: s.email ?? null,
    phone: s.phone ?? null,
    companyName: s.companyName ?? null,
  };
}

/** The brand's spam, newest first, keyset-paged by (received, id). */
export async function listSpamLeads(
  store: Store,
  brandId: string,
  query: PageQuery,
): Promise<Page<SpamLead>> {
  const rows = await selectSpamPage(store, brandId, query);
  return toPage(
    rows,
    query.limit,
    query.order,
    (r) => ({ time: Number(r.received_at), id: r.id }),
    (r) => ({
      id: r.id,
      title: r.title,
      description: r.description,
      receivedAt: iso(Number(r.received_at)),
      submitted: submittedOf(r.submitted),
      formId: r.source_form_id,
      formName: r.source_form_name,
    }),
  );
}

export async function countSpamLeads(store: Store, brandId: string): Promise<number> {
  return countSpam(store, brandId);
}

/**
 * "Not spam": in one transaction the lead stops being spam and becomes what a lead arriving now would be. Its
 * customer is linked by the usual rules and filled in or announced (see linkReleasedCustomer), the lead moves to
 * another customer (and address) only when those rules now name another one, lead.created is written (webhooks)
 * and the "new lead" mails are queued. Its updatedAt is now, so polling by updatedAfter sees it. NotFoundError
 * for an id that is not the brand's spam (already released, removed, or another brand's).
 */
export function releaseSpam(
  store: Store,
  brandId: string,
  id: string,
  now: number = Date.now(),
): Promise<{ id: string; title: string }> {
  return store.write(async (tx) => {
    const lead = await updateSpamReleased(tx, brandId, id, now);
    if (!lead) throw new NotFoundError(`No spam lead with id ${id}`);
    // Spam only ever comes from website forms: the anonymous rule holds when a person releases it too.
    const customer = await linkReleasedCustomer(
      tx,
      brandId,
      contactOf(submittedOf(lead.submitted)),
      id,
      now,
      {
        anonymous: true,
      },
    );
    if (customer.id !== lead.customer_id) {
      const address = await selectAddressPlace(tx, lead.address_id);
      const moved = await findOrCreateAddress(
        tx,
        brandId,
        customer.id,
        valuesByName(ADDRESS_FIELDS, address),
        now,
      );
      await updateLeadRow(tx, brandId, id, { customer_id: customer.id, address_id: moved.id });
      await deleteUnusedCustomers(tx, { customerIds: [lead.customer_id], addressIds: [lead.address_id] });
    }
    await recordEvent(tx, brandId, 'lead.created', { lead: await getLead(tx, brandId, id) }, now);
    // The office's mails, and the customer's receipt when the form has auto-reply on.
    await queueNewLeadEmails(tx, brandId, id, now);
    return { id, title: lead.title };
  });
}

/**
 * Deletes spam leads and what hangs off them, their attachments too (their bytes after the commit; without a
 * storage, the sweep removes them); the rows must be locked spam of the caller's transaction.
 */
async function removeSpam(tx: Tx, rows: readonly SpamRow[], storage?: AttachmentStorage): Promise<void> {
  if (!rows.length) return;
  const ids = rows.map((r) => r.id);
  await removeAttachmentsOfLeads(tx, ids, storage);
  await deleteSpamLeads(tx, ids);
  await deleteUnusedCustomers(tx, {
    customerIds: rows.map((r) => r.customer_id),
    addressIds: rows.map((r) => r.address_id),
  });
}

/** Deletes one spam lead of the brand at once (not waiting for the 30 days). NotFoundError otherwise. */
export function deleteSpam(
  store: Store,
  brandId: string,
  id: string,
  storage?: AttachmentStorage,
): Promise<void> {
  return store.write(async (tx) => {
    const row = await selectSpamLocked(tx, brandId, id);
    if (!row) throw new NotFoundError(`No spam lead with id ${id}`);
    await removeSpam(tx, [row], storage);
  });
}

/**
 * Deletes spam received more than `olderThanMs` ago, in every brand, with its history and activity and the
 * customers and addresses only spam had; real leads and customers are never touched. Returns how many leads.
 */
export async function purgeSpam(
  store: Store,
  olderThanMs: number = SPAM_RETENTION_MS,
  now: number = Date.now(),
  storage?: AttachmentStorage,
): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await store.write(async (tx) => {
      // A release running at the same moment either commits first (the lead is no spam and is skipped) or waits.
      const rows = await selectOldSpamLocked(tx, now - olderThanMs, PURGE_BATCH);
      await removeSpam(tx, rows, storage);
      return rows.length;
    });
    total += removed;
    if (removed < PURGE_BATCH) return total;
  }
}
