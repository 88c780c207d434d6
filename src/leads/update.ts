// Editing a lead in the office: the job (title, description, category, priority, budget) and the job's address.
// Each edit that changes something is one entry in the lead's activity (who, and each field from → to) and one
// lead.updated event naming the fields; an edit that changes nothing writes nothing.

import { addressMatchKey, findOrCreateAddress } from '../customers/addresses.js';
import { deleteUnusedCustomers } from '../customers/customers.js';
import { ADDRESS_FIELDS } from '../customers/fields.js';
import type { Store } from '../platform/db/store.js';
import { NotFoundError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { recordEvent } from '../webhooks/events.js';
import type { Actor } from './customer-details.js';
import { leadField, leadFieldsWhere } from './fields.js';
import { type LeadInput, parseLeadFields } from './input.js';
import {
  insertActivity,
  lockLead,
  selectAddressColumns,
  selectBrandCountry,
  updateAddressRow,
  updateLeadRow,
} from './queries.js';
import { getLead } from './read.js';
import { visitChanged } from './visit-notices.js';

/** The job's own fields an edit may change (the field table's editedOn 'lead'), by their API names. */
export const EDITABLE_JOB_FIELDS = leadFieldsWhere({ group: 'job', editedOn: 'lead' });
/** The job address's fields an edit may change, by their API (input) names. */
export const EDITABLE_ADDRESS_FIELDS = leadFieldsWhere({ group: 'address', editedOn: 'lead' });
/** What the Edit page shows and its post saves: nothing it shows is dropped, nothing else is read. */
export const EDITABLE_FIELDS = [...EDITABLE_JOB_FIELDS, ...EDITABLE_ADDRESS_FIELDS];
export type EditableField = (typeof EDITABLE_FIELDS)[number];

/**
 * An edit: the fields it sets (left out: unchanged). `country` null means the brand's default country, as on
 * create; `priority` is never null.
 */
export type LeadChanges = Partial<{ [K in EditableField]: LeadInput[K] }>;

/**
 * Reads an edit of every editable field by the rules of lead creation (required fields stay required, the same
 * lengths and formats). A missing or empty priority keeps the lead's. Throws ValidationError listing every problem.
 */
export function parseLeadChanges(values: Record<string, unknown>): LeadChanges {
  const parsed = parseLeadFields(values, EDITABLE_FIELDS);
  const { priority, ...rest } = parsed;
  return { ...(rest as LeadChanges), ...(priority ? { priority } : {}) };
}

type AddressValues = {
  [K in (typeof EDITABLE_ADDRESS_FIELDS)[number]]: K extends 'country' ? string : LeadInput[K];
};

/**
 * Applies an edit to one of the brand's leads as `actor`. The job's fields are set on the lead. A changed address
 * is linked as lead creation links one (findOrCreateAddress: the customer's address with the same postal code,
 * number, addition, country and street, or a new one); the address the lead had stays while other leads use it.
 * An address that stays the same place (same match key) but is written differently, e.g. a corrected city, is
 * corrected on that address. Returns the API names of the fields that changed; none: nothing was written.
 * NotFoundError for an unknown id, another brand's lead or spam.
 */
export function updateLead(
  store: Store,
  brandId: string,
  id: string,
  changes: LeadChanges,
  actor: Actor,
): Promise<{ changed: EditableField[] }> {
  return store.write(async (tx) => {
    // Two edits of one lead at once: the second reads what the first wrote, so its "from" is true.
    await lockLead(tx, id);
    const lead = await getLead(tx, brandId, id);
    const now = Date.now();
    const changed: EditableField[] = [];
    const from: Record<string, string | null> = {};
    const to: Record<string, string | null> = {};
    const set: Record<string, unknown> = {};

    for (const name of EDITABLE_JOB_FIELDS) {
      const value = changes[name];
      if (value === undefined || value === lead[name]) continue;
      changed.push(name);
      from[name] = lead[name];
      to[name] = value;
      set[leadField(name).column] = value;
    }

    const current: AddressValues = {
      street: lead.address.street,
      streetNumber: lead.address.streetNumber,
      streetNumberAddition: lead.address.streetNumberAddition,
      postalCode: lead.address.postalCode,
      city: lead.address.city,
      country: lead.address.country,
    };
    let country = changes.country;
    if (country === null) {
      const brandCountry = await selectBrandCountry(tx, brandId);
      if (brandCountry === undefined) throw new NotFoundError(`No brand with id ${brandId}`);
      country = brandCountry;
    }
    const target: AddressValues = {
      street: changes.street ?? current.street,
      streetNumber: changes.streetNumber === undefined ? current.streetNumber : changes.streetNumber,
      streetNumberAddition:
        changes.streetNumberAddition === undefined
          ? current.streetNumberAddition
          : changes.streetNumberAddition,
      postalCode: changes.postalCode ?? current.postalCode,
      city: changes.city ?? current.city,
      country: country ?? current.country,
    };
    const addressChanged = EDITABLE_ADDRESS_FIELDS.filter((f) => target[f] !== current[f]);
    let oldAddressId: string | null = null;
    if (addressChanged.length) {
      let addressId = lead.address.id;
      if (addressMatchKey(target) !== addressMatchKey(current)) {
        addressId = (await findOrCreateAddress(tx, brandId, lead.customer.id, target, now)).id;
        set.address_id = addressId;
        oldAddressId = lead.address.id;
      }
      // The same place written differently (or an existing address of the customer found by its key): the
      // address takes the values typed now.
      const values: Record<string, string | null> = Object.fromEntries(
        EDITABLE_ADDRESS_FIELDS.map((f) => [ADDRESS_FIELDS[f].column, target[f]]),
      );
      const row = await selectAddressColumns(
        tx,
        addressId,
        EDITABLE_ADDRESS_FIELDS.map((f) => ADDRESS_FIELDS[f].column),
      );
      if (Object.keys(values).some((k) => row[k] !== values[k])) {
        await updateAddressRow(tx, addressId, { ...values, updated_at: now });
      }
      for (const name of addressChanged) {
        changed.push(name);
        from[name] = current[name];
        to[name] = target[name];
      }
    }

    if (!changed.length) return { changed };
    // Strictly later than before, also within the same millisecond: updatedAfter filters must see the change.
    const updatedAt = Math.max(now, Date.parse(lead.updatedAt) + 1);
    await updateLeadRow(tx, brandId, id, { ...set, updated_at: updatedAt });
    if (oldAddressId) await deleteUnusedCustomers(tx, { customerIds: [], addressIds: [oldAddressId] });
    // A visit's place or title changed: its SEQUENCE moves; a new address is news to the customer.
    if (addressChanged.length || changed.includes('title')) {
      await visitChanged(tx, brandId, id, { addressChanged: addressChanged.length > 0 }, actor);
    }
    await insertActivity(tx, {
      id: newId('activity', now),
      lead_id: id,
      at: now,
      kind: 'edited',
      actor_type: actor.type,
      actor_id: actor.id,
      actor_name: actor.name,
      detail: JSON.stringify({ changed, from, to }),
    });
    await recordEvent(tx, brandId, 'lead.updated', { lead: await getLead(tx, brandId, id), changed }, now);
    return { changed };
  });
}
