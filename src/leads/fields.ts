// The lead's fields, each declared once with everything that varies from one field to the next: its column and
// input rule, its schemas and description, its labels, where the public website form and the office's pages show
// it, whether the office may change it, and whether the lists, the CSV exports and the search have it, and its
// example value. The contact and address fields come from the customers' table (customers/fields.ts), with
// where a lead shows them added here.
//
// Everything that lists lead fields is derived from this table: the input rules (input.ts), the read shapes and
// their columns (shape.ts), the API's schemas and examples, the public form (forms/views.ts), the New lead and
// Edit pages (dashboard/views/lead-form.ts), what an edit saves (update.ts), the CSV columns, the list JSON's
// triggers (list-json-triggers.ts) and the columns Kysely knows (LeadFieldColumns, below). Adding an optional
// field is a line here and a migration that adds its column (test/domain/fields.test.ts checks the derivations).

import { type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import type { ColumnType } from 'kysely';
import {
  ADDRESS_FIELDS,
  type AddressField,
  CONTACT_FIELDS,
  type ContactField,
  type FieldReadSchema,
  type FieldSpec,
  fieldReadSchema,
} from '../customers/fields.js';
import type { MessageKey, Translator } from '../shared/i18n/index.js';
import { PRIORITIES, type Priority } from './states.js';

/** Where a lead shows a field, and what the office may do with it. */
export interface Placement {
  /** Position on the public website form (ascending); null: the form does not ask for it. */
  formOrder: number | null;
  /** The public form's label where it speaks to the customer otherwise than the office does ("Your name"). */
  formLabel?: MessageKey;
  /** Position in its group's section of the office's New lead page (ascending); null: not asked there. */
  newLeadOrder: number | null;
  /**
   * Where the office changes it once the lead exists: 'lead' on the lead's Edit page (saved by updateLead),
   * 'customer' in the customer's record ("Use these details"), null: nowhere.
   */
  editedOn: 'lead' | 'customer' | null;
  /** In the lists' items (GET /v1/leads and /v1/work-items, and their ready JSON). */
  listed: boolean;
  /** A column of the CSV exports (every listed field is one). */
  exported: boolean;
  /** In the search document of the lists' `q` (built by migrations/2026112320_search.ts). */
  searched: boolean;
  /** The office's hint below its label. */
  hint?: MessageKey;
  /** Long text: a textarea, this many rows high in the office. */
  rows?: number;
  /** Half width in the office: two half fields in a row share a line. */
  half?: boolean;
  /** The office's autofill: 'off' where the browser would offer the office user's own details. */
  officeAutocomplete?: 'off';
}

export type LeadGroup = 'job' | 'customer' | 'address';

export interface LeadFieldSpec extends FieldSpec, Placement {
  /** Where it is stored: on the lead (job), its customer or its address. */
  group: LeadGroup;
  /** A contact field's name on the customer (customerName is the customer's `name`). */
  of?: ContactField;
}

const job = <const S extends FieldSpec & Placement>(spec: S) => ({ group: 'job' as const, ...spec });
const contact = <const K extends ContactField, const P extends Placement>(name: K, placement: P) => ({
  ...CONTACT_FIELDS[name],
  group: 'customer' as const,
  of: name,
  ...placement,
});
const address = <const K extends AddressField, const P extends Placement>(name: K, placement: P) => ({
  ...ADDRESS_FIELDS[name],
  group: 'address' as const,
  ...placement,
});

/**
 * Every field of a lead's flat body (POST /v1/leads, the website forms, the New lead page), by its API name, in
 * the body's order: the address, the customer, the job. Numbers of an order leave room to put a field between.
 */
export const LEAD_FIELD_TABLE = {
  street: address('street', {
    formOrder: 110,
    newLeadOrder: 30,
    editedOn: 'lead',
    listed: true,
    exported: true,
    searched: true,
  }),
  streetNumber: address('streetNumber', {
    formOrder: 120,
    newLeadOrder: 40,
    half: true,
    editedOn: 'lead',
    listed: true,
    exported: true,
    searched: true,
  }),
  streetNumberAddition: address('streetNumberAddition', {
    formOrder: 130,
    newLeadOrder: 50,
    half: true,
    hint: 'lead.hint.streetNumberAddition',
    editedOn: 'lead',
    listed: false,
    exported: true,
    searched: true,
  }),
  postalCode: address('postalCode', {
    formOrder: 140,
    newLeadOrder: 10,
    half: true,
    editedOn: 'lead',
    listed: true,
    exported: true,
    searched: true,
  }),
  city: address('city', {
    formOrder: 150,
    newLeadOrder: 20,
    half: true,
    editedOn: 'lead',
    listed: true,
    exported: true,
    searched: true,
  }),
  country: address('country', {
    formOrder: 160,
    newLeadOrder: 60,
    editedOn: 'lead',
    listed: false,
    exported: true,
    searched: false,
  }),
  customerName: contact('name', {
    formOrder: 50,
    formLabel: 'form.field.customerName',
    newLeadOrder: 10,
    officeAutocomplete: 'off',
    editedOn: 'customer',
    listed: true,
    exported: true,
    searched: true,
  }),
  firstName: contact('firstName', {
    formOrder: 60,
    newLeadOrder: 50,
    half: true,
    editedOn: 'customer',
    listed: false,
    exported: false,
    searched: false,
  }),
  lastName: contact('lastName', {
    formOrder: 70,
    newLeadOrder: 60,
    half: true,
    editedOn: 'customer',
    listed: false,
    exported: false,
    searched: false,
  }),
  email: contact('email', {
    formOrder: 90,
    newLeadOrder: 30,
    officeAutocomplete: 'off',
    editedOn: 'customer',
    listed: true,
    exported: true,
    searched: true,
  }),
  phone: contact('phone', {
    formOrder: 100,
    newLeadOrder: 20,
    hint: 'lead.hint.phone',
    officeAutocomplete: 'off',
    editedOn: 'customer',
    listed: true,
    exported: true,
    searched: true,
  }),
  companyName: contact('companyName', {
    formOrder: 80,
    newLeadOrder: 40,
    hint: 'lead.hint.companyName',
    editedOn: 'customer',
    listed: true,
    exported: true,
    searched: true,
  }),
  title: job({
    column: 'title',
    required: true,
    maxLength: 200,
    description: 'Short title of the job.',
    label: 'lead.field.title',
    formLabel: 'form.field.title',
    hint: 'lead.hint.title',
    example: 'Leaking tap in the kitchen',
    formOrder: 10,
    newLeadOrder: 10,
    editedOn: 'lead',
    listed: true,
    exported: true,
    searched: true,
  }),
  description: job({
    column: 'description',
    required: false,
    maxLength: 5000,
    description: 'Description of the work.',
    label: 'lead.field.description',
    rows: 4,
    example: 'Drips since Monday.',
    formOrder: 20,
    newLeadOrder: 20,
    editedOn: 'lead',
    listed: false,
    exported: true,
    searched: true,
  }),
  category: job({
    column: 'category',
    required: false,
    maxLength: 100,
    description: 'Free text naming a trade.',
    label: 'lead.field.category',
    hint: 'lead.hint.category',
    half: true,
    formOrder: 30,
    newLeadOrder: 30,
    editedOn: 'lead',
    listed: false,
    exported: true,
    searched: false,
  }),
  priority: job({
    column: 'priority',
    required: false,
    maxLength: 10,
    format: 'priority',
    alwaysSet: true,
    description:
      "low, medium, high or urgent; defaults to `medium`, or to the brand's default priority when an admin set one (Settings > Brand), or to a website form's default.",
    label: 'lead.field.priority',
    half: true,
    example: 'high',
    // The brand's choice (a form's default), not the customer's.
    formOrder: null,
    newLeadOrder: 40,
    editedOn: 'lead',
    listed: true,
    exported: true,
    searched: false,
  }),
  budgetQuote: job({
    column: 'budget_quote',
    required: false,
    maxLength: 200,
    description: 'Free text budget range.',
    label: 'lead.field.budgetQuote',
    hint: 'lead.hint.budgetQuote',
    formOrder: 40,
    newLeadOrder: 50,
    editedOn: 'lead',
    listed: false,
    exported: true,
    searched: false,
  }),
  notes: job({
    column: 'notes',
    required: false,
    maxLength: 5000,
    description: 'Notes.',
    label: 'lead.field.notes',
    rows: 2,
    formOrder: 170,
    newLeadOrder: 60,
    editedOn: null,
    listed: false,
    exported: false,
    searched: false,
  }),
} satisfies Record<string, LeadFieldSpec>;

type Table = typeof LEAD_FIELD_TABLE;
export type LeadFieldName = keyof Table;

/** The names of the fields whose declaration has every property of `M` (e.g. { group: 'job', listed: true }). */
export type LeadFieldsWhere<M> = { [K in LeadFieldName]: Table[K] extends M ? K : never }[LeadFieldName];

const ENTRIES = Object.entries(LEAD_FIELD_TABLE) as [LeadFieldName, LeadFieldSpec][];

/** The table's field names with every property of `match`, in the table's order. */
export function leadFieldsWhere<const M extends Partial<LeadFieldSpec>>(match: M): LeadFieldsWhere<M>[] {
  const wanted = Object.entries(match);
  return ENTRIES.filter(([, f]) => wanted.every(([k, v]) => f[k as keyof LeadFieldSpec] === v)).map(
    ([name]) => name,
  ) as LeadFieldsWhere<M>[];
}

/** A field's declaration, by API name. */
export const leadField = (name: LeadFieldName): LeadFieldSpec => LEAD_FIELD_TABLE[name];

/** Its name where it is read: in the lead, its `customer` (customerName: `name`) or its `address`. */
export const readNameOf = (name: LeadFieldName): string => leadField(name).of ?? name;

/** The names of the fields on the public website form, in its order. */
export const formFieldNames = (): LeadFieldName[] =>
  ENTRIES.filter(([, f]) => f.formOrder !== null)
    .sort(([, a], [, b]) => a.formOrder! - b.formOrder!)
    .map(([name]) => name);

/** The New lead page's fields of one group (its section), in the page's order. */
export const newLeadFieldNames = (group: LeadGroup): LeadFieldName[] =>
  ENTRIES.filter(([, f]) => f.group === group && f.newLeadOrder !== null)
    .sort(([, a], [, b]) => a.newLeadOrder! - b.newLeadOrder!)
    .map(([name]) => name);

/** The office's label of a field, and the public form's, as catalog keys (one per field). */
export const officeLabelKey = (name: LeadFieldName): MessageKey => leadField(name).label;
export const formLabelKey = (name: LeadFieldName): MessageKey =>
  leadField(name).formLabel ?? leadField(name).label;
/** The same in the reader's language: `officeLabel(tr, 'title')` is "Job title" / "Klus". */
export const officeLabel = (tr: Translator, name: LeadFieldName): string => tr.t(officeLabelKey(name));
export const formLabel = (tr: Translator, name: LeadFieldName): string => tr.t(formLabelKey(name));

/** The value a field takes in a lead's input (parseLeadInput): required ones are there; priority null: the brand's. */
type InputValueOf<F> = F extends { format: 'priority' }
  ? Priority | null
  : F extends { required: true }
    ? string
    : string | null;
export type LeadFieldValues = { -readonly [K in LeadFieldName]: InputValueOf<Table[K]> };

// One `enum` keyword rather than a union of literals: what the document has always said, and fast to serialise.
const PrioritySchema = Type.Unsafe<Priority>({ type: 'string', enum: [...PRIORITIES] });

/** The schema of a field in the read shapes (a lead, its customer, its address): fieldReadSchema, or priority's. */
export type ReadSchemaOf<F> = F extends { format: 'priority' } ? TUnsafe<Priority> : FieldReadSchema<F>;

export function readSchemaOf<F extends FieldSpec>(f: F): ReadSchemaOf<F> {
  const schema: TSchema = f.format === 'priority' ? PrioritySchema : fieldReadSchema(f);
  return schema as ReadSchemaOf<F>;
}

/** The schema of a field in the create body (LeadCreate): what parseLeadInput accepts, in JSON Schema. */
export function bodySchemaOf(f: LeadFieldSpec): TSchema {
  const base = { description: `${f.description} (${f.group})`, maxLength: f.maxLength };
  const schema =
    f.format === 'priority'
      ? Type.String({ ...base, enum: [...PRIORITIES] })
      : f.format === 'email'
        ? Type.String({ ...base, format: 'email' })
        : f.format === 'phone'
          ? Type.String({ ...base, pattern: '^\\+', examples: ['+31 6 1234 5678'] })
          : f.format === 'country'
            ? Type.String({
                description: `${f.description} (${f.group})`,
                minLength: 2,
                maxLength: 100,
                examples: ['NL', 'Nederland', 'Netherlands'],
              })
            : Type.String({ ...base, ...(f.required ? { minLength: 1 } : {}) });
  // TypeBox derives `required` from the properties: optional fields must be marked, or the document requires all.
  return f.required ? schema : Type.Optional(schema);
}

/** The create body the API documentation shows: every field with an example value, as sent; the job first. */
export function leadBodyExample(): Record<string, string> {
  const groups: LeadGroup[] = ['job', 'customer', 'address'];
  return Object.fromEntries(
    groups.flatMap((group) =>
      ENTRIES.flatMap(([name, f]) =>
        f.group === group && f.example !== undefined ? [[name, f.example] as const] : [],
      ),
    ),
  );
}

type JobField = LeadFieldsWhere<{ group: 'job' }>;

/**
 * The leads columns of the job's fields, for Kysely: optional ones may be left out of an insert. Merged into
 * LeadTable (platform/db/schema.ts) below, so a field's column is declared with the field.
 */
export type LeadFieldColumns = {
  [K in JobField as Table[K]['column']]: Table[K] extends { required: true } | { alwaysSet: true }
    ? string
    : ColumnType<string | null, string | null | undefined, string | null>;
};

declare module '../platform/db/schema.js' {
  interface LeadTable extends LeadFieldColumns {}
}
