// A customer's leads for the customer page, and "Use these details": the details a lead was submitted with,
// applied to its customer by a person in the office, recorded in the lead's activity.

import {
  type Contact,
  type ContactField,
  emailTakenByAnotherCustomer,
  readCustomer,
  updateCustomer,
} from '../customers/customers.js';
import { CONTACT_FIELDS } from '../customers/fields.js';
import type { Store } from '../platform/db/store.js';
import { DomainError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { iso } from '../shared/time.js';
import { insertActivity, selectCustomerLeads, selectLeadActivity } from './queries.js';
import { getLead } from './read.js';
import type { LeadDetail } from './shape.js';
import type { Status } from './states.js';

/** Who did something: an API key, a signed-in user or a website form. */
export interface Actor {
  type: 'key' | 'user' | 'form';
  id: string;
  name: string;
}

/** The lead's submitted contact fields next to the customer's, for each field where they differ. */
export function submittedDifferences(
  lead: LeadDetail,
): { field: ContactField; submitted: string | null; current: string | null }[] {
  const pairs = (Object.keys(CONTACT_FIELDS) as ContactField[]).map(
    (field) => [field, lead.submitted[CONTACT_FIELDS[field].input], lead.customer[field]] as const,
  );
  // A field left empty in the submission says nothing about the customer: only given values can differ.
  return pairs
    .filter(([, submitted, current]) => submitted !== null && submitted !== current)
    .map(([field, submitted, current]) => ({ field, submitted, current }));
}

/**
 * Applies the contact details a lead was submitted with to its customer (only fields the submission gave), writes
 * customer.updated, and records who did it in the lead's activity. Returns the fields that changed.
 */
export function useSubmittedDetails(
  store: Store,
  brandId: string,
  leadId: string,
  actor: Actor,
): Promise<string[]> {
  return store.write(async (tx) => {
    const lead = await getLead(tx, brandId, leadId);
    const differences = submittedDifferences(lead);
    if (!differences.length) return [];
    const now = Date.now();
    const values: Partial<Contact> = {};
    for (const d of differences) values[d.field] = d.submitted;
    if (values.email) {
      if (await emailTakenByAnotherCustomer(tx, brandId, values.email, lead.customer.id)) {
        throw new DomainError(
          'conflict',
          `Another customer already has the email ${values.email}; the details were not applied.`,
        );
      }
    }
    const current = await readCustomer(tx, brandId, lead.customer.id);
    const changed = await updateCustomer(tx, brandId, current, values, now);
    if (changed.length) {
      await insertActivity(tx, {
        id: newId('activity', now),
        lead_id: leadId,
        at: now,
        kind: 'customer_details_applied',
        actor_type: actor.type,
        actor_id: actor.id,
        actor_name: actor.name,
        detail: JSON.stringify({ customerId: lead.customer.id, changed }),
      });
    }
    return changed;
  });
}

export interface LeadActivity {
  id: string;
  at: string;
  kind: string;
  actor: Actor | null;
  detail: Record<string, unknown>;
}

/** What was done to a lead besides its state changes, oldest first. */
export async function listLeadActivity(
  store: Store,
  brandId: string,
  leadId: string,
): Promise<LeadActivity[]> {
  const rows = await selectLeadActivity(store, brandId, leadId);
  return rows.map((r) => ({
    id: r.id,
    at: iso(r.at),
    kind: r.kind,
    actor: r.actor_id ? { type: r.actor_type, id: r.actor_id, name: r.actor_name ?? r.actor_id } : null,
    detail: JSON.parse(r.detail) as Record<string, unknown>,
  }));
}

export interface CustomerLead {
  id: string;
  title: string;
  status: Status;
  priority: string;
  receivedAt: string;
  address: { street: string; streetNumber: string | null; postalCode: string; city: string };
}

/** Every lead and work item of a customer, in any state, newest first (at most `limit`). */
export async function listCustomerLeads(
  store: Store,
  brandId: string,
  customerId: string,
  limit = 200,
): Promise<CustomerLead[]> {
  const rows = await selectCustomerLeads(store, brandId, customerId, limit);
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    status: r.status as Status,
    priority: r.priority,
    receivedAt: iso(r.received_at),
    address: { street: r.street, streetNumber: r.street_number, postalCode: r.postal_code, city: r.city },
  }));
}
