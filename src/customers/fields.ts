// The customer's contact fields and the address fields, each declared once: its column, the rule a submission
// must meet, its description in the API, how people call it, the browser's autofill token and its example value.
// A lead's flat body carries them (leads/fields.ts composes this table into the lead's, adding where a lead shows
// each one); the customer code reads its column list, the contact's input names and the labels from here.
//
// Derived from these two tables, never listed again: the Customer and Address schemas' field properties (their
// read schemas, below), toCustomer's and the address list's row-to-object mapping (valuesByName), the rows an
// insert writes (valuesByColumn) and the column lists of the customers' and addresses' SQL (queries.ts, by
// columnsOf). test/domain/customer-fields.test.ts checks each derivation against the tables.

import { type TString, type TUnsafe, Type } from '@sinclair/typebox';
import type { MessageKey, Translator } from '../shared/i18n/index.js';
import { NullableString } from '../shared/json-schema.js';

export type FieldFormat = 'email' | 'phone' | 'country' | 'priority';

/** What every field a submission fills declares, whichever table it is stored in. */
export interface FieldSpec {
  /** Its column in its own table (customers, addresses or leads). */
  column: string;
  required: boolean;
  /** In characters (code points), after trimming. */
  maxLength: number;
  format?: FieldFormat;
  /** What the API's create body (LeadCreate) says of it. */
  description: string;
  /** Never null once stored, though optional on create: a default fills it (country: the brand's). */
  alwaysSet?: boolean;
  /** What the read schemas say of it, when anything. */
  readDescription?: string;
  /** How the office names it: its catalog key (one per field). */
  label: MessageKey;
  /** The browser's autofill token on the public website form. */
  autocomplete?: string;
  /** Its value in the API documentation's examples, as sent; absent: not sent (null when read). */
  example?: string;
}

/** A contact field: stored on the customer, sent flat with a lead under its input name. */
export interface ContactFieldSpec extends FieldSpec {
  /** Its name in a lead's body and in the contact as submitted (the customer's `name` is `customerName`). */
  input: string;
}

/** The customer's contact fields, by their name on the customer, in the order a lead's body lists them. */
export const CONTACT_FIELDS = {
  name: {
    input: 'customerName',
    column: 'name',
    required: true,
    maxLength: 200,
    description: 'Name of the customer.',
    label: 'customer.field.name',
    autocomplete: 'name',
    example: 'Anna de Vries',
  },
  firstName: {
    input: 'firstName',
    column: 'first_name',
    required: false,
    maxLength: 200,
    description: 'First name.',
    label: 'customer.field.firstName',
    autocomplete: 'given-name',
  },
  lastName: {
    input: 'lastName',
    column: 'last_name',
    required: false,
    maxLength: 200,
    description: 'Last name.',
    label: 'customer.field.lastName',
    autocomplete: 'family-name',
  },
  email: {
    input: 'email',
    column: 'email',
    required: false,
    maxLength: 254,
    format: 'email',
    description: 'Email address; used (case-insensitively) to link the lead to an existing customer.',
    label: 'customer.field.email',
    autocomplete: 'email',
    example: 'anna@example.com',
  },
  phone: {
    input: 'phone',
    column: 'phone',
    required: false,
    maxLength: 40,
    format: 'phone',
    description:
      'International format starting with "+", 8 to 15 digits; spaces, dashes, dots and parentheses are removed. Stored in E.164.',
    readDescription: 'E.164',
    label: 'customer.field.phone',
    autocomplete: 'tel',
    example: '+31 6 1234 5678',
  },
  companyName: {
    input: 'companyName',
    column: 'company_name',
    required: false,
    maxLength: 200,
    description: 'When present, the customer is registered as a business customer.',
    label: 'customer.field.companyName',
    autocomplete: 'organization',
  },
} as const satisfies Record<string, ContactFieldSpec>;

/** An address's fields, by their API name (the same on the address and in a lead's body), in the body's order. */
export const ADDRESS_FIELDS = {
  street: {
    column: 'street',
    required: true,
    maxLength: 200,
    description: 'Street name.',
    label: 'address.field.street',
    autocomplete: 'address-line1',
    example: 'Keizersgracht',
  },
  streetNumber: {
    column: 'street_number',
    required: false,
    maxLength: 20,
    description: 'House number.',
    label: 'address.field.streetNumber',
    example: '123',
  },
  streetNumberAddition: {
    column: 'street_number_addition',
    required: false,
    maxLength: 20,
    description: 'Addition to the house number, e.g. "A" or "bis".',
    label: 'address.field.streetNumberAddition',
  },
  postalCode: {
    column: 'postal_code',
    required: true,
    maxLength: 16,
    description: 'Postal code.',
    label: 'address.field.postalCode',
    autocomplete: 'postal-code',
    example: '1015 CJ',
  },
  city: {
    column: 'city',
    required: true,
    maxLength: 100,
    description: 'City.',
    label: 'address.field.city',
    autocomplete: 'address-level2',
    example: 'Amsterdam',
  },
  country: {
    column: 'country',
    required: false,
    maxLength: 2,
    format: 'country',
    alwaysSet: true,
    description:
      'ISO 3166-1 alpha-2 code (any case), or the country\'s name in Dutch or English in any letter case ("Nederland", "Netherlands"); anything else is a 422. Defaults to the brand\'s default country. Stored as the upper-case code.',
    label: 'address.field.country',
    autocomplete: 'country',
  },
} as const satisfies Record<string, FieldSpec>;

export type ContactField = keyof typeof CONTACT_FIELDS;
export type AddressField = keyof typeof ADDRESS_FIELDS;

/** A table of fields by API name: CONTACT_FIELDS, ADDRESS_FIELDS (or the lead's, which extends them). */
export type FieldTable = Readonly<Record<string, FieldSpec>>;

/** The columns of a table's fields. */
export type ColumnOf<T extends FieldTable> = T[keyof T]['column'];

/** The columns of a table's fields, in its order. */
export const columnsOf = <T extends FieldTable>(table: T): ColumnOf<T>[] =>
  Object.values(table).map((f) => f.column) as ColumnOf<T>[];

/** A row's values of a table's fields, by API name: the value of each field's column (`R` from db/schema.ts). */
export type ValuesByName<T extends FieldTable, R> = {
  -readonly [K in keyof T]: R[T[K]['column'] & keyof R];
};

/** The values of a table's fields in a row, read by their columns, by API name, in the table's order. */
export function valuesByName<T extends FieldTable, R extends { [C in ColumnOf<T>]: unknown }>(
  table: T,
  row: R,
): ValuesByName<T, R> {
  const values = row as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, column] of namesAndColumns(table)) out[name] = values[column];
  return out as ValuesByName<T, R>;
}

/**
 * Each field's API name and column, in the table's order, worked out once per table: these mappings run several
 * times on every create and read (issue 33: no entries arrays built per call).
 */
const NAMES_AND_COLUMNS = new WeakMap<FieldTable, readonly (readonly [name: string, column: string])[]>();
function namesAndColumns(table: FieldTable): readonly (readonly [string, string])[] {
  let pairs = NAMES_AND_COLUMNS.get(table);
  if (!pairs) {
    pairs = Object.entries(table).map(([name, f]) => [name, f.column] as const);
    NAMES_AND_COLUMNS.set(table, pairs);
  }
  return pairs;
}

/** Values of a table's fields by API name, by their columns (what an insert writes). */
export type ValuesByColumn<T extends FieldTable, V> = {
  -readonly [K in keyof T as T[K]['column']]: V[K & keyof V];
};

/** The table's fields of `values` (by API name; other keys left out), by their columns, in the table's order. */
export function valuesByColumn<T extends FieldTable, V extends { [K in keyof T]: unknown }>(
  table: T,
  values: V,
): ValuesByColumn<T, V> {
  const byName = values as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, column] of namesAndColumns(table)) out[column] = byName[name];
  return out as ValuesByColumn<T, V>;
}

/** The schema of a field in the read shapes: a string, or a string or null unless it is always there. */
export type FieldReadSchema<F> = F extends { required: true } | { alwaysSet: true }
  ? TString
  : TUnsafe<string | null>;

export function fieldReadSchema<F extends FieldSpec>(f: F): FieldReadSchema<F> {
  const described = f.readDescription ? { description: f.readDescription } : {};
  return (
    f.required || f.alwaysSet ? Type.String(described) : NullableString(described)
  ) as FieldReadSchema<F>;
}

/** The read schemas of a table's fields (the Customer's and Address's properties), by API name, in its order. */
export function readSchemas<T extends FieldTable>(
  table: T,
): { -readonly [K in keyof T]: FieldReadSchema<T[K]> } {
  return Object.fromEntries(Object.entries(table).map(([name, f]) => [name, fieldReadSchema(f)])) as {
    -readonly [K in keyof T]: FieldReadSchema<T[K]>;
  };
}

/** A contact field's value: required ones are always there. */
type ValueOf<F> = F extends { required: true } ? string : string | null;

/** What linking reads of a submission: its contact fields by their input names (phone in E.164). */
export type ContactInput = {
  [K in ContactField as (typeof CONTACT_FIELDS)[K]['input']]: ValueOf<(typeof CONTACT_FIELDS)[K]>;
};

/** The address fields a submission gives (a lead's input, or what it was submitted with), country aside. */
export type AddressInput = {
  [K in Exclude<AddressField, 'country'>]: ValueOf<(typeof ADDRESS_FIELDS)[K]>;
};

/** A customer's contact fields (and `type`), as the office names them (catalog keys), by API name. */
export const CUSTOMER_FIELD_LABELS: Readonly<Record<string, MessageKey>> = {
  ...Object.fromEntries(Object.entries(CONTACT_FIELDS).map(([name, f]) => [name, f.label])),
  type: 'customer.field.type',
};

/** A field's label in the reader's language: `fieldLabel(tr, CONTACT_FIELDS.email)`. */
export const fieldLabel = (tr: Translator, field: Pick<FieldSpec, 'label'>): string => tr.t(field.label);

const CUSTOMER_TYPE_LABELS: Record<'person' | 'business', MessageKey> = {
  person: 'customer.type.person',
  business: 'customer.type.business',
};

/** "Person" / "Particulier", "Business" / "Zakelijk". */
export function customerTypeLabel(tr: Translator, type: 'person' | 'business'): string {
  return tr.t(CUSTOMER_TYPE_LABELS[type]);
}

/** Field names as words in a sentence ("email, phone"); names this table does not know are left out. */
export function fieldWords(tr: Translator, fields: readonly unknown[]): string {
  return fields
    .filter((f): f is string => typeof f === 'string' && Object.hasOwn(CUSTOMER_FIELD_LABELS, f))
    .map((f) => tr.t(CUSTOMER_FIELD_LABELS[f]!).toLowerCase())
    .join(', ');
}
