// Merging two customers that are one person or business (POST /v1/customers/{id}/merge, "Merge" on the customer
// page): in one transaction every lead of `from` (with its notes, attachments, history and planning) and every
// address becomes the kept customer's, the kept customer's empty fields are filled from `from` (never
// overwritten), `from`'s history moves along, `from` is deleted (its id answers 404 from then on) and
// customer.merged is written with the kept customer as it is afterwards and `from` as it was. No customer.updated:
// the merge announces itself.
import type { CustomerActor } from '../customers/activity.js';
import { type CustomerDetail, getCustomer, readCustomer } from '../customers/customers.js';
import { absorbCustomer, lockMergePair, moveAddresses } from '../customers/merge.js';
import { moveLeadsToCustomer } from '../leads/index.js';
import type { Store } from '../platform/db/store.js';
import { ValidationError } from '../shared/errors.js';
import { recordEvent } from '../webhooks/events.js';

export interface MergeResult {
  customer: CustomerDetail;
  /** How many leads and work items (spam too) moved from `from`. */
  leadsMoved: number;
  /** The kept customer's fields that were filled from `from`. */
  filled: string[];
}

/**
 * Merges the brand's customer `fromId` into `keepId` as `actor`. A ValidationError (field `from`) when they are
 * the same; NotFoundError naming which one is unknown or another brand's; a conflict when either was erased.
 */
export async function mergeCustomers(
  store: Store,
  brandId: string,
  keepId: string,
  fromId: string,
  actor: CustomerActor,
): Promise<MergeResult> {
  if (keepId === fromId) {
    throw new ValidationError([
      {
        field: 'from',
        message: 'must be another customer than the one merged into',
        text: { key: 'customer.merge.same' },
      },
    ]);
  }
  return store.write(async (tx) => {
    const pair = await lockMergePair(tx, brandId, keepId, fromId);
    const now = Date.now();
    const duplicates = await moveAddresses(tx, fromId, keepId, now);
    const leadsMoved = await moveLeadsToCustomer(tx, brandId, fromId, keepId, duplicates, now);
    const filled = await absorbCustomer(tx, brandId, pair, duplicates, actor, now);
    const customer = await readCustomer(tx, brandId, keepId);
    await recordEvent(tx, brandId, 'customer.merged', { customer, from: pair.from }, now);
    return { customer: await getCustomer(tx, brandId, keepId), leadsMoved, filled };
  });
}
