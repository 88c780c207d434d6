import { Type } from '@sinclair/typebox';
import { AttachmentSchema } from '../../attachments/attachments.js';
import { CustomerSchema } from '../../customers/customers.js';
import { NoteSchema } from '../../leads/api/note-schemas.js';
import { LeadDetailSchema } from '../../leads/api/schemas.js';
import { ALL_STATUSES } from '../../leads/states.js';
import { ListQuery, listEnvelope, Timestamp } from '../../platform/http/schemas.js';
import { EVENT_TYPES } from '../events.js';

export const EventSchema = Type.Object(
  {
    id: Type.String({ description: 'evt_… identifier; receivers de-duplicate by it.' }),
    type: Type.String({ enum: [...EVENT_TYPES] }),
    createdAt: Timestamp('When the change happened (committed in the same transaction).'),
    data: Type.Object(
      {
        lead: Type.Optional(LeadDetailSchema),
        customer: Type.Optional(
          Type.Union([
            CustomerSchema,
            Type.Object(
              { id: Type.String({ description: 'cus_… identifier of the erased customer.' }) },
              { additionalProperties: false, title: 'ErasedCustomerRef' },
            ),
          ]),
        ),
        changed: Type.Optional(
          Type.Array(Type.String(), {
            description: 'customer.updated and lead.updated: the fields that changed.',
          }),
        ),
        note: Type.Optional(NoteSchema),
        attachment: Type.Optional(AttachmentSchema),
        leadId: Type.Optional(
          Type.String({
            description:
              'note.created: the lead or work item the note is on. The lead itself is left out (notes are small, leads are not): read it with GET /v1/leads/{id}.',
          }),
        ),
        from: Type.Optional(
          Type.Union([
            Type.String({ enum: [...ALL_STATUSES], description: 'lead.status_changed: the state before.' }),
            Type.Object(
              {
                id: Type.String({
                  description: 'cus_… identifier of the customer merged away (it answers 404 now).',
                }),
              },
              {
                additionalProperties: true,
                title: 'MergedCustomerRef',
                description: 'customer.merged: the customer that was merged into `customer`, as it was.',
              },
            ),
          ]),
        ),
        erasedAt: Type.Optional(Timestamp('customer.erased: when the customer was erased.')),
        to: Type.Optional(
          Type.String({ enum: [...ALL_STATUSES], description: 'lead.status_changed: the state after.' }),
        ),
      },
      {
        additionalProperties: false,
        description:
          'lead.* events: `lead` is the single-lead read as it is after the change. customer.* events: `customer` as it is after the change; customer.merged also `from`, the customer merged away; customer.erased only `customer.id` and `erasedAt`, so connected systems can erase that person too. note.created: `note` and `leadId`. attachment.created and attachment.deleted: `attachment`, the file’s metadata (as it was, for a deletion), never its bytes.',
      },
    ),
  },
  {
    additionalProperties: false,
    title: 'Event',
    description: 'The same JSON is the body of a webhook delivery.',
  },
);

export const EventListQuerySchema = Type.Object(
  {
    ...ListQuery,
    type: Type.Optional(
      Type.String({
        maxLength: 200,
        description: `Only events of these types: one or more of ${EVENT_TYPES.join(', ')}, comma-separated.`,
      }),
    ),
    createdAfter: Type.Optional(
      Type.String({ description: 'ISO 8601; only events created after it (exclusive).' }),
    ),
  },
  { additionalProperties: false },
);

export const EventListResponse = listEnvelope(EventSchema, 'EventList');
