// Addresses: linking a lead's address to one the customer already has, and the brand's address list.

import { type Static, Type } from '@sinclair/typebox';
import type { Store, Tx } from '../platform/db/store.js';
import { newRandomId } from '../shared/ids.js';
import { Timestamp } from '../shared/json-schema.js';
import { type Page, type SortOrder, toPage } from '../shared/paging.js';
import { iso } from '../shared/time.js';
import { ADDRESS_FIELDS, type AddressInput, readSchemas, valuesByColumn, valuesByName } from './fields.js';
import {
  type AddressRow,
  findAddress,
  insertAddressUnlessMatched,
  insertFirstAddress,
  type ListedAddressRow,
  selectAddressPage,
  selectCustomerAddresses,
} from './queries.js';

export const AddressSchema = Type.Object(
  {
    id: Type.String(),
    customerId: Type.String(),
    // The address fields, as the table declares them (fields.ts), in its order.
    ...readSchemas(ADDRESS_FIELDS),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { additionalProperties: false, title: 'Address' },
);
export type Address = Static<typeof AddressSchema>;

/** An address as the addresses API shows it: its fields by API name, from their columns (fields.ts). */
export function toAddress(row: AddressRow): Address {
  return {
    id: row.id,
    customerId: row.customer_id,
    ...valuesByName(ADDRESS_FIELDS, row),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** What a lead shows of its address (see leads/shape.ts): the row as stored, which may be written differently. */
export type ListedAddress = Omit<Address, 'customerId' | 'createdAt' | 'updatedAt'>;

export type { AddressInput };

/**
 * The key that decides whether two addresses of one customer are the same place: postal code, number and
 * addition (upper case, no spaces), country, and the street (lower case, no spaces).
 */
export function addressMatchKey(input: MatchedAddress & { country: string }): string {
  const { before, after } = addressMatchKeyAround(input);
  return before + input.country + after;
}

/** What addressMatchKey reads of an address, country aside. */
export type MatchedAddress = {
  street: string;
  postalCode: string;
  streetNumber: string | null;
  streetNumberAddition: string | null;
};

/**
 * addressMatchKey without its country: what comes before it and after it. For a statement that puts the
 * country in itself (the brand's default when the submission names none; see customerProbe).
 */
export function addressMatchKeyAround(input: MatchedAddress): { before: string; after: string } {
  const norm = (v: string | null) => (v ?? '').replace(/\s+/g, '').toUpperCase();
  return {
    before: `${norm(input.postalCode)}|${norm(input.streetNumber)}|${norm(input.streetNumberAddition)}|`,
    after: `|${input.street.replace(/\s+/g, '').toLowerCase()}`,
  };
}

/** Same customer, postal code (upper case, no spaces), number, addition, country and street: the same address. */
export async function findOrCreateAddress(
  r: Tx,
  brandId: string,
  customerId: string,
  input: AddressInput & {
    country: string;
  },
  now: number,
  options: {
    /** The customer was inserted in this transaction: it has no address yet, so none is looked for. */
    newCustomer?: boolean | undefined;
    /**
     * The customer's address with this match key as this transaction found it already (customerProbe), null
     * when it has none: it is not looked for again.
     */
    found?: ListedAddressRow | null | undefined;
  } = {},
): Promise<{ id: string; created: boolean; listed: ListedAddress }> {
  const matchKey = addressMatchKey(input);
  const find = () => findAddress(r, customerId, matchKey);
  const existing = options.newCustomer
    ? undefined
    : options.found !== undefined
      ? (options.found ?? undefined)
      : await find();
  if (existing) return { id: existing.id, created: false, listed: existing };
  const id = newRandomId('address');
  const row = {
    id,
    brand_id: brandId,
    customer_id: customerId,
    ...valuesByColumn(ADDRESS_FIELDS, input),
    match_key: matchKey,
    created_at: now,
    updated_at: now,
  };
  // A new customer's first address goes with the create's other inserts (Tx.defer).
  let inserted = true;
  if (options.newCustomer) await insertFirstAddress(r, row);
  else inserted = await insertAddressUnlessMatched(r, row);
  if (inserted) return { id, created: true, listed: { id, ...valuesByName(ADDRESS_FIELDS, row) } };
  const winner = await find();
  if (!winner) throw new Error('address insert conflicted but no matching address was found');
  return { id: winner.id, created: false, listed: winner };
}

export interface AddressListQuery {
  limit: number;
  order: SortOrder;
  cursor?: string;
  createdAfter?: number;
  createdBefore?: number;
}

export async function listAddresses(
  store: Store,
  brandId: string,
  query: AddressListQuery,
): Promise<Page<Address>> {
  const rows = await selectAddressPage(store, brandId, query);
  return toPage(rows, query.limit, query.order, (r) => ({ time: r.created_at, id: r.id }), toAddress);
}

/** Every address of the brand's customer, oldest first, as GET /v1/addresses reads them (a personal-data export). */
export async function listCustomerAddresses(
  store: Store,
  brandId: string,
  customerId: string,
): Promise<Address[]> {
  return (await selectCustomerAddresses(store, brandId, customerId)).map(toAddress);
}
