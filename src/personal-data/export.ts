// A person's data, as one JSON document: everything the brand holds about one customer (the customer, their
// addresses, every lead and work item of theirs in any state, spam too, with notes, status history, activity and
// attachments' metadata, and what was done to the customer). The API sends it, the dashboard and the command line
// put it in a ZIP with the attachments' bytes (zip.ts). Every export is recorded in the customer's activity
// (`exported`) and logged with ids only: never a name, an email or the document.
import { type Static, Type } from '@sinclair/typebox';
import { findBrand } from '../accounts/brands.js';
import { type CustomerActor, listCustomerActivity, recordCustomerActivity } from '../customers/activity.js';
import { AddressSchema, listCustomerAddresses } from '../customers/addresses.js';
import { CustomerDetailSchema, erasedAtOrMissing, getCustomer } from '../customers/customers.js';
import { customerLeadsForExport, ExportedLeadSchema } from '../leads/index.js';
import type { Store } from '../platform/db/store.js';
import { NotFoundError } from '../shared/errors.js';
import type { Locale } from '../shared/i18n/index.js';
import { NullableString, Timestamp } from '../shared/json-schema.js';

export const CustomerActivitySchema = Type.Object(
  {
    id: Type.String(),
    at: Timestamp(),
    kind: Type.Unsafe<'updated' | 'merged' | 'exported' | 'erased'>({
      type: 'string',
      enum: ['updated', 'merged', 'exported', 'erased'],
    }),
    actor: Type.Object(
      {
        type: Type.Unsafe<'key' | 'user' | 'cli' | 'retention'>({
          type: 'string',
          enum: ['key', 'user', 'cli', 'retention'],
          description: 'An API key, a dashboard user, the command line, or the retention run.',
        }),
        id: NullableString({ description: 'key_… or usr_…; null for the command line and retention.' }),
        name: NullableString({ description: 'The key’s or user’s name then.' }),
      },
      { additionalProperties: false },
    ),
    detail: Type.Record(Type.String(), Type.Unknown(), {
      description: 'updated: `{ changed, from, to }`; merged: `{ from }`; exported and erased: `{}`.',
    }),
  },
  { additionalProperties: false, title: 'CustomerActivity' },
);

export const PersonalDataExportSchema = Type.Object(
  {
    exportedAt: Timestamp('When this document was made.'),
    brand: Type.Object(
      { id: Type.String(), name: Type.String() },
      { additionalProperties: false, description: 'Whose data this is: the brand that holds it.' },
    ),
    // As GET /v1/customers/{id} reads it: an erased customer with `erased`, `erasedAt` and no contact.
    customer: CustomerDetailSchema,
    addresses: Type.Array(AddressSchema, {
      description: 'Every address of the customer, oldest first, as GET /v1/addresses reads them.',
    }),
    leads: Type.Array(ExportedLeadSchema, {
      description:
        'Every lead and work item of the customer, in any state and spam too, oldest first: each as GET /v1/leads/{id} reads it (submitted contact, address, status history, attachments’ metadata, consent, extra fields, attribution), plus `spam`, its `internalNotes` (the notes staff wrote; `notes` is the lead’s own field) and its `activity`.',
    }),
    activity: Type.Array(CustomerActivitySchema, {
      description: 'What was done to the customer (edits, merges, exports, erasure), oldest first.',
    }),
  },
  { additionalProperties: false, title: 'PersonalDataExport' },
);
export type PersonalDataExport = Static<typeof PersonalDataExportSchema>;

/** Who exports: an API key, a dashboard user, or the command line (customers/activity.ts). */
export type ExportActor = CustomerActor;

/** Where an export logs its one line: a request's logger, or the command line's. */
export interface ExportLog {
  info(fields: Record<string, unknown>, message: string): void;
}

/** The export's file name: `personal-data-cus_….json` (or `.zip`). */
export function exportFileName(customerId: string, extension: 'json' | 'zip'): string {
  return `personal-data-${customerId.replace(/[^A-Za-z0-9_]/g, '')}.${extension}`;
}

/** The document and what a ZIP of it needs besides: the brand's language (its README's). */
export interface BuiltExport {
  document: PersonalDataExport;
  brandId: string;
  language: Locale;
}

/**
 * Builds the export of the brand's customer, records it in the customer's activity (`exported`, by `actor`) and
 * logs one line with ids only. NotFoundError for an unknown customer or another brand's. An erased customer's
 * export is their erased read (getCustomer) and nothing else: the brand holds no personal data of theirs any more.
 */
export async function exportPersonalData(
  store: Store,
  brandId: string,
  customerId: string,
  actor: ExportActor,
  log: ExportLog,
): Promise<BuiltExport> {
  const brand = await findBrand(store, brandId);
  if (!brand) throw new NotFoundError(`No customer with id ${customerId}`);
  const erasedAt = await erasedAtOrMissing(store, brandId, customerId);
  const exportedAt = new Date().toISOString();
  const customer = await getCustomer(store, brandId, customerId);
  const brandRef = { id: brand.id, name: brand.name };
  // Erased: the erased read and nothing else (what stays of their leads is the business's, not theirs).
  const document: PersonalDataExport =
    erasedAt !== null
      ? { exportedAt, brand: brandRef, customer, addresses: [], leads: [], activity: [] }
      : {
          exportedAt,
          brand: brandRef,
          customer,
          addresses: await listCustomerAddresses(store, brandId, customerId),
          leads: await customerLeadsForExport(store, brandId, customerId),
          activity: await listCustomerActivity(store, brandId, customerId),
        };
  await store.write((tx) =>
    recordCustomerActivity(tx, { brandId, customerId, kind: 'exported', actor, at: Date.parse(exportedAt) }),
  );
  log.info(
    { brandId, customerId, actor: { type: actor.type, id: actor.id }, kind: 'exported' },
    'personal data exported',
  );
  return { document, brandId, language: brand.language };
}
