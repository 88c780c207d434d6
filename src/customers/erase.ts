// Erasing a customer's personal data (personal-data/erase.ts runs the whole erasure): its name, first and last
// name, company, email and phone, and the street, number and addition of its addresses. The id, type, times and
// the postal code, city and country of its addresses stay. Its name reads as the empty string afterwards (a name
// is a required string wherever a customer is read), every other contact field as null.

import { takeAdvisoryLocks } from '../platform/db/advisory-locks.js';
import type { Store, Tx } from '../platform/db/store.js';
import { contactLockKeys } from './customers.js';
import {
  lockCustomer,
  selectCustomerForErase,
  selectMergedFrom,
  selectUpdateDetails,
  updateAddressesErased,
  updateCustomerActivityDetail,
  updateCustomersErased,
} from './queries.js';

export interface CustomerToErase {
  id: string;
  /** When it was erased; null when it is not yet. */
  erasedAt: number | null;
  /** Its email and phone as stored (to find the copies of them), before the erase. */
  contacts: string[];
}

/**
 * Finds the brand's customer (undefined: none) and takes the locks a submission with its email or phone takes,
 * and its row's, so a submission from the same person either committed before (its lead is erased too) or
 * waits and then finds no customer with that email or phone (it gets a new one).
 */
export async function lockCustomerToErase(
  tx: Tx,
  brandId: string,
  id: string,
): Promise<CustomerToErase | undefined> {
  const row = await selectCustomerForErase(tx, brandId, id);
  if (!row) return undefined;
  await takeAdvisoryLocks(tx, contactLockKeys([{ brandId, email: row.email_normalized, phone: row.phone }]));
  await lockCustomer(tx, id);
  // Read again under the locks: an edit may have changed the email or phone meanwhile (PostgreSQL).
  const locked = await selectCustomerForErase(tx, brandId, id);
  if (!locked) return undefined;
  return {
    id,
    erasedAt: locked.erased_at === null ? null : Number(locked.erased_at),
    contacts: [locked.email, locked.phone].filter((c): c is string => c !== null),
  };
}

/** The customers merged into these (the same person's records before a merge), and those merged into them. */
export async function mergedCustomerIds(
  store: Store,
  brandId: string,
  ids: readonly string[],
): Promise<string[]> {
  const seen = new Set(ids);
  let next = [...ids];
  while (next.length) {
    next = (await selectMergedFrom(store, brandId, next)).filter((id) => !seen.has(id));
    for (const id of next) seen.add(id);
  }
  return [...seen].filter((id) => !ids.includes(id));
}

/** Erases these customers' contact fields and addresses' streets; returns the addresses' ids. */
export async function eraseCustomerRows(
  tx: Tx,
  brandId: string,
  ids: readonly string[],
  now: number,
): Promise<string[]> {
  if (!ids.length) return [];
  await updateCustomersErased(tx, brandId, ids, now);
  for (const row of await selectUpdateDetails(tx, brandId, ids)) {
    const detail = JSON.parse(row.detail) as { changed?: unknown };
    const kept = JSON.stringify(Array.isArray(detail.changed) ? { changed: detail.changed } : {});
    if (kept !== row.detail) await updateCustomerActivityDetail(tx, row.id, kept);
  }
  return updateAddressesErased(tx, brandId, ids, now);
}
