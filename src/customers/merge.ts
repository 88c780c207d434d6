// The customers' part of merging two customers (the merge itself: personal-data/merge.ts): both rows locked and
// checked, the addresses of the one merged away given to the one kept (the same place twice becomes one), its
// activity moved, the row deleted and the kept customer's empty fields filled from it; and the likely duplicates
// the customer page offers to merge.
import type { Store, Tx } from '../platform/db/store.js';
import { DomainError, NotFoundError } from '../shared/errors.js';
import { type CustomerActor, recordCustomerActivity } from './activity.js';
import { type Contact, type Customer, lockContactKeys, toCustomer, updateCustomer } from './customers.js';
import { CONTACT_FIELDS, type ContactField } from './fields.js';
import {
  deleteAddresses,
  deleteCustomerRow,
  lockCustomer,
  selectAddressKeys,
  selectCustomersForMerge,
  selectDuplicates,
  updateActivityOwner,
  updateAddressesOwner,
  updateCustomerRow,
} from './queries.js';

/** The two customers of a merge as they are before it: `keep` stays, `from` goes. */
export interface MergePair {
  keep: Customer;
  from: Customer;
}

/**
 * Locks both customers for a merge and reads them: on PostgreSQL first the locks a submission takes for their
 * emails and phones (so a lead arriving for either waits, and afterwards finds the kept customer), then both rows
 * in id order. NotFoundError naming which one is unknown (or another brand's, or known only to spam); a conflict
 * when either was erased.
 */
export async function lockMergePair(
  tx: Tx,
  brandId: string,
  keepId: string,
  fromId: string,
): Promise<MergePair> {
  const ids = [keepId, fromId];
  const before = await selectCustomersForMerge(tx, brandId, ids);
  await lockContactKeys(
    tx,
    before.map((c) => ({ brandId, email: c.email_normalized, phone: c.phone })),
  );
  for (const id of [...before.map((c) => c.id)].sort()) await lockCustomer(tx, id);
  const rows = await selectCustomersForMerge(tx, brandId, ids);
  const known = (id: string) => rows.find((r) => r.id === id && Number(r.real ?? 0) > 0);
  const keep = known(keepId);
  if (!keep) throw new NotFoundError(`No customer with id ${keepId}`);
  const from = known(fromId);
  if (!from) throw new NotFoundError(`No customer with id ${fromId} to merge from ("from")`);
  for (const row of [keep, from]) {
    if (row.erased_at !== null && row.erased_at !== undefined) {
      throw new DomainError('conflict', `Customer ${row.id} was erased.`);
    }
  }
  return { keep: toCustomer(keep), from: toCustomer(from) };
}

/**
 * Gives the addresses of `fromId` to `keepId`. One that is the same place as an address the kept customer has
 * (the same match key) is not moved: the returned map names it with the kept address its leads must point at
 * (moveLeadsToCustomer), after which absorbCustomer deletes it.
 */
export async function moveAddresses(
  tx: Tx,
  fromId: string,
  keepId: string,
  now: number,
): Promise<Map<string, string>> {
  const kept = new Map((await selectAddressKeys(tx, keepId)).map((a) => [a.match_key, a.id]));
  const duplicates = new Map<string, string>();
  const moved: string[] = [];
  for (const address of await selectAddressKeys(tx, fromId)) {
    const same = kept.get(address.match_key);
    if (same) duplicates.set(address.id, same);
    else moved.push(address.id);
  }
  await updateAddressesOwner(tx, moved, keepId, now);
  return duplicates;
}

/**
 * Once the leads of `from` are the kept customer's: deletes the duplicate addresses and the customer merged away,
 * gives its activity to the kept one, fills the kept one's empty fields from it (never overwriting; a company name
 * makes it a business) without a customer.updated (the merge announces itself), and records the merge in the kept
 * customer's activity. Returns the fields that were filled.
 */
export async function absorbCustomer(
  tx: Tx,
  brandId: string,
  pair: MergePair,
  duplicates: ReadonlyMap<string, string>,
  actor: CustomerActor,
  now: number,
): Promise<string[]> {
  const { keep, from } = pair;
  await deleteAddresses(tx, [...duplicates.keys()]);
  await updateActivityOwner(tx, from.id, keep.id);
  // First, so the email it had (unique within the brand) is free for the kept customer.
  await deleteCustomerRow(tx, brandId, from.id);
  const fill: Partial<Contact> = {};
  for (const field of Object.keys(CONTACT_FIELDS) as ContactField[]) {
    if (keep[field] === null && from[field] !== null) fill[field] = from[field];
  }
  // Strictly later than before: updatedAfter filters must see the merge.
  const at = Math.max(now, Date.parse(keep.updatedAt) + 1);
  const changed = await updateCustomer(tx, brandId, keep, fill, at, { quiet: true });
  if (!changed.length) await updateCustomerRow(tx, brandId, keep.id, { updated_at: at });
  await recordCustomerActivity(tx, {
    brandId,
    customerId: keep.id,
    kind: 'merged',
    actor,
    detail: { from: from.id },
    at: now,
  });
  return changed;
}

/** A likely duplicate of a customer, as the customer page lists it. */
export interface Duplicate {
  id: string;
  name: string;
  companyName: string | null;
  email: string | null;
  phone: string | null;
  leadCount: number;
}

/** At most this many duplicates are listed. */
export const MAX_DUPLICATES = 10;

/**
 * The brand's other customers that are probably the same person or business: the same email (any case), the same
 * phone, or the same name (any case) and a postal code in common. Erased customers are left out; newest first.
 */
export async function listDuplicates(
  store: Store,
  brandId: string,
  customer: Pick<Customer, 'id' | 'name' | 'email' | 'phone'>,
): Promise<Duplicate[]> {
  const rows = await selectDuplicates(
    store,
    brandId,
    {
      id: customer.id,
      name: customer.name,
      emailNormalized: customer.email ? customer.email.toLowerCase() : null,
      phone: customer.phone,
    },
    MAX_DUPLICATES,
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    companyName: r.company_name,
    email: r.email,
    phone: r.phone,
    leadCount: Number(r.lead_count ?? 0),
  }));
}
