// Leads and work items: one record that moves through the states in states.ts.
import type { DB } from '../db/database.js';
import { findOrCreateAddress } from './addresses.js';
import { findOrCreateCustomer } from './customers.js';
import { InvalidTransitionError, NotFoundError, ValidationError } from './errors.js';
import { recordEvent } from './events.js';
import { newId } from './ids.js';
import type { LeadInput } from './lead-input.js';
import { decodeCursor, type Page, type SortOrder, toPage } from './paging.js';
import {
  ALL_STATUSES,
  allowedTransitions,
  canTransition,
  isStatus,
  LEAD_STATUSES,
  type Stage,
  type Status,
  stageOf,
  WORK_ITEM_STATUSES,
} from './states.js';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** The response of POST /v1/leads (spec 2.2). */
export interface CreatedLead {
  id: string;
  brandId: string;
  customerId: string;
  addressId: string;
  title: string;
  description: string | null;
  status: Status;
  priority: string;
  source: string;
  receivedAt: string;
  createdAt: string;
}

export interface LeadListItem {
  id: string;
  title: string;
  status: Status;
  priority: string;
  receivedAt: string;
  updatedAt: string;
  scheduledAt?: string | null;
  customer: { id: string; name: string; email: string | null; phone: string | null };
  address: { id: string; street: string; streetNumber: string | null; postalCode: string; city: string };
}

export interface LeadDetail extends CreatedLead {
  category: string | null;
  budgetQuote: string | null;
  notes: string | null;
  sourceKeyName: string | null;
  updatedAt: string;
  scheduledAt: string | null;
  customer: {
    id: string;
    type: 'person' | 'business';
    name: string;
    firstName: string | null;
    lastName: string | null;
    email: string | null;
    phone: string | null;
    companyName: string | null;
  };
  address: {
    id: string;
    street: string;
    streetNumber: string | null;
    streetNumberAddition: string | null;
    postalCode: string;
    city: string;
    country: string;
  };
  statusHistory: { status: Status; at: string }[];
}

export interface LeadSource {
  brandId: string;
  source: string;
  keyId: string | null;
  keyName: string | null;
}

export interface CreateLeadOptions {
  /** Runs inside the lead's transaction once the lead is written (e.g. to store an idempotent response with it). */
  inTransaction?: (trx: DB, lead: CreatedLead) => Promise<void>;
}

/** Creates customer (or links), address (or links), lead and its lead.created event in one transaction. */
export async function createLead(
  db: DB,
  origin: LeadSource,
  input: LeadInput,
  options: CreateLeadOptions = {},
): Promise<CreatedLead> {
  return db.transaction().execute(async (trx) => {
    const brand = await trx
      .selectFrom('brands')
      .select('default_country')
      .where('id', '=', origin.brandId)
      .executeTakeFirst();
    if (!brand) throw new NotFoundError(`No brand with id ${origin.brandId}`);
    const now = Date.now();
    const country = input.country ?? brand.default_country;
    const customer = await findOrCreateCustomer(trx, origin.brandId, input, now);
    const address = await findOrCreateAddress(trx, origin.brandId, customer.id, { ...input, country }, now);
    const id = newId('lead', now);
    await trx
      .insertInto('leads')
      .values({
        id,
        brand_id: origin.brandId,
        customer_id: customer.id,
        address_id: address.id,
        title: input.title,
        description: input.description,
        category: input.category,
        priority: input.priority,
        budget_quote: input.budgetQuote,
        notes: input.notes,
        status: 'request',
        stage: 'lead',
        source: origin.source,
        source_key_id: origin.keyId,
        source_key_name: origin.keyName,
        received_at: now,
        created_at: now,
        updated_at: now,
        scheduled_at: null,
      })
      .execute();
    await trx
      .insertInto('lead_status_history')
      .values({ lead_id: id, seq: 1, status: 'request', at: now, actor: origin.keyId })
      .execute();
    await recordEvent(
      trx,
      origin.brandId,
      'lead.created',
      { lead: await getLead(trx, origin.brandId, id) },
      now,
    );
    const created: CreatedLead = {
      id,
      brandId: origin.brandId,
      customerId: customer.id,
      addressId: address.id,
      title: input.title,
      description: input.description,
      status: 'request',
      priority: input.priority,
      source: origin.source,
      receivedAt: iso(now),
      createdAt: iso(now),
    };
    await options.inTransaction?.(trx, created);
    return created;
  });
}

export interface LeadListQuery {
  limit: number;
  order: SortOrder;
  cursor?: string;
  receivedAfter?: number;
  receivedBefore?: number;
  updatedAfter?: number;
  /** Comma-separated states, each one the list serves. */
  status?: string;
  /** Free-text search (dashboard): title, customer name, email, phone, postal code, city. */
  search?: string;
  priority?: string;
}

export function parseStatusFilter(value: string | undefined, stage: Stage): Status[] | undefined {
  if (value === undefined) return undefined;
  const allowed: readonly string[] = stage === 'lead' ? LEAD_STATUSES : WORK_ITEM_STATUSES;
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((s) => !allowed.includes(s));
  if (!list.length || bad.length) {
    throw new ValidationError([
      {
        field: 'status',
        message: `must be one or more of ${allowed.join(', ')} (comma-separated)${bad.length ? `; got ${bad.join(', ')}` : ''}`,
      },
    ]);
  }
  return [...new Set(list)] as Status[];
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Lists the brand's leads (stage 'lead') or work items (stage 'work'), keyset-paged by (receivedAt, id). */
export async function listLeads(
  db: DB,
  brandId: string,
  stage: Stage,
  query: LeadListQuery,
): Promise<Page<LeadListItem>> {
  const statuses = parseStatusFilter(query.status, stage);
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const op = query.order === 'asc' ? '>' : '<';
  let q = db
    .selectFrom('leads as l')
    .innerJoin('customers as c', 'c.id', 'l.customer_id')
    .innerJoin('addresses as a', 'a.id', 'l.address_id')
    .select([
      'l.id',
      'l.title',
      'l.status',
      'l.priority',
      'l.received_at',
      'l.updated_at',
      'l.scheduled_at',
      'c.id as customer_id',
      'c.name as customer_name',
      'c.email as customer_email',
      'c.phone as customer_phone',
      'a.id as address_id',
      'a.street',
      'a.street_number',
      'a.postal_code',
      'a.city',
    ])
    .where('l.brand_id', '=', brandId)
    .where('l.stage', '=', stage)
    .orderBy('l.received_at', query.order)
    .orderBy('l.id', query.order)
    .limit(query.limit + 1);
  if (statuses) q = q.where('l.status', 'in', statuses);
  if (query.priority) q = q.where('l.priority', '=', query.priority);
  if (query.receivedAfter !== undefined) q = q.where('l.received_at', '>', query.receivedAfter);
  if (query.receivedBefore !== undefined) q = q.where('l.received_at', '<', query.receivedBefore);
  if (query.updatedAfter !== undefined) q = q.where('l.updated_at', '>', query.updatedAfter);
  if (after)
    q = q.where((eb) => eb(eb.refTuple('l.received_at', 'l.id'), op, eb.tuple(after.time, after.id)));
  if (query.search) {
    const term = `%${escapeLike(query.search.trim().toLowerCase())}%`;
    const phoneDigits = query.search.replace(/[^0-9]/g, '');
    const postal = query.search.replace(/\s+/g, '').toUpperCase();
    q = q.where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['l.title']), 'like', term),
        eb(eb.fn('lower', ['c.name']), 'like', term),
        eb('c.email_normalized', 'like', term),
        eb(eb.fn('lower', ['a.city']), 'like', term),
        eb(
          eb.fn('upper', [eb.fn('replace', ['a.postal_code', eb.val(' '), eb.val('')])]),
          'like',
          `%${escapeLike(postal)}%`,
        ),
        ...(phoneDigits.length >= 3 ? [eb('c.phone', 'like', `%${phoneDigits}%`)] : []),
      ]),
    );
  }
  const rows = await q.execute();
  return toPage(
    rows,
    query.limit,
    query.order,
    (r) => ({ time: r.received_at, id: r.id }),
    (r) => {
      const item: LeadListItem = {
        id: r.id,
        title: r.title,
        status: r.status as Status,
        priority: r.priority,
        receivedAt: iso(r.received_at),
        updatedAt: iso(r.updated_at),
        customer: {
          id: r.customer_id,
          name: r.customer_name,
          email: r.customer_email,
          phone: r.customer_phone,
        },
        address: {
          id: r.address_id,
          street: r.street,
          streetNumber: r.street_number,
          postalCode: r.postal_code,
          city: r.city,
        },
      };
      if (stage === 'work') item.scheduledAt = isoOrNull(r.scheduled_at);
      return item;
    },
  );
}

/**
 * One lead in any state, or (workItemsOnly) one that has been scheduled. NotFoundError for another brand's id.
 * Lead and history come from one statement, so the status always matches the last history entry even while the
 * lead is being changed.
 * `db` may be a transaction: events carry this read as of the change they describe.
 */
export async function getLead(
  db: DB,
  brandId: string,
  id: string,
  options: { workItemsOnly?: boolean } = {},
): Promise<LeadDetail> {
  let q = db
    .selectFrom('leads as l')
    .innerJoin('customers as c', 'c.id', 'l.customer_id')
    .innerJoin('addresses as a', 'a.id', 'l.address_id')
    .leftJoin('lead_status_history as h', 'h.lead_id', 'l.id')
    .select([
      'l.id',
      'l.brand_id',
      'l.customer_id',
      'l.address_id',
      'l.title',
      'l.description',
      'l.category',
      'l.priority',
      'l.budget_quote',
      'l.notes',
      'l.status',
      'l.source',
      'l.source_key_name',
      'l.received_at',
      'l.created_at',
      'l.updated_at',
      'l.scheduled_at',
      'c.type as customer_type',
      'c.name as customer_name',
      'c.first_name',
      'c.last_name',
      'c.email',
      'c.phone',
      'c.company_name',
      'a.street',
      'a.street_number',
      'a.street_number_addition',
      'a.postal_code',
      'a.city',
      'a.country',
      'h.status as history_status',
      'h.at as history_at',
    ])
    .where('l.id', '=', id)
    .where('l.brand_id', '=', brandId)
    .orderBy('h.seq');
  if (options.workItemsOnly) q = q.where('l.scheduled_at', 'is not', null);
  const rows = await q.execute();
  const row = rows[0];
  if (!row) throw new NotFoundError(`No ${options.workItemsOnly ? 'work item' : 'lead'} with id ${id}`);
  return {
    id: row.id,
    brandId: row.brand_id,
    customerId: row.customer_id,
    addressId: row.address_id,
    title: row.title,
    description: row.description,
    category: row.category,
    priority: row.priority,
    budgetQuote: row.budget_quote,
    notes: row.notes,
    status: row.status as Status,
    source: row.source,
    sourceKeyName: row.source_key_name,
    receivedAt: iso(row.received_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    scheduledAt: isoOrNull(row.scheduled_at),
    customer: {
      id: row.customer_id,
      type: row.customer_type === 'business' ? 'business' : 'person',
      name: row.customer_name,
      firstName: row.first_name,
      lastName: row.last_name,
      email: row.email,
      phone: row.phone,
      companyName: row.company_name,
    },
    address: {
      id: row.address_id,
      street: row.street,
      streetNumber: row.street_number,
      streetNumberAddition: row.street_number_addition,
      postalCode: row.postal_code,
      city: row.city,
      country: row.country,
    },
    statusHistory: rows.flatMap((h) =>
      h.history_status === null || h.history_at === null
        ? []
        : [{ status: h.history_status as Status, at: iso(h.history_at) }],
    ),
  };
}

export function parseStatusChange(body: unknown): Status {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([{ field: '(body)', message: 'must be a JSON object with a "status" field' }]);
  }
  const errors = Object.keys(body)
    .filter((k) => k !== 'status')
    .map((k) => ({ field: k, message: 'is not a known field' }));
  const status = (body as Record<string, unknown>).status;
  if (status === undefined || status === null) errors.push({ field: 'status', message: 'is required' });
  else if (!isStatus(status)) {
    errors.push({ field: 'status', message: `must be one of ${ALL_STATUSES.join(', ')}` });
  }
  if (errors.length) throw new ValidationError(errors);
  return status as Status;
}

/**
 * Moves a lead to another state. The update is conditional on the state it was read in, so of two concurrent
 * changes from the same state exactly one wins; the other gets InvalidTransitionError naming the new state.
 * Returns the single-lead read as this change left it.
 * Its lead.status_changed event is written in the same transaction.
 */
export async function changeLeadStatus(
  db: DB,
  brandId: string,
  id: string,
  to: Status,
  actor: string | null,
): Promise<{ from: Status; to: Status; at: number; lead: LeadDetail }> {
  return db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('leads')
      .select('status')
      .where('id', '=', id)
      .where('brand_id', '=', brandId)
      .executeTakeFirst();
    if (!current) throw new NotFoundError(`No lead with id ${id}`);
    const from = current.status as Status;
    if (!canTransition(from, to)) throw new InvalidTransitionError(from, to, allowedTransitions(from));
    const now = Date.now();
    const result = await trx
      .updateTable('leads')
      .set({
        status: to,
        stage: stageOf(to),
        updated_at: now,
        ...(to === 'scheduled' ? { scheduled_at: now } : {}),
      })
      .where('id', '=', id)
      .where('brand_id', '=', brandId)
      .where('status', '=', from)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) {
      const latest = await trx.selectFrom('leads').select('status').where('id', '=', id).executeTakeFirst();
      const latestStatus = (latest?.status ?? from) as Status;
      throw new InvalidTransitionError(latestStatus, to, allowedTransitions(latestStatus));
    }
    const last = await trx
      .selectFrom('lead_status_history')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('lead_id', '=', id)
      .executeTakeFirst();
    await trx
      .insertInto('lead_status_history')
      .values({ lead_id: id, seq: Number(last?.seq ?? 0) + 1, status: to, at: now, actor })
      .execute();
    // Read before commit: the row lock held since the update means this is exactly the state this change made.
    const lead = await getLead(trx, brandId, id);
    await recordEvent(trx, brandId, 'lead.status_changed', { lead, from, to }, now);
    return { from, to, at: now, lead };
  });
}
