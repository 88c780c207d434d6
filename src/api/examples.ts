// Examples for the OpenAPI document, taken from real responses (ids, times and text as the service writes them).
// Typed with the response types, so an example cannot lose a field the schema requires; the lint and response
// tests check them against the document too.
import type { Customer, CustomerDetail } from '../customers/customers.js';
import {
  CREATED_FIELDS,
  type CreatedLead,
  type LeadDetail,
  type LeadListItem,
  type Note,
  type WorkItemListItem,
} from '../leads/index.js';

export const LEAD_EXAMPLE = {
  id: 'wrk_01m86veqrn19z74s8skcy4mytv',
  brandId: 'brd_01m86veqpyec51mw3kn0ycp5d5',
  customerId: 'cus_cgayhqrssy2sbx1yhb4hcqc5t4',
  addressId: 'adr_5essn55zem9vmpnr1nw1qp4kht',
  title: 'Leaking tap in the kitchen',
  description: 'Drips since Monday.',
  status: 'request',
  priority: 'high',
  source: 'website',
  receivedAt: '2026-11-24T13:20:50.965Z',
  createdAt: '2026-11-24T13:20:50.965Z',
  category: null,
  budgetQuote: null,
  notes: null,
  sourceKeyName: 'key full',
  updatedAt: '2026-11-24T13:20:50.965Z',
  scheduledAt: null,
  scheduledFor: null,
  durationMinutes: null,
  assignee: null,
  submitted: {
    customerName: 'Anna de Vries',
    firstName: null,
    lastName: null,
    email: 'anna@example.com',
    phone: '+31612345678',
    companyName: null,
    street: 'Keizersgracht',
    streetNumber: '123',
    streetNumberAddition: null,
    postalCode: '1015 CJ',
    city: 'Amsterdam',
    country: null,
  },
  sourceFormId: null,
  sourceFormName: null,
  sourceUserId: null,
  sourceUserName: null,
  extraFields: null,
  attribution: null,
  consent: null,
  customer: {
    id: 'cus_cgayhqrssy2sbx1yhb4hcqc5t4',
    type: 'person',
    name: 'Anna de Vries',
    firstName: null,
    lastName: null,
    email: 'anna@example.com',
    phone: '+31612345678',
    companyName: null,
  },
  address: {
    id: 'adr_5essn55zem9vmpnr1nw1qp4kht',
    street: 'Keizersgracht',
    streetNumber: '123',
    streetNumberAddition: null,
    postalCode: '1015 CJ',
    city: 'Amsterdam',
    country: 'NL',
  },
  statusHistory: [
    {
      status: 'request',
      at: '2026-11-24T13:20:50.965Z',
      actor: { type: 'key', id: 'key_01m86veqq4109swmvy25w2e15m', name: 'key full' },
      reason: null,
    },
  ],
} satisfies LeadDetail;
/** The create's answer: the fields of the lead above that it carries. */
export const CREATED_LEAD_EXAMPLE = Object.fromEntries(
  CREATED_FIELDS.map((field) => [field, LEAD_EXAMPLE[field]]),
) as CreatedLead;
export const LEAD_LIST_ITEM_EXAMPLE = {
  id: 'wrk_01m86veqrn19z74s8skcy4mytv',
  title: 'Leaking tap in the kitchen',
  status: 'request',
  priority: 'high',
  receivedAt: '2026-11-24T13:20:50.965Z',
  updatedAt: '2026-11-24T13:20:50.965Z',
  source: 'website',
  sourceFormName: null,
  customer: {
    id: 'cus_cgayhqrssy2sbx1yhb4hcqc5t4',
    name: 'Anna de Vries',
    email: 'anna@example.com',
    phone: '+31612345678',
    companyName: null,
  },
  address: {
    id: 'adr_5essn55zem9vmpnr1nw1qp4kht',
    street: 'Keizersgracht',
    streetNumber: '123',
    postalCode: '1015 CJ',
    city: 'Amsterdam',
  },
} satisfies LeadListItem;
export const WORK_ITEM_LIST_ITEM_EXAMPLE = {
  ...LEAD_LIST_ITEM_EXAMPLE,
  status: 'scheduled',
  updatedAt: '2026-11-24T13:20:51.008Z',
  scheduledAt: '2026-11-24T13:20:51.008Z',
  scheduledFor: null,
  durationMinutes: null,
  assignee: null,
} satisfies WorkItemListItem;
export const NOTE_EXAMPLE = {
  id: 'not_01m86veqtz185ks7a6brz7sfn4',
  text: 'Customer prefers mornings.',
  author: { type: 'key', id: 'key_01m86veqq4109swmvy25w2e15m', name: 'key full' },
  createdAt: '2026-11-24T13:20:51.039Z',
} satisfies Note;
export const CUSTOMER_EXAMPLE = {
  id: 'cus_cgayhqrssy2sbx1yhb4hcqc5t4',
  type: 'person',
  name: 'Anna de Vries',
  firstName: null,
  lastName: null,
  companyName: null,
  email: 'anna@example.com',
  phone: '+31612345678',
  createdAt: '2026-11-24T13:20:50.965Z',
  updatedAt: '2026-11-24T13:20:50.965Z',
} satisfies Customer;
export const CUSTOMER_DETAIL_EXAMPLE = {
  ...CUSTOMER_EXAMPLE,
  leadCount: 1,
  lastLeadAt: '2026-11-24T13:20:50.965Z',
} satisfies CustomerDetail;
export const ADDRESS_EXAMPLE = {
  id: 'adr_5essn55zem9vmpnr1nw1qp4kht',
  customerId: 'cus_cgayhqrssy2sbx1yhb4hcqc5t4',
  street: 'Keizersgracht',
  streetNumber: '123',
  streetNumberAddition: null,
  postalCode: '1015 CJ',
  city: 'Amsterdam',
  country: 'NL',
  createdAt: '2026-11-24T13:20:50.965Z',
  updatedAt: '2026-11-24T13:20:50.965Z',
};
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
  events: [
    'lead.created',
    'lead.status_changed',
    'lead.updated',
    'note.created',
    'customer.created',
    'customer.updated',
  ],
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
  endpoint: 'https://leads.example.com/f/frm_01m86veqwa9tgp4pvbzsq2gnrr',
  snippet:
    '<form method="post" action="https://leads.example.com/f/frm_01m86veqwa9tgp4pvbzsq2gnrr" accept-charset="utf-8">…</form>',
  createdAt: '2026-11-24T13:20:51.082Z',
  updatedAt: '2026-11-24T13:20:51.082Z',
};
