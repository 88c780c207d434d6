// The leads capability's SQL, all of it. Kysely queries, reads taking a Store and writes the caller's Tx, except
// the statements of the hot paths, hand-written for measured speed and kept verbatim (each cites its
// measurement): a lead's create (bench/README.md "Speed, round two, continued: PostgreSQL"; commits b837174,
// 9477ae2) and the list and single-lead reads (bench/README.md "Speed, round two: lists from ready JSON";
// commits e6facc2, f46cf69).
import { ADVISORY_LOCKS_SQL } from '../platform/db/advisory-locks.js';
import { statement } from '../platform/db/sql.js';
import type { Tx } from '../platform/db/store.js';
import type { SubscribedEndpoint } from '../webhooks/deliveries.js';
import { INPUT_COLUMNS } from './shape.js';

// Create

const BRAND = statement('select default_country from brands where id = ?');
/**
 * PostgreSQL: the brand's country, the submission's contact locks (see linkCustomer) and the brand's enabled
 * webhook endpoints (what its events are delivered to), in one round trip (b837174: a create in 5 statements
 * instead of 12).
 */
const BRAND_LOCKING = statement(
  'select b.default_country, ' +
    `(select count(*) from (${ADVISORY_LOCKS_SQL}) as locks) as locked, ` +
    "(select coalesce(json_agg(json_build_object('id', e.id, 'events', e.events)), '[]') " +
    'from webhook_endpoints e where e.brand_id = b.id and e.enabled = 1) as endpoints from brands b where b.id = ?',
);

/**
 * The first read of a create: the brand's default country; on PostgreSQL in the same statement the advisory
 * locks of `lockKeys` (the submission's contact, see contactLockKeys) and the brand's enabled webhook endpoints
 * (`endpoints`, absent on SQLite). After it the contact's locks are held wherever the database has them.
 */
export async function selectBrandTakingContactLocks(
  tx: Tx,
  brandId: string,
  lockKeys: readonly string[],
): Promise<{ default_country: string; endpoints?: SubscribedEndpoint[] } | undefined> {
  const pg = tx.dialect === 'postgres';
  const [brand] = await tx.all<{ default_country: string; endpoints?: SubscribedEndpoint[] }>(
    pg ? BRAND_LOCKING : BRAND,
    pg ? [lockKeys, brandId] : [brandId],
  );
  return brand;
}

/** The columns a create sets itself, then those copied from the input (shape.ts says which). */
export const OWN_COLUMNS = [
  'id',
  'brand_id',
  'customer_id',
  'address_id',
  'status',
  'stage',
  'source',
  'source_key_id',
  'source_key_name',
  'received_at',
  'created_at',
  'updated_at',
  'scheduled_at',
  'submitted',
  'source_form_id',
  'source_form_name',
  'spam',
  'extra_fields',
  'attribution',
  'consent',
  'source_user_id',
  'source_user_name',
  'list_json',
] as const;
// Hot (every create; b837174: deferred with the create's other inserts, one round trip on PostgreSQL).
const INSERT_LEAD = statement(
  `insert into leads (${[...OWN_COLUMNS, ...INPUT_COLUMNS.map((c) => c.column)].join(', ')}) values (${[
    ...OWN_COLUMNS,
    ...INPUT_COLUMNS,
  ]
    .map(() => '?')
    .join(', ')})`,
);

/** Inserts a new lead with the write's other inserts (Tx.defer): OWN_COLUMNS' values, then INPUT_COLUMNS'. */
export async function insertLead(tx: Tx, values: readonly unknown[]): Promise<void> {
  await tx.defer(INSERT_LEAD, values);
}

// Status history

// Hot (every create; b837174: deferred with the create's other inserts).
const INSERT_HISTORY = statement(
  'insert into lead_status_history (lead_id, seq, status, at, actor, actor_type, actor_id, actor_name, reason) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
);

/** Adds an entry to a lead's status history, with the write's other inserts (Tx.defer). */
export async function insertHistoryEntry(
  tx: Tx,
  entry: {
    leadId: string;
    seq: number;
    status: string;
    at: number;
    actor: { type: string; id: string; name: string } | null;
    reason: string | null;
  },
): Promise<void> {
  const { leadId, seq, status, at, actor, reason } = entry;
  await tx.defer(INSERT_HISTORY, [
    leadId,
    seq,
    status,
    at,
    actor?.id ?? null,
    actor?.type ?? null,
    actor?.id ?? null,
    actor?.name ?? null,
    reason,
  ]);
}
