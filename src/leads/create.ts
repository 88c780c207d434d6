// Creating a lead: customer and address found or created, the lead, its first history entry and its event, in
// one transaction.

import { type Attachment, recordAttachments } from '../attachments/attachments.js';
import type { ReceivedFile } from '../attachments/upload.js';
import { findOrCreateAddress } from '../customers/addresses.js';
import {
  type CustomerProbe,
  customerProbe,
  linkCustomer,
  type PhoneLock,
  PhoneLockShared,
  submissionLockKeys,
} from '../customers/customers.js';
import { type Store, type Tx, writeProcedure } from '../platform/db/store.js';
import { NotFoundError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { isPriority } from '../shared/priorities.js';
import { iso } from '../shared/time.js';
import { knowEndpoints } from '../webhooks/deliveries.js';
import { recordEvent } from '../webhooks/events.js';
import type { Actor } from './customer-details.js';
import { type LeadInput, submittedOf } from './input.js';
import { queueNewLeadEmails } from './new-lead-mail.js';
import {
  insertLead,
  OWN_COLUMNS,
  selectBrandTakingContactLocks,
  takesContactLocksOfItsOwn,
  updateAttachmentCount,
} from './queries.js';
import {
  CREATE_ROW_ALIASES,
  type CreatedLead,
  DETAIL_PROJECTION,
  INPUT_COLUMNS,
  type LeadDetail,
  LIST_PROJECTION,
} from './shape.js';
import { insertHistory } from './status-change.js';

/** Where a lead came from. */
export interface LeadSource {
  brandId: string;
  source: string;
  keyId: string | null;
  keyName: string | null;
  /**
   * Who made the lead, for its first history entry. When left out: the key (keyId, keyName), else the form. A
   * lead typed in the dashboard passes the user (userActor).
   */
  actor?: Actor;
  /** A website form's lead: the form, and what it sent beyond the lead fields. */
  form?: {
    id: string;
    name: string;
    /** A filled honeypot: stored, in no list, and no event (lead or customer) is written. */
    spam: boolean;
    extraFields: Record<string, string> | null;
    attribution: Record<string, string> | null;
    consent: { text: string; at: string } | null;
  };
  /** A lead typed in the dashboard (source "phone" or "dashboard"): the signed-in user who typed it. */
  user?: { id: string; name: string };
  /**
   * Files that came with it (their bytes already stored): recorded as its attachments in the same transaction,
   * with its count, its list item and lead.created carrying them. The caller removes the bytes if this fails.
   */
  files?: { received: readonly ReceivedFile[]; source: 'form' | 'api' | 'dashboard'; maxPerLead: number };
}

/** Who made a lead: the actor given, else the key it came with, else its form; null when none is known. */
function actorOf(origin: LeadSource): Actor | null {
  if (origin.actor) return origin.actor;
  if (origin.user) return { type: 'user', id: origin.user.id, name: origin.user.name };
  if (origin.keyId) return { type: 'key', id: origin.keyId, name: origin.keyName ?? origin.keyId };
  if (origin.form) return { type: 'form', id: origin.form.id, name: origin.form.name };
  return null;
}

/**
 * Creates customer (or links), address (or links), lead and its lead.created event in one transaction, and
 * resolves once that has committed (or, given a Tx, as part of that transaction).
 *
 * On PostgreSQL, outside a given write, a submission with a phone first holds the phone's lock shared when that
 * is likely to be enough (customers.ts, PhoneLock): always with an email, and without one when the last create
 * with this phone could have (sharedPhones). When it is not enough the write stops before writing anything and
 * is made again holding the lock alone.
 */
export async function createLead(store: Store, origin: LeadSource, given: LeadInput): Promise<CreatedLead> {
  const run = (locking: CreateLocking) => {
    const work = (tx: Tx) => createLeadIn(tx, origin, given, locking);
    // Files came with it: their records carry what only this thread has (streams, storage). Otherwise the create
    // may run whole on SQLite's write thread (src/write-worker.ts).
    if (origin.files?.received.length) return store.write(work);
    return writeProcedure(store, 'createLead', { origin, input: given }, work);
  };
  if (!given.phone || !takesContactLocksOfItsOwn(store)) return run({});
  const hint = sharedPhoneHint(origin.brandId, given.phone);
  const locking: CreateLocking = { phone: given.email || sharedPhones.has(hint) ? 'shared' : 'alone' };
  try {
    const lead = await run(locking);
    if (!given.email) rememberSharedPhone(hint, locking.shareable === true);
    return lead;
  } catch (error) {
    if (!(error instanceof PhoneLockShared)) throw error;
    sharedPhones.delete(hint);
    return run({ phone: 'alone' });
  }
}

/** How a create holds its phone's lock (PhoneLock), and what it learnt: that sharing it would have done. */
export interface CreateLocking {
  phone?: PhoneLock;
  /** Set by the create: it linked by phone to a customer as it is (LinkedCustomer.shareable). */
  shareable?: boolean;
}

/**
 * Phones whose last create without an email (in this process) linked to their customer as it is, so the next
 * may hold the phone's lock shared: a crowd's phone, not a new customer's. A wrong guess costs one more
 * attempt, never a wrong link. Only 32-bit hashes of brand and phone are kept, never the phone, so an erased
 * customer's number is in no memory; at most MAX_SHARED_PHONES of them, forgotten all at once when full.
 */
const sharedPhones = new Set<number>();
const MAX_SHARED_PHONES = 4096;

function sharedPhoneHint(brandId: string, phone: string): number {
  // FNV-1a, 32 bits.
  let hash = 0x811c9dc5;
  const text = `${brandId}|${phone}`;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function rememberSharedPhone(hint: number, shareable: boolean): void {
  if (!shareable) {
    sharedPhones.delete(hint);
    return;
  }
  if (sharedPhones.size >= MAX_SHARED_PHONES) sharedPhones.clear();
  sharedPhones.add(hint);
}

/** createLead's write, in the transaction `tx` (`locking`: how it holds the phone's lock, see createLead). */
export async function createLeadIn(
  tx: Tx,
  origin: LeadSource,
  given: LeadInput,
  locking: CreateLocking = {},
): Promise<CreatedLead> {
  const now = Date.now();
  const phoneLock = locking.phone ?? 'alone';
  // On PostgreSQL the customer's first find-or-insert goes with the brand's read, in one round trip.
  let probe: CustomerProbe | undefined;
  const { brand, customerRows } = await selectBrandTakingContactLocks(
    tx,
    origin.brandId,
    () => submissionLockKeys(origin.brandId, given, phoneLock),
    () => {
      probe = customerProbe(origin.brandId, given, now, phoneLock, given);
      return probe.sent;
    },
  );
  if (!brand) throw new NotFoundError(`No brand with id ${origin.brandId}`);
  // No priority given: the brand's default (Settings > Brand), medium when it has none.
  const priority = given.priority ?? (isPriority(brand.default_priority) ? brand.default_priority : 'medium');
  const input = { ...given, priority };
  if (brand.endpoints) knowEndpoints(tx, origin.brandId, brand.endpoints);
  const country = input.country ?? brand.default_country;
  const form = origin.form;
  const spam = form?.spam === true;
  // A website form's post is anonymous: it never adds an email or phone to an existing customer
  // (customers/customers.ts); what it sent stays on the lead (`submitted`).
  const anonymous = form !== undefined && origin.keyId === null && origin.user === undefined;
  const customer = await linkCustomer(tx, origin.brandId, input, now, {
    quiet: spam,
    locked: true,
    anonymous,
    leadAt: now,
    phoneShared: phoneLock === 'shared',
    ...(probe && customerRows ? { probed: { probe, rows: customerRows } } : {}),
  });
  locking.shareable = customer.shareable === true;
  const address = await findOrCreateAddress(tx, origin.brandId, customer.id, { ...input, country }, now, {
    newCustomer: customer.inserted,
    found: customer.probedAddress,
  });
  const id = newId('lead', now);
  // What the lead was submitted with, and the form's extras, serialised once: the columns take the text, the
  // lead's row below the values themselves.
  const submitted = submittedOf(input);
  const own: Record<(typeof OWN_COLUMNS)[number], unknown> = {
    id,
    brand_id: origin.brandId,
    customer_id: customer.id,
    address_id: address.id,
    status: 'request',
    stage: 'lead',
    source: origin.source,
    source_key_id: origin.keyId,
    source_key_name: origin.keyName,
    received_at: now,
    created_at: now,
    updated_at: now,
    scheduled_at: null,
    submitted: JSON.stringify(submitted),
    source_form_id: form?.id ?? null,
    source_form_name: form?.name ?? null,
    spam: spam ? 1 : 0,
    extra_fields: form?.extraFields ? JSON.stringify(form.extraFields) : null,
    attribution: form?.attribution ? JSON.stringify(form.attribution) : null,
    consent: form?.consent ? JSON.stringify(form.consent) : null,
    source_user_id: origin.user?.id ?? null,
    source_user_name: origin.user?.name ?? null,
    list_json: null,
  };
  const at = iso(now);
  const actor = actorOf(origin);
  // The lead as a read of it would give it, from what the create knows: the row such a read would map, with
  // its values as the read shows them (Projection.build: ISO times, JSON as values, none serialised and parsed
  // back). lead.created carries it and its list item is stored with it (list-json.ts), with no read back. Spam
  // is in no list and no event; a quiet link knows no contact.
  const contact = customer.contact;
  let row: Record<string, unknown> | undefined;
  if (!spam && contact) {
    row = {
      id,
      brandId: origin.brandId,
      customerId: customer.id,
      addressId: address.id,
      status: 'request',
      source: origin.source,
      receivedAt: at,
      createdAt: at,
      updatedAt: at,
      sourceKeyName: origin.keyName,
      scheduledAt: null,
      scheduledFor: null,
      durationMinutes: null,
      'assignee.id': null,
      'assignee.name': null,
      submitted,
      sourceFormId: own.source_form_id,
      sourceFormName: own.source_form_name,
      sourceUserId: own.source_user_id,
      sourceUserName: own.source_user_name,
      extraFields: own.extra_fields === null ? null : form?.extraFields,
      attribution: own.attribution === null ? null : form?.attribution,
      consent: own.consent === null ? null : form?.consent,
      attachmentCount: origin.files?.received.length ?? 0,
    };
    for (const { alias, input: from } of CREATE_ROW_ALIASES.input) row[alias] = input[from];
    const linked: Record<string, unknown> = contact;
    for (const [name, alias] of CREATE_ROW_ALIASES.customer) row[alias] = linked[name];
    row['customer.id'] = customer.id;
    const listed: Record<string, unknown> = address.listed;
    for (const [name, alias] of CREATE_ROW_ALIASES.address) row[alias] = listed[name];
    own.list_json = JSON.stringify(LIST_PROJECTION.build(row));
  }
  const values = OWN_COLUMNS.map((c) => own[c]);
  for (const c of INPUT_COLUMNS) values.push(input[c.input]);
  await insertLead(tx, values);
  await insertHistory(tx, id, 1, 'request', now, actor);
  let attachments: Attachment[] = [];
  if (origin.files?.received.length) {
    const { received, source, maxPerLead } = origin.files;
    // Their attachment.created events follow lead.created below; spam (kept with its files) writes none.
    attachments = await recordAttachments(tx, { brandId: origin.brandId, leadId: id }, received, {
      source,
      maxPerLead,
      now,
      quiet: true,
    });
    await updateAttachmentCount(tx, id, attachments.length);
  }
  tx.onCommit(() => tx.metrics?.leadCreated(origin.source, spam));
  if (!spam) {
    if (!row) throw new Error('a lead that is not spam is linked to a customer whose contact is known');
    const lead = DETAIL_PROJECTION.build(row) as LeadDetail;
    lead.statusHistory = [
      {
        status: 'request',
        at,
        actor: actor && { type: actor.type, id: actor.id, name: actor.name },
        reason: null,
      },
    ];
    lead.attachments = attachments;
    await recordEvent(tx, origin.brandId, 'lead.created', { lead }, now);
    for (const attachment of attachments) {
      await recordEvent(tx, origin.brandId, 'attachment.created', { attachment }, now);
    }
    await queueNewLeadEmails(tx, origin.brandId, id, now);
  }
  return {
    id,
    brandId: origin.brandId,
    customerId: customer.id,
    addressId: address.id,
    title: input.title,
    description: input.description,
    status: 'request',
    priority: input.priority,
    source: origin.source,
    receivedAt: at,
    createdAt: at,
  };
}
