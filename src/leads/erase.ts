// Erasing the personal data of leads (personal-data/erase.ts runs it for a customer or for retention): what the
// person gave goes (the contact and address as submitted, the description, budget and notes fields, extra form
// fields, attribution, consent, every internal note, and the values in the edit history); the business's own
// record stays (title, category, priority, states, times, planning, who did what).

import type { Store, Tx } from '../platform/db/store.js';
import { leadField } from './fields.js';
import { SUBMITTED_FIELDS } from './input.js';
import {
  countUntouchedLeads,
  customersWithOtherLeads,
  deleteNotesOfLeads,
  selectActivityDetails,
  selectEarliestCreated,
  selectLeadIdsOfCustomers,
  selectSubmittedEmails,
  selectUntouchedLeads,
  updateActivityDetail,
  updateLeadRows,
} from './queries.js';

/** The lead fields (fields.ts) that hold what the person wrote; the other job fields are the business's. */
export const PERSONAL_LEAD_FIELDS = ['description', 'budgetQuote', 'notes'] as const;

/** The JSON columns a lead keeps of a submission besides its fields. */
export const PERSONAL_LEAD_JSON_COLUMNS = ['submitted', 'extra_fields', 'attribution', 'consent'] as const;

/** `submitted` after an erase: the same shape, every field null. */
const ERASED_SUBMITTED = JSON.stringify(Object.fromEntries(SUBMITTED_FIELDS.map((f) => [f, null])));

export interface ErasedLeads {
  noteIds: string[];
  /** When the earliest of them was created: no event about them is older. */
  since: number | undefined;
  /** The emails the leads were submitted with, before the erase (their receipts went there). */
  emails: string[];
}

/**
 * Erases the personal data of these leads of the brand in the caller's transaction (their attachments are the
 * attachments capability's). The triggers write their search documents and list items again.
 */
export async function eraseLeads(
  tx: Tx,
  brandId: string,
  leadIds: readonly string[],
  now: number,
): Promise<ErasedLeads> {
  if (!leadIds.length) return { noteIds: [], emails: [], since: undefined };
  const since = await selectEarliestCreated(tx, leadIds);
  const emails = (await selectSubmittedEmails(tx, leadIds)).filter((e): e is string => e !== null);
  const set: Record<string, unknown> = Object.fromEntries(
    PERSONAL_LEAD_FIELDS.map((name) => [leadField(name).column, null]),
  );
  await updateLeadRows(tx, brandId, leadIds, {
    ...set,
    submitted: ERASED_SUBMITTED,
    extra_fields: null,
    attribution: null,
    consent: null,
    attachment_count: 0,
    erased_at: now,
    updated_at: now,
  });
  const noteIds = await deleteNotesOfLeads(tx, leadIds);
  // Edits keep which fields changed, not the values before and after.
  for (const row of await selectActivityDetails(tx, leadIds)) {
    const detail = JSON.parse(row.detail) as { changed?: unknown };
    const kept = Array.isArray(detail.changed) ? { changed: detail.changed } : {};
    const text = JSON.stringify(kept);
    if (text !== row.detail) await updateActivityDetail(tx, row.id, text);
  }
  return { noteIds, emails: [...new Set(emails)], since };
}

/** Every lead and work item of these customers, spam too. */
export function leadIdsOfCustomers(
  tx: Tx,
  brandId: string,
  customerIds: readonly string[],
): Promise<string[]> {
  return selectLeadIdsOfCustomers(tx, brandId, customerIds);
}

/** The states a lead that retention erases is in: nothing was agreed or done for it. */
export const RETAINED_STATUSES = ['request', 'quoted', 'cancelled'] as const;

/** Leads retention erases: in those states, not erased, unchanged since `before`; oldest first. */
export function untouchedLeads(
  store: Store,
  brandId: string,
  before: number,
  limit: number,
): Promise<{ id: string; customer_id: string }[]> {
  return selectUntouchedLeads(store, brandId, RETAINED_STATUSES, before, limit);
}

export function countUntouched(store: Store, brandId: string, before: number): Promise<number> {
  return countUntouchedLeads(store, brandId, RETAINED_STATUSES, before);
}

/** Of these customers, those with a lead that is neither erased nor among `leadIds`. */
export function customersKeepingLeads(
  tx: Tx,
  brandId: string,
  customerIds: readonly string[],
  leadIds: readonly string[],
): Promise<Set<string>> {
  return customersWithOtherLeads(tx, brandId, customerIds, leadIds);
}
