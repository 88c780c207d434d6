// Examples for the OpenAPI document, taken from real responses (ids, times and text as the service writes them).
// The lead's field values are the field table's examples (leads/fields.ts), read as the service reads a body, so
// a new field is in every example at once. Typed with the response types, so an example cannot lose a field the
// schema requires; the lint and response tests check them against the document too.
import type { TSchema } from '@sinclair/typebox';
import { AddressSchema } from '../customers/addresses.js';
import { type Customer, type CustomerDetail, CustomerSchema } from '../customers/customers.js';
import { type LeadFieldsWhere, leadBodyExample, leadFieldsWhere, readNameOf } from '../leads/fields.js';
import {
  CREATED_FIELDS,
  type CreatedLead,
  type LeadDetail,
  LeadDetailSchema,
  type LeadListItem,
  LeadListItemSchema,
  type Note,
  type WorkItemListItem,
} from '../leads/index.js';
import { parseLeadInput, submittedOf } from '../leads/input.js';
import { type PersonalDataExport, PersonalDataExportSchema } from '../personal-data/export.js';
import { EVENT_TYPES } from '../webhooks/events.js';

/** The create body's example: the field table's example values (leads/fields.ts), as sent. */
export const LEAD_BODY_EXAMPLE = leadBodyExample();
/** That body as the service reads it (trimmed, the phone in E.164): what the lead below holds. */
const INPUT = parseLeadInput(LEAD_BODY_EXAMPLE);

/** The input's values of the fields of a group, by their read names (customerName as the customer's name). */
function valuesOf(group: 'job' | 'customer' | 'address'): Record<string, unknown> {
  return Object.fromEntries(leadFieldsWhere({ group }).map((name) => [readNameOf(name), INPUT[name]]));
}

/**
 * `value` with the keys of an object schema, in its order, nested objects likewise: so an example follows the
 * schema it illustrates (a list item is the lead's example cut to the list's fields).
 */
function inSchemaOrder(schema: TSchema, value: unknown): unknown {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties;
  if (!properties || value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(properties).map(([key, property]) => [
      key,
      inSchemaOrder(property, (value as Record<string, unknown>)[key]),
    ]),
  );
}

const CREATED_AT = '2026-11-24T13:20:50.965Z';
const CUSTOMER_ID = 'cus_cgayhqrssy2sbx1yhb4hcqc5t4';
const ADDRESS_ID = 'adr_5essn55zem9vmpnr1nw1qp4kht';

export const LEAD_EXAMPLE = inSchemaOrder(LeadDetailSchema, {
  id: 'wrk_01m86veqrn19z74s8skcy4mytv',
  brandId: 'brd_01m86veqpyec51mw3kn0ycp5d5',
  customerId: CUSTOMER_ID,
  addressId: ADDRESS_ID,
  ...(valuesOf('job') as Pick<LeadDetail, LeadFieldsWhere<{ group: 'job' }>>),
  status: 'request',
  source: 'website',
  receivedAt: CREATED_AT,
  createdAt: CREATED_AT,
  sourceKeyName: 'key full',
  updatedAt: CREATED_AT,
  scheduledAt: null,
  scheduledFor: null,
  durationMinutes: null,
  assignee: null,
  submitted: submittedOf(INPUT),
  sourceFormId: null,
  sourceFormName: null,
  sourceUserId: null,
  sourceUserName: null,
  extraFields: null,
  attribution: null,
  consent: null,
  customer: {
    id: CUSTOMER_ID,
    type: INPUT.companyName ? 'business' : 'person',
    ...(valuesOf('customer') as Omit<LeadDetail['customer'], 'id' | 'type'>),
  },
  address: {
    id: ADDRESS_ID,
    ...(valuesOf('address') as Omit<LeadDetail['address'], 'id'>),
    // The brand's default country, as no country was sent.
    country: INPUT.country ?? 'NL',
  },
  statusHistory: [
    {
      status: 'request',
      at: CREATED_AT,
      actor: { type: 'key', id: 'key_01m86veqq4109swmvy25w2e15m', name: 'key full' },
      reason: null,
    },
  ],
  attachments: [],
} satisfies LeadDetail) as LeadDetail;
/** The create's answer: the fields of the lead above that it carries. */
export const CREATED_LEAD_EXAMPLE = Object.fromEntries(
  CREATED_FIELDS.map((field) => [field, LEAD_EXAMPLE[field]]),
) as CreatedLead;
/** The lead above as a list has it. */
export const LEAD_LIST_ITEM_EXAMPLE = inSchemaOrder(LeadListItemSchema, {
  ...LEAD_EXAMPLE,
  attachmentCount: 0,
}) as LeadListItem;
export const WORK_ITEM_LIST_ITEM_EXAMPLE = {
  ...LEAD_LIST_ITEM_EXAMPLE,
  status: 'scheduled',
  updatedAt: '2026-11-24T13:20:51.008Z',
  scheduledAt: '2026-11-24T13:20:51.008Z',
  scheduledFor: null,
  durationMinutes: null,
  assignee: null,
} satisfies WorkItemListItem;
/** PATCH /v1/leads/{id}'s answer when the plan it saved overlaps another visit of the same person. */
export const LEAD_PATCH_RESULT_EXAMPLE = {
  ...LEAD_EXAMPLE,
  status: 'scheduled',
  updatedAt: '2026-11-24T13:20:51.008Z',
  scheduledAt: '2026-11-24T13:20:51.008Z',
  scheduledFor: '2026-11-26T08:00:00.000Z',
  durationMinutes: 90,
  assignee: { id: 'usr_01m86vd1x3c5v7b9n1m3k5j7h9', name: 'Ann de Vries' },
  statusHistory: [
    ...LEAD_EXAMPLE.statusHistory,
    {
      status: 'scheduled',
      at: '2026-11-24T13:20:51.008Z',
      actor: { type: 'key', id: 'key_01m86veqq4109swmvy25w2e15m', name: 'key full' },
      reason: null,
    },
  ],
  warnings: [
    {
      code: 'visit_overlap',
      detail:
        'Ann de Vries has another visit at that time: "Boiler service" (wrk_01m86vf2a4c6e8g0j2m4p6r8t0) at 2026-11-26T09:00:00.000Z for 60 minutes. Both are kept.',
      visit: {
        id: 'wrk_01m86vf2a4c6e8g0j2m4p6r8t0',
        title: 'Boiler service',
        scheduledFor: '2026-11-26T09:00:00.000Z',
        durationMinutes: 60,
      },
    },
  ],
};
export const NOTE_EXAMPLE = {
  id: 'not_01m86veqtz185ks7a6brz7sfn4',
  text: 'Customer prefers mornings.',
  author: { type: 'key', id: 'key_01m86veqq4109swmvy25w2e15m', name: 'key full' },
  createdAt: '2026-11-24T13:20:51.039Z',
} satisfies Note;
/** The lead's customer as the customers API has it. */
export const CUSTOMER_EXAMPLE = inSchemaOrder(CustomerSchema, {
  ...LEAD_EXAMPLE.customer,
  createdAt: CREATED_AT,
  updatedAt: CREATED_AT,
}) as Customer;
export const CUSTOMER_DETAIL_EXAMPLE = {
  ...CUSTOMER_EXAMPLE,
  leadCount: 1,
  lastLeadAt: CREATED_AT,
} satisfies CustomerDetail;
/** The lead's address as the addresses API has it. */
export const ADDRESS_EXAMPLE = inSchemaOrder(AddressSchema, {
  ...LEAD_EXAMPLE.address,
  customerId: CUSTOMER_ID,
  createdAt: CREATED_AT,
  updatedAt: CREATED_AT,
}) as Record<string, unknown>;
/** The lead's customer's personal-data export (GET /v1/customers/{id}/export), exported once before. */
export const PERSONAL_DATA_EXPORT_EXAMPLE = inSchemaOrder(PersonalDataExportSchema, {
  exportedAt: '2026-11-28T09:12:03.114Z',
  brand: { id: LEAD_EXAMPLE.brandId, name: 'Acme Plumbing' },
  customer: CUSTOMER_DETAIL_EXAMPLE,
  addresses: [ADDRESS_EXAMPLE as unknown as PersonalDataExport['addresses'][number]],
  leads: [
    {
      ...LEAD_EXAMPLE,
      spam: false,
      internalNotes: [NOTE_EXAMPLE],
      activity: [
        {
          id: 'act_01m86vf3k2b8c9d0e1f2g3h4j5',
          at: '2026-11-24T13:25:10.402Z',
          kind: 'customer_details_applied',
          actor: { type: 'user', id: 'usr_01m86vd1x3c5v7b9n1m3k5j7h9', name: 'Office' },
          detail: { customerId: CUSTOMER_ID, changed: ['phone'] },
        },
      ],
    },
  ],
  activity: [
    {
      id: 'act_01m9a2k7q4r5s6t7v8w9x0y1z2',
      at: '2026-11-27T16:40:00.000Z',
      kind: 'exported',
      actor: { type: 'key', id: 'key_01m86veqq4109swmvy25w2e15m', name: 'key full' },
      detail: {},
    },
  ],
} satisfies PersonalDataExport) as PersonalDataExport;
export const EVENT_EXAMPLES = {
  'note.created': {
    id: 'evt_01m86veqtz185ks7a6brz7sfn5',
    type: 'note.created',
    createdAt: '2026-11-24T13:20:51.039Z',
    data: {
      note: {
        id: 'not_01m86veqtz185ks7a6brz7sfn4',
        text: 'Customer prefers mornings.',
        author: { type: 'key', id: 'key_01m86veqq4109swmvy25w2e15m', name: 'key full' },
        createdAt: '2026-11-24T13:20:51.039Z',
      },
      leadId: 'wrk_01m86veqrn19z74s8skcy4mytv',
    },
  },
  'lead.status_changed': {
    id: 'evt_01m86veqt0a016nsctjwe2308d',
    type: 'lead.status_changed',
    createdAt: '2026-11-24T13:20:51.008Z',
    data: {
      lead: {
        ...LEAD_EXAMPLE,
        status: 'scheduled',
        updatedAt: '2026-11-24T13:20:51.008Z',
        scheduledAt: '2026-11-24T13:20:51.008Z',
        statusHistory: [
          ...LEAD_EXAMPLE.statusHistory,
          {
            status: 'scheduled',
            at: '2026-11-24T13:20:51.008Z',
            actor: { type: 'key', id: 'key_01m86veqq4109swmvy25w2e15m', name: 'key full' },
            reason: null,
          },
        ],
      },
      from: 'request',
      to: 'scheduled',
    },
  },
  'lead.created': {
    id: 'evt_01m86veqrn19z74s8skcy4mytw',
    type: 'lead.created',
    createdAt: '2026-11-24T13:20:50.965Z',
    data: {
      lead: LEAD_EXAMPLE,
    },
  },
};
export const WEBHOOK_ENDPOINT_EXAMPLE = {
  id: 'whk_01m86vf2k8d3q5r7t9v1x3z5b7',
  url: 'https://example.com/hooks/lead-intake',
  description: null,
  events: [...EVENT_TYPES],
  enabled: true,
  createdAt: '2026-11-24T13:21:02.114Z',
  updatedAt: '2026-11-24T13:21:02.114Z',
  disabledAt: null,
  disabledReason: null,
};
export const FORM_EXAMPLE = {
  id: 'frm_01m86veqwa9tgp4pvbzsq2gnrr',
  name: 'Website contact form',
  allowedOrigins: ['https://www.example.nl'],
  redirectUrl: null,
  honeypotField: '_gotcha',
  captcha: null,
  consentText: null,
  autoReply: false,
  defaults: { priority: null, category: null },
  enabled: true,
  language: 'nl',
  fields: [
    { name: 'title', required: true },
    { name: 'description', required: true },
    { name: 'customerName', required: true },
    { name: 'email', required: false },
    { name: 'phone', required: false },
    { name: 'street', required: true },
    { name: 'streetNumber', required: false },
    { name: 'postalCode', required: true },
    { name: 'city', required: true },
  ],
  questions: [
    {
      key: 'boilerType',
      label: 'Wat voor ketel heeft u?',
      type: 'select',
      options: ['Combiketel', 'Solo-ketel', 'Weet ik niet'],
      required: true,
    },
  ],
  endpoint: 'https://leads.example.com/f/frm_01m86veqwa9tgp4pvbzsq2gnrr',
  snippet:
    '<form method="post" action="https://leads.example.com/f/frm_01m86veqwa9tgp4pvbzsq2gnrr" accept-charset="utf-8">…</form>',
  createdAt: '2026-11-24T13:20:51.082Z',
  updatedAt: '2026-11-24T13:20:51.082Z',
};
