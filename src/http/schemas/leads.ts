import { type TProperties, Type } from '@sinclair/typebox';
import { LEAD_FIELDS, parseLeadInput } from '../../domain/lead-input.js';
import { parseStatusChange } from '../../domain/leads.js';
import { ALL_STATUSES, LEAD_STATUSES, PRIORITIES, WORK_ITEM_STATUSES } from '../../domain/states.js';
import { ListQuery, listEnvelope, NullableString, parsedBy, Timestamp, TimestampParam } from './common.js';

/**
 * The lead body, generated from the same field table the validator uses, so docs and rules cannot drift.
 * Handlers receive parseLeadInput's LeadInput (trimmed, normalised), not this JSON.
 */
export const LeadCreateBody = (() => {
  const properties: TProperties = {};
  for (const f of LEAD_FIELDS) {
    const base = { description: `${f.description} (${f.group})`, maxLength: f.maxLength };
    const schema =
      f.format === 'priority'
        ? Type.String({ ...base, enum: [...PRIORITIES], default: 'medium' })
        : f.format === 'email'
          ? Type.String({ ...base, format: 'email' })
          : f.format === 'phone'
            ? Type.String({ ...base, pattern: '^\\+', examples: ['+31 6 1234 5678'] })
            : f.format === 'country'
              ? Type.String({ ...base, minLength: 2, pattern: '^[A-Za-z]{2}$' })
              : Type.String({ ...base, ...(f.required ? { minLength: 1 } : {}) });
    // TypeBox derives `required` from the properties: optional fields must be marked, or the document requires all.
    properties[f.name] = f.required ? schema : Type.Optional(schema);
  }
  const schema = Type.Object(properties, {
    additionalProperties: false,
    title: 'LeadCreate',
    description:
      'Address, customer and job fields sent flat. Strings are trimmed; empty optional fields count as absent; unknown fields are rejected.',
    // The validator in domain/lead-input.ts handles this body (trimming, all errors at once, normalisation).
    'x-validator': 'lead-create',
  });
  return parsedBy(parseLeadInput, schema);
})();

const StatusSchema = Type.String({ enum: [...ALL_STATUSES] });

export const CreatedLeadSchema = Type.Object(
  {
    id: Type.String({ description: 'wrk_… identifier; keep it to read the lead later.' }),
    brandId: Type.String(),
    customerId: Type.String(),
    addressId: Type.String(),
    title: Type.String(),
    description: NullableString(),
    status: StatusSchema,
    priority: Type.String({ enum: [...PRIORITIES] }),
    source: Type.String({ description: '"website" for leads created through the API.' }),
    receivedAt: Timestamp(),
    createdAt: Timestamp(),
  },
  { additionalProperties: false, title: 'CreatedLead' },
);

const CustomerSummary = Type.Object(
  { id: Type.String(), name: Type.String(), email: NullableString(), phone: NullableString() },
  { additionalProperties: false },
);
const AddressSummary = Type.Object(
  {
    id: Type.String(),
    street: Type.String(),
    streetNumber: NullableString(),
    postalCode: Type.String(),
    city: Type.String(),
  },
  { additionalProperties: false },
);

export const LeadListItemSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    status: StatusSchema,
    priority: Type.String(),
    receivedAt: Timestamp(),
    updatedAt: Timestamp(),
    customer: CustomerSummary,
    address: AddressSummary,
  },
  { additionalProperties: false, title: 'LeadListItem' },
);

export const WorkItemListItemSchema = Type.Object(
  {
    ...LeadListItemSchema.properties,
    scheduledAt: NullableString({ format: 'date-time', description: 'When the item was scheduled.' }),
  },
  { additionalProperties: false, title: 'WorkItemListItem' },
);

export const LeadDetailSchema = Type.Object(
  {
    ...CreatedLeadSchema.properties,
    category: NullableString(),
    budgetQuote: NullableString(),
    notes: NullableString(),
    sourceKeyName: NullableString({ description: 'Name of the API key the lead came in with.' }),
    updatedAt: Timestamp(),
    scheduledAt: NullableString({ format: 'date-time' }),
    customer: Type.Object(
      {
        id: Type.String(),
        type: Type.String({ enum: ['person', 'business'] }),
        name: Type.String(),
        firstName: NullableString(),
        lastName: NullableString(),
        email: NullableString(),
        phone: NullableString({ description: 'E.164' }),
        companyName: NullableString(),
      },
      { additionalProperties: false },
    ),
    address: Type.Object(
      {
        id: Type.String(),
        street: Type.String(),
        streetNumber: NullableString(),
        streetNumberAddition: NullableString(),
        postalCode: Type.String(),
        city: Type.String(),
        country: Type.String(),
      },
      { additionalProperties: false },
    ),
    statusHistory: Type.Array(
      Type.Object({ status: StatusSchema, at: Timestamp() }, { additionalProperties: false }),
      { description: 'Every state the lead has been in, oldest first.' },
    ),
  },
  { additionalProperties: false, title: 'Lead' },
);

function listQuery(statuses: readonly string[]) {
  return Type.Object(
    {
      ...ListQuery,
      receivedAfter: TimestampParam('ISO 8601; only items received after it (exclusive).'),
      receivedBefore: TimestampParam('ISO 8601; only items received before it (exclusive).'),
      updatedAfter: TimestampParam('ISO 8601; only items changed after it (exclusive).'),
      status: Type.Optional(
        Type.String({
          description: `One or more of ${statuses.join(', ')}, comma-separated.`,
          maxLength: 200,
          pattern: `^\\s*(${statuses.join('|')})\\s*(,\\s*(${statuses.join('|')})\\s*)*$`,
          'x-error': `must be one or more of ${statuses.join(', ')} (comma-separated)`,
        }),
      ),
    },
    { additionalProperties: false },
  );
}

export const LeadListQuerySchema = listQuery(LEAD_STATUSES);
export const WorkItemListQuerySchema = listQuery(WORK_ITEM_STATUSES);
export const LeadListResponse = listEnvelope(LeadListItemSchema, 'LeadList');
export const WorkItemListResponse = listEnvelope(WorkItemListItemSchema, 'WorkItemList');

/** Handlers receive parseStatusChange's Status, not this JSON. */
export const StatusChangeBody = parsedBy(
  parseStatusChange,
  Type.Object(
    { status: Type.String({ enum: [...ALL_STATUSES], description: 'The state to move to.' }) },
    {
      additionalProperties: false,
      required: ['status'],
      title: 'StatusChange',
      'x-validator': 'status-change',
    },
  ),
);
