// What was done to a customer: edits (with the values before and after), merges, exports and erasures. The
// customer page lists it; exports, erasures and merges are also logged (ids only). An erase rewrites edits'
// details to the field names alone, so the history keeps no personal data of an erased customer.
import type { Store, Tx } from '../platform/db/store.js';
import { newId } from '../shared/ids.js';
import { iso } from '../shared/time.js';
import { type CustomerActivityRow, insertCustomerActivity, selectCustomerActivity } from './queries.js';

export type CustomerActivityKind = CustomerActivityRow['kind'];

/** Who did it: an API key, a dashboard user, the command line, or the retention run (no id). */
export interface CustomerActor {
  type: CustomerActivityRow['actor_type'];
  id: string | null;
  name: string | null;
}

export interface CustomerActivity {
  id: string;
  at: string;
  kind: CustomerActivityKind;
  actor: CustomerActor;
  detail: Record<string, unknown>;
}

export async function recordCustomerActivity(
  tx: Tx,
  entry: {
    brandId: string;
    customerId: string;
    kind: CustomerActivityKind;
    actor: CustomerActor;
    detail?: Record<string, unknown>;
    at?: number;
  },
): Promise<void> {
  const at = entry.at ?? Date.now();
  await insertCustomerActivity(tx, {
    id: newId('activity', at),
    brand_id: entry.brandId,
    customer_id: entry.customerId,
    at,
    kind: entry.kind,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id,
    actor_name: entry.actor.name,
    detail: JSON.stringify(entry.detail ?? {}),
  });
}

/** A customer's activity, oldest first. */
export async function listCustomerActivity(
  store: Store,
  brandId: string,
  customerId: string,
): Promise<CustomerActivity[]> {
  const rows = await selectCustomerActivity(store, brandId, customerId);
  return rows.map((r) => ({
    id: r.id,
    at: iso(r.at),
    kind: r.kind,
    actor: { type: r.actor_type, id: r.actor_id, name: r.actor_name },
    detail: JSON.parse(r.detail) as Record<string, unknown>,
  }));
}
