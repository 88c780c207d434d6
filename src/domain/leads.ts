// Leads and work items: one record that moves through the states in states.ts.
import type { Database } from '../db/database.js';
import type { AddressTable, CustomerTable, LeadTable } from '../db/schema.js';
import { type Runner, SqlBuilder, statement } from '../db/sql.js';
import { findOrCreateAddress } from './addresses.js';
import { customerEmailKey, findOrCreateCustomer } from './customers.js';
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
  inTransaction?: (r: Runner, lead: CreatedLead) => Promise<void>;
}

// The brand's default country and the customer a lead links to, in one statement (one round trip on PostgreSQL).
const BRAND_AND_CUSTOMER = statement(
  'select b.default_country, ' +
    '(select c.id from customers c where c.brand_id = b.id and c.email_normalized = ?) as by_email, ' +
    '(select c.id from customers c where c.brand_id = b.id and c.phone = ?) as by_phone ' +
    'from brands b where b.id = ?',
);
const INSERT_LEAD = statement(
  'insert into leads (id, brand_id, customer_id, address_id, title, description, category, priority, ' +
    'budget_quote, notes, status, stage, source, source_key_id, source_key_name, received_at, created_at, ' +
    "updated_at, scheduled_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'request', 'lead', ?, ?, ?, ?, ?, ?, null)",
);
const INSERT_HISTORY = statement(
  'insert into lead_status_history (lead_id, seq, status, at, actor) values (?, ?, ?, ?, ?)',
);

/**
 * Creates customer (or links), address (or links), lead and its lead.created event in one transaction, and
 * resolves once that has committed.
 */
export async function createLead(
  database: Database,
  origin: LeadSource,
  input: LeadInput,
  options: CreateLeadOptions = {},
): Promise<CreatedLead> {
  return database.write(async (r) => {
    const [brand] = await r.all<{
      default_country: string;
      by_email: string | null;
      by_phone: string | null;
    }>(BRAND_AND_CUSTOMER, [customerEmailKey(input), input.phone, origin.brandId]);
    if (!brand) throw new NotFoundError(`No brand with id ${origin.brandId}`);
    const now = Date.now();
    const country = input.country ?? brand.default_country;
    const customer = await findOrCreateCustomer(r, origin.brandId, input, now, {
      byEmail: brand.by_email,
      byPhone: brand.by_phone,
    });
    const address = await findOrCreateAddress(r, origin.brandId, customer.id, { ...input, country }, now);
    const id = newId('lead', now);
    await r.run(INSERT_LEAD, [
      id,
      origin.brandId,
      customer.id,
      address.id,
      input.title,
      input.description,
      input.category,
      input.priority,
      input.budgetQuote,
      input.notes,
      origin.source,
      origin.keyId,
      origin.keyName,
      now,
      now,
      now,
    ]);
    await r.run(INSERT_HISTORY, [id, 1, 'request', now, origin.keyId]);
    await recordEvent(
      r,
      origin.brandId,
      'lead.created',
      { lead: await readLead(r, origin.brandId, id) },
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
    await options.inTransaction?.(r, created);
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

/** A row of the list query. */
type ListRow = Pick<
  LeadTable,
  'id' | 'title' | 'status' | 'priority' | 'received_at' | 'updated_at' | 'scheduled_at'
> &
  Pick<AddressTable, 'street' | 'street_number' | 'postal_code' | 'city'> & {
    customer_id: string;
    customer_name: string;
    customer_email: string | null;
    customer_phone: string | null;
    address_id: string;
  };

const LIST_SELECT =
  'select l.id, l.title, l.status, l.priority, l.received_at, l.updated_at, l.scheduled_at, ' +
  'c.id as customer_id, c.name as customer_name, c.email as customer_email, c.phone as customer_phone, ' +
  'a.id as address_id, a.street, a.street_number, a.postal_code, a.city ' +
  'from leads l join customers c on c.id = l.customer_id join addresses a on a.id = l.address_id ' +
  'where l.brand_id = ';

/** Lists the brand's leads (stage 'lead') or work items (stage 'work'), keyset-paged by (receivedAt, id). */
export async function listLeads(
  database: Database,
  brandId: string,
  stage: Stage,
  query: LeadListQuery,
): Promise<Page<LeadListItem>> {
  const statuses = parseStatusFilter(query.status, stage);
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const q = new SqlBuilder().sql(LIST_SELECT).value(brandId).sql(' and l.stage = ').value(stage);
  if (statuses) q.sql(' and l.status in ').list(statuses);
  if (query.priority) q.sql(' and l.priority = ').value(query.priority);
  if (query.receivedAfter !== undefined) q.sql(' and l.received_at > ').value(query.receivedAfter);
  if (query.receivedBefore !== undefined) q.sql(' and l.received_at < ').value(query.receivedBefore);
  if (query.updatedAfter !== undefined) q.sql(' and l.updated_at > ').value(query.updatedAfter);
  if (after) {
    q.sql(` and (l.received_at, l.id) ${query.order === 'asc' ? '>' : '<'} (`)
      .value(after.time)
      .sql(', ')
      .value(after.id)
      .sql(')');
  }
  if (query.search) {
    const term = `%${escapeLike(query.search.trim().toLowerCase())}%`;
    const phoneDigits = query.search.replace(/[^0-9]/g, '');
    const postal = `%${escapeLike(query.search.replace(/\s+/g, '').toUpperCase())}%`;
    q.sql(' and (lower(l.title) like ')
      .value(term)
      .sql(" escape '\\'")
      .sql(' or lower(c.name) like ')
      .value(term)
      .sql(" escape '\\'")
      .sql(' or c.email_normalized like ')
      .value(term)
      .sql(" escape '\\'")
      .sql(' or lower(a.city) like ')
      .value(term)
      .sql(" escape '\\'")
      .sql(" or upper(replace(a.postal_code, ' ', '')) like ")
      .value(postal)
      .sql(" escape '\\'");
    if (phoneDigits.length >= 3) q.sql(' or c.phone like ').value(`%${phoneDigits}%`);
    q.sql(')');
  }
  const direction = query.order === 'asc' ? 'asc' : 'desc';
  q.sql(` order by l.received_at ${direction}, l.id ${direction} limit `).value(query.limit + 1);
  const rows = await database.reader.all<ListRow>(q.build(), q.params);
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

/** A row of DETAIL: the lead's columns, its customer's and address's (some renamed), one history entry. */
type DetailRow = Omit<LeadTable, 'stage' | 'source_key_id'> &
  Pick<CustomerTable, 'first_name' | 'last_name' | 'email' | 'phone' | 'company_name'> &
  Pick<
    AddressTable,
    'street' | 'street_number' | 'street_number_addition' | 'postal_code' | 'city' | 'country'
  > & {
    customer_type: string;
    customer_name: string;
    history_status: string | null;
    history_at: number | null;
  };

const DETAIL_SELECT =
  'select l.id, l.brand_id, l.customer_id, l.address_id, l.title, l.description, l.category, l.priority, ' +
  'l.budget_quote, l.notes, l.status, l.source, l.source_key_name, l.received_at, l.created_at, l.updated_at, ' +
  'l.scheduled_at, c.type as customer_type, c.name as customer_name, c.first_name, c.last_name, c.email, ' +
  'c.phone, c.company_name, a.street, a.street_number, a.street_number_addition, a.postal_code, a.city, ' +
  'a.country, h.status as history_status, h.at as history_at ' +
  'from leads l join customers c on c.id = l.customer_id join addresses a on a.id = l.address_id ' +
  'left join lead_status_history h on h.lead_id = l.id where l.id = ? and l.brand_id = ?';
const DETAIL = statement(`${DETAIL_SELECT} order by h.seq`);
const DETAIL_WORK_ITEM = statement(`${DETAIL_SELECT} and l.scheduled_at is not null order by h.seq`);

/**
 * One lead in any state, or (workItemsOnly) one that has been scheduled. NotFoundError for another brand's id.
 * Lead and history come from one statement, so the status always matches the last history entry even while the
 * lead is being changed.
 */
export async function getLead(
  database: Database,
  brandId: string,
  id: string,
  options: { workItemsOnly?: boolean } = {},
): Promise<LeadDetail> {
  return readLead(database.reader, brandId, id, options);
}

/** getLead on a runner: inside a write's transaction, events carry this read as of the change they describe. */
async function readLead(
  r: Runner,
  brandId: string,
  id: string,
  options: { workItemsOnly?: boolean } = {},
): Promise<LeadDetail> {
  const rows = await r.all<DetailRow>(options.workItemsOnly ? DETAIL_WORK_ITEM : DETAIL, [id, brandId]);
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

const LEAD_STATUS = statement('select status from leads where id = ? and brand_id = ?');
const SET_STATUS = statement(
  'update leads set status = ?, stage = ?, updated_at = ? where id = ? and brand_id = ? and status = ?',
);
const SET_STATUS_SCHEDULED = statement(
  'update leads set status = ?, stage = ?, updated_at = ?, scheduled_at = ? where id = ? and brand_id = ? and status = ?',
);
const LAST_SEQ = statement('select max(seq) as seq from lead_status_history where lead_id = ?');

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
  database: Database,
  brandId: string,
  id: string,
  to: Status,
  actor: string | null,
): Promise<{ from: Status; to: Status; at: number; lead: LeadDetail }> {
  return database.write(async (r) => {
    const [current] = await r.all<{ status: string }>(LEAD_STATUS, [id, brandId]);
    if (!current) throw new NotFoundError(`No lead with id ${id}`);
    const from = current.status as Status;
    if (!canTransition(from, to)) throw new InvalidTransitionError(from, to, allowedTransitions(from));
    const now = Date.now();
    const changed = await r.run(to === 'scheduled' ? SET_STATUS_SCHEDULED : SET_STATUS, [
      to,
      stageOf(to),
      now,
      ...(to === 'scheduled' ? [now] : []),
      id,
      brandId,
      from,
    ]);
    if (changed !== 1) {
      const [latest] = await r.all<{ status: string }>(LEAD_STATUS, [id, brandId]);
      const latestStatus = (latest?.status ?? from) as Status;
      throw new InvalidTransitionError(latestStatus, to, allowedTransitions(latestStatus));
    }
    const [last] = await r.all<{ seq: number | null }>(LAST_SEQ, [id]);
    await r.run(INSERT_HISTORY, [id, Number(last?.seq ?? 0) + 1, to, now, actor]);
    // Read before commit: the row lock held since the update means this is exactly the state this change made.
    const lead = await readLead(r, brandId, id);
    await recordEvent(r, brandId, 'lead.status_changed', { lead, from, to }, now);
    return { from, to, at: now, lead };
  });
}
