// Retention (Settings > Brand, off by default): leads that stayed in request, quoted or cancelled with no change
// for the brand's number of months are erased by the worker, and so are customers left with nothing else, by
// the same code as an erasure on request (erase.ts). Each run takes the oldest first, a batch per transaction.

import { findBrand, retentionBrands } from '../accounts/brands.js';
import type { CustomerActor } from '../customers/activity.js';
import { lockCustomerToErase, mergedCustomerIds } from '../customers/erase.js';
import { countUntouched, customersKeepingLeads, untouchedLeads } from '../leads/erase.js';
import type { Store } from '../platform/db/store.js';
import { type ErasureDeps, eraseRecords, finishErasure, recordErasure } from './erase.js';

/** Leads erased per transaction: a batch holds the write lock for a moment only. */
export const RETENTION_BATCH = 50;

const RETENTION_ACTOR: CustomerActor = { type: 'retention', id: null, name: null };

/** The moment `months` calendar months before `now` (UTC): leads unchanged since before it are due. */
export function retentionCutoff(months: number, now: number): number {
  const date = new Date(now);
  date.setUTCMonth(date.getUTCMonth() - months);
  return date.getTime();
}

export interface RetentionRun {
  leads: number;
  customers: number;
}

/** Erases one batch of the brand's due leads; the number of leads and customers erased (0 leads: none due). */
async function eraseBatch(
  deps: ErasureDeps,
  brandId: string,
  months: number,
  now: number,
): Promise<RetentionRun> {
  const cutoff = retentionCutoff(months, now);
  const outcome = await deps.database.write(
    async (tx) => {
      const due = await untouchedLeads(tx, brandId, cutoff, RETENTION_BATCH);
      if (!due.length) return null;
      const leadIds = due.map((l) => l.id);
      const owners = [...new Set(due.map((l) => l.customer_id))];
      const keeping = await customersKeepingLeads(tx, brandId, owners, leadIds);
      const customerIds: string[] = [];
      const contacts: string[] = [];
      for (const id of owners.filter((o) => !keeping.has(o))) {
        const target = await lockCustomerToErase(tx, brandId, id);
        if (!target || target.erasedAt !== null) continue;
        customerIds.push(id);
        contacts.push(...target.contacts);
      }
      const alsoMentioned = await mergedCustomerIds(tx, brandId, customerIds);
      const covered = await eraseRecords(tx, brandId, { customerIds, leadIds, alsoMentioned, contacts }, now);
      for (const customerId of customerIds) {
        await recordErasure(tx, brandId, customerId, RETENTION_ACTOR, { retentionMonths: months }, now);
      }
      return { covered, customers: customerIds.length };
    },
    // Large: eraseRecords rewrites the whole search index (compactSearchIndex).
    { large: true },
  );
  if (!outcome) return { leads: 0, customers: 0 };
  await finishErasure(deps, outcome.covered, { brandId, retention: true });
  return { leads: outcome.covered.leads, customers: outcome.customers };
}

/** One retention run over every brand that has it on. Returns what it erased, in all. */
export async function runRetention(deps: ErasureDeps, now: number = Date.now()): Promise<RetentionRun> {
  const total: RetentionRun = { leads: 0, customers: 0 };
  for (const brand of await retentionBrands(deps.database)) {
    for (;;) {
      const done = await eraseBatch(deps, brand.id, brand.retentionMonths, now);
      total.leads += done.leads;
      total.customers += done.customers;
      if (done.leads) {
        deps.log?.info(
          {
            brandId: brand.id,
            leads: done.leads,
            customers: done.customers,
            retentionMonths: brand.retentionMonths,
          },
          'retention erased untouched leads',
        );
      }
      if (done.leads < RETENTION_BATCH) break;
    }
  }
  return total;
}

/** What the next run would do for the brand (Settings): off, or how many leads unchanged since when. */
export async function retentionPreview(
  store: Store,
  brandId: string,
  now: number = Date.now(),
): Promise<{ months: null } | { months: number; cutoff: number; leads: number }> {
  const months = (await findBrand(store, brandId))?.retentionMonths ?? null;
  if (months === null) return { months: null };
  const cutoff = retentionCutoff(months, now);
  return { months, cutoff, leads: await countUntouched(store, brandId, cutoff) };
}
