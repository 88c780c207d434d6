// A merge of two customers (personal-data/merge.ts) gives the leads of one to the other: with them go their notes,
// attachments, history and planning, which hang on the lead. The lists' ready JSON and the search index follow by
// their triggers.
import type { Tx } from '../platform/db/store.js';
import { updateLeadAddress, updateLeadsCustomer } from './queries.js';

/**
 * Gives every lead of `fromCustomerId` (spam too) to `toCustomerId`. `addressMap` names addresses of the one
 * merged away that are the same place as one the kept customer has: their leads point at that one instead.
 * Returns how many leads moved.
 */
export async function moveLeadsToCustomer(
  tx: Tx,
  brandId: string,
  fromCustomerId: string,
  toCustomerId: string,
  addressMap: ReadonlyMap<string, string>,
  now: number,
): Promise<number> {
  for (const [from, to] of addressMap) await updateLeadAddress(tx, brandId, fromCustomerId, from, to);
  return updateLeadsCustomer(tx, brandId, fromCustomerId, toCustomerId, now);
}
