// The field tables (src/leads/fields.ts, src/customers/fields.ts) and everything derived from them: a field that a
// derived list cannot place (no form order, no label, no column, a schema or page without it, an editable field
// an edit does not save) fails here, not silently on a website form or in the office.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEAD_BODY_EXAMPLE, LEAD_EXAMPLE, LEAD_LIST_ITEM_EXAMPLE } from '../../src/api/examples.js';
import { ADDRESS_FIELDS, CONTACT_FIELDS, CUSTOMER_FIELD_LABELS } from '../../src/customers/fields.js';
import { formFieldLabel, formMarkup } from '../../src/forms/views.js';
import { LeadCreateBody } from '../../src/leads/api/schemas.js';
import {
  editLeadPage,
  editLeadValues,
  leadFieldLabels,
  newLeadPage,
  newLeadValues,
} from '../../src/leads/dashboard/views/lead-form.js';
import {
  formFieldNames,
  LEAD_FIELD_TABLE,
  type LeadFieldName,
  leadField,
  leadFieldsWhere,
  newLeadFieldNames,
  readNameOf,
} from '../../src/leads/fields.js';
import { LeadDetailSchema, LeadListItemSchema } from '../../src/leads/index.js';
import { LEAD_FIELDS, parseLeadInput, SUBMITTED_FIELDS } from '../../src/leads/input.js';
import { LEAD_EXPORT_SHAPE } from '../../src/leads/shape.js';
import { EDITABLE_ADDRESS_FIELDS, EDITABLE_FIELDS, EDITABLE_JOB_FIELDS } from '../../src/leads/update.js';
import { CATALOGS, translator } from '../../src/shared/i18n/index.js';
import { parseCsv } from '../csv.js';
import { addUser, type Browser, signedIn } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

/** The default attachment limits (ATTACHMENT_MAX_BYTES, 10 files a post), for the photos field's hint. */
const FILE_LIMITS = { maxFilesPerPost: 10, maxFileBytes: 10 * 1024 * 1024 };

const NAMES = Object.keys(LEAD_FIELD_TABLE) as LeadFieldName[];
const EN = translator('en');
const LEAD_FIELD_LABELS = leadFieldLabels(EN);
const TABLE_OF = { job: 'leads', customer: 'customers', address: 'addresses' } as const;

/** Where a read of a lead has a field: `title`, `customer.name`, `address.city`. */
function readPath(name: LeadFieldName): string {
  const { group } = leadField(name);
  return group === 'job' ? name : `${group}.${readNameOf(name)}`;
}

/** The lead fields' names of a form or page, in its order (inputs, selects and textareas named like fields). */
function fieldsIn(markup: string): string[] {
  const names = [...markup.matchAll(/<(?:input|select|textarea) id="field-[^"]+" name="([^"]+)"/g)].map(
    (m) => m[1]!,
  );
  return names.filter((name) => (NAMES as string[]).includes(name));
}

const USER = {
  sessionId: 'ses_1',
  csrfToken: 'token',
  userId: 'usr_1',
  email: 'office@example.com',
  name: null,
  role: 'owner' as const,
  brandId: 'brd_1',
  brandName: 'Acme',
  timeZone: 'Europe/Amsterdam',
  brandCountry: 'NL',
  locale: 'en' as const,
  expiresAt: Date.now() + 60_000,
};

const FORM = {
  id: 'frm_1',
  name: 'Website',
  allowedOrigins: [],
  redirectUrl: null,
  honeypotField: '_gotcha',
  captcha: null,
  consentText: null,
  autoReply: false,
  defaults: { priority: null, category: null },
  enabled: true,
  createdAt: '2026-11-24T13:20:50.965Z',
  updatedAt: '2026-11-24T13:20:50.965Z',
  language: 'en' as const,
  // Every field a form can show (a form made before forms chose their fields shows them all).
  fields: formFieldNames().map((name) => ({ name, required: leadField(name).required })),
  questions: [],
};

describe('the field table', () => {
  it('declares every field with a label, a column and its group, and nothing twice', () => {
    expect(NAMES.length).toBeGreaterThan(10);
    const keys = NAMES.map((name) => leadField(name).label);
    expect(new Set(keys).size).toBe(keys.length);
    for (const name of NAMES) {
      const f = leadField(name);
      expect(CATALOGS.en[f.label], name).toMatch(/\S/);
      expect(CATALOGS.nl[f.label], name).toMatch(/\S/);
      expect(f.label, name).toMatch(/^[a-z]+\.field\.[A-Za-z]+$/);
      expect(f.column, name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(['job', 'customer', 'address'], name).toContain(f.group);
      expect(f.maxLength, name).toBeGreaterThan(0);
    }
    // Every contact and address field of the customers' table is a lead field, and no other is.
    expect(leadFieldsWhere({ group: 'customer' }).map(readNameOf)).toEqual(Object.keys(CONTACT_FIELDS));
    expect(leadFieldsWhere({ group: 'address' })).toEqual(Object.keys(ADDRESS_FIELDS));
  });

  it('a job field is edited on the lead, a contact field in the customer’s record, an address on the lead', () => {
    for (const name of NAMES) {
      const { group, editedOn } = leadField(name);
      if (editedOn === null) continue;
      expect(editedOn, name).toBe(group === 'customer' ? 'customer' : 'lead');
    }
  });

  it('every listed field is exported; every required field has an example', () => {
    for (const name of leadFieldsWhere({ listed: true })) expect(leadField(name).exported, name).toBe(true);
    for (const name of leadFieldsWhere({ required: true }))
      expect(leadField(name).example, name).toBeDefined();
  });

  it('the input rules are the table’s, in its order; the submitted copy holds every contact and address field', () => {
    expect(LEAD_FIELDS.map((f) => f.name)).toEqual(NAMES);
    for (const rule of LEAD_FIELDS) {
      const f = leadField(rule.name as LeadFieldName);
      expect(rule).toMatchObject({ required: f.required, maxLength: f.maxLength, group: f.group });
    }
    expect([...SUBMITTED_FIELDS].sort()).toEqual(
      [...leadFieldsWhere({ group: 'customer' }), ...leadFieldsWhere({ group: 'address' })].sort(),
    );
  });
});

describe('labels', () => {
  it('the public form, the office and the customer pages name every field of the table', () => {
    for (const name of NAMES) {
      const f = leadField(name);
      expect(formFieldLabel(EN, name), name).toBe(EN.t(f.formLabel ?? f.label));
      expect(LEAD_FIELD_LABELS[name], name).toBe(EN.t(f.label));
    }
    for (const [name, f] of Object.entries(CONTACT_FIELDS)) expect(CUSTOMER_FIELD_LABELS[name]).toBe(f.label);
  });
});

describe('the public website form', () => {
  it('asks for exactly the fields with a form order, in that order, each with its label', () => {
    const onForm = leadFieldsWhere({}).filter((name) => leadField(name).formOrder !== null);
    const orders = onForm.map((name) => leadField(name).formOrder);
    expect(new Set(orders).size).toBe(orders.length);
    const markup = formMarkup(FORM, '/f/frm_1', {
      tr: translator('en'),
      files: FILE_LIMITS,
      hosted: true,
    }).toString();
    const shown = fieldsIn(markup);
    expect(shown).toEqual(formFieldNames());
    expect([...shown].sort()).toEqual([...onForm].sort());
    const byOrder = [...onForm].sort((a, b) => leadField(a).formOrder! - leadField(b).formOrder!);
    expect(shown).toEqual(byOrder);
    for (const name of shown) {
      expect(markup, name).toContain(`<label for="field-${name}">${formFieldLabel(translator('en'), name)}`);
    }
    // Priority is the brand's (a form default): never asked.
    expect(shown).not.toContain('priority');
  });
});

describe('the office’s pages', () => {
  it('the New lead page shows exactly the table’s new-lead fields, section by section, each labelled', () => {
    const page = newLeadPage({ user: USER, defaultCountry: 'NL', values: newLeadValues('NL'), errors: [] });
    const markup = page.toString();
    const expected = [
      ...newLeadFieldNames('customer'),
      ...newLeadFieldNames('job'),
      ...newLeadFieldNames('address'),
    ];
    expect(fieldsIn(markup)).toEqual(expected);
    expect([...expected].sort()).toEqual(
      leadFieldsWhere({})
        .filter((name) => leadField(name).newLeadOrder !== null)
        .sort(),
    );
    for (const name of expected)
      expect(markup, name).toContain(`<label for="field-${name}">${LEAD_FIELD_LABELS[name]}`);
  });

  it('the New lead page lists problems in the order it shows the fields', () => {
    const errors = [...NAMES].reverse().map((field) => ({ field, message: 'is wrong' }));
    const markup = newLeadPage({ user: USER, defaultCountry: 'NL', values: {}, errors }).toString();
    const start = markup.indexOf('class="error-summary"');
    const summary = markup.slice(start, markup.indexOf('</ul>', start));
    const listed = [...summary.matchAll(/href="#field-([^"]+)"/g)].map((m) => m[1]);
    expect(listed).toEqual([
      ...newLeadFieldNames('customer'),
      ...newLeadFieldNames('job'),
      ...newLeadFieldNames('address'),
    ]);
  });

  it('the Edit page shows exactly the fields an edit saves, and each with the lead’s value', () => {
    expect([...EDITABLE_JOB_FIELDS].sort()).toEqual(
      leadFieldsWhere({ group: 'job', editedOn: 'lead' }).sort(),
    );
    expect([...EDITABLE_ADDRESS_FIELDS].sort()).toEqual(
      leadFieldsWhere({ group: 'address', editedOn: 'lead' }).sort(),
    );
    const values = editLeadValues(LEAD_EXAMPLE);
    expect(Object.keys(values).sort()).toEqual([...EDITABLE_FIELDS].sort());
    const markup = editLeadPage({
      user: USER,
      lead: LEAD_EXAMPLE,
      defaultCountry: 'NL',
      values,
      errors: [],
    }).toString();
    expect([...fieldsIn(markup)].sort()).toEqual([...EDITABLE_FIELDS].sort());
    expect(values.title).toBe(LEAD_EXAMPLE.title);
    expect(values.city).toBe(LEAD_EXAMPLE.address.city);
  });
});

describe('the API’s schemas and examples', () => {
  const properties = (schema: unknown) => Object.keys((schema as { properties: object }).properties);
  const nested = (schema: unknown, key: string) =>
    properties((schema as { properties: Record<string, unknown> }).properties[key]);
  /** The lead's own fields, which no table declares: ids, state, times, where it came from. */
  const OWN = [
    'id',
    'brandId',
    'customerId',
    'addressId',
    'status',
    'source',
    'receivedAt',
    'createdAt',
    'sourceKeyName',
    'updatedAt',
    'scheduledAt',
    'scheduledFor',
    'durationMinutes',
    'assignee',
    'submitted',
    'sourceFormId',
    'sourceFormName',
    'sourceUserId',
    'sourceUserName',
    'extraFields',
    'attribution',
    'consent',
    'customer',
    'address',
    'statusHistory',
    // Photos and files: the detail's list of them, the list item's count.
    'attachments',
    'attachmentCount',
  ];

  it('LeadCreate has every field of the table and no other, required as the table says', () => {
    const schema = LeadCreateBody as unknown as { properties: object; required?: string[] };
    expect(properties(schema)).toEqual(NAMES);
    expect([...(schema.required ?? [])].sort()).toEqual(leadFieldsWhere({ required: true }).sort());
  });

  it('Lead has every job field, and its customer and address every field of theirs', () => {
    expect(
      properties(LeadDetailSchema)
        .filter((p) => !OWN.includes(p))
        .sort(),
    ).toEqual(leadFieldsWhere({ group: 'job' }).sort());
    expect(nested(LeadDetailSchema, 'customer')).toEqual(['id', 'type', ...Object.keys(CONTACT_FIELDS)]);
    expect(nested(LeadDetailSchema, 'address')).toEqual(['id', ...Object.keys(ADDRESS_FIELDS)]);
  });

  it('a list item has the listed fields and no other', () => {
    expect(
      properties(LeadListItemSchema)
        .filter((p) => !OWN.includes(p))
        .sort(),
    ).toEqual(leadFieldsWhere({ group: 'job', listed: true }).sort());
    expect(nested(LeadListItemSchema, 'customer')).toEqual([
      'id',
      ...leadFieldsWhere({ group: 'customer', listed: true }).map(readNameOf),
    ]);
    expect(nested(LeadListItemSchema, 'address')).toEqual([
      'id',
      ...leadFieldsWhere({ group: 'address', listed: true }),
    ]);
  });

  it('the CSV columns are the list item’s and the exported fields, none else', () => {
    const fieldColumns = LEAD_EXPORT_SHAPE.columns.filter((c) => NAMES.some((name) => readPath(name) === c));
    expect([...fieldColumns].sort()).toEqual(leadFieldsWhere({ exported: true }).map(readPath).sort());
  });

  it('the examples come from the table: the body from its example values, the lead from that body', () => {
    expect(Object.keys(LEAD_BODY_EXAMPLE).sort()).toEqual(
      NAMES.filter((name) => leadField(name).example !== undefined).sort(),
    );
    const input = parseLeadInput(LEAD_BODY_EXAMPLE);
    const lead = LEAD_EXAMPLE as unknown as Record<string, Record<string, unknown>>;
    for (const name of NAMES) {
      const { group } = leadField(name);
      const value = group === 'job' ? lead[name] : lead[group]![readNameOf(name)];
      expect(value, name).toBe(name === 'country' ? (input.country ?? 'NL') : input[name]);
    }
    expect(Object.keys(LEAD_LIST_ITEM_EXAMPLE)).toEqual(properties(LeadListItemSchema));
  });
});

describe.each(dialects())('the field table against the service on %s', (dialect) => {
  let ctx: TestContext;
  let browser: Browser;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    await addUser(ctx.app, ctx.brandId, 'fields@acme.example');
    browser = await signedIn(ctx.app, 'fields@acme.example');
  });
  afterAll(async () => ctx?.close());

  const api = (url: string) =>
    ctx.app.inject({ method: 'GET', url, headers: { 'x-api-key': ctx.keys.full } });

  it('every field’s column is in its table on a migrated database', async () => {
    for (const name of NAMES) {
      const { group, column } = leadField(name);
      const table = TABLE_OF[group];
      const query =
        dialect === 'sqlite'
          ? sql<{ name: string }>`select name from pragma_table_info(${table})`
          : sql<{ name: string }>`select column_name as name from information_schema.columns
              where table_schema = current_schema() and table_name = ${table}`;
      const { rows } = await query.execute(ctx.app.deps.database.db);
      expect(
        rows.map((r) => r.name),
        `${name}: ${table}.${column}`,
      ).toContain(column);
    }
  });

  it('a lead made from the table’s examples reads back with every field, and lead.created carries them', async () => {
    const created = await ctx.createLead({ ...LEAD_BODY_EXAMPLE });
    const lead = (await api(`/v1/leads/${created.id}`)).json();
    const input = parseLeadInput(LEAD_BODY_EXAMPLE);
    const events = (await api('/v1/events?type=lead.created&limit=100')).json().data;
    const event = events.find((e: { data: { lead: { id: string } } }) => e.data.lead.id === created.id);
    for (const name of NAMES) {
      const { group } = leadField(name);
      const expected = name === 'country' ? (input.country ?? 'NL') : input[name];
      const read = group === 'job' ? lead[name] : lead[group][readNameOf(name)];
      const carried = group === 'job' ? event.data.lead[name] : event.data.lead[group][readNameOf(name)];
      expect(read, name).toBe(expected);
      expect(carried, name).toBe(expected);
    }
    const csv = await api('/v1/exports/leads.csv');
    const header = parseCsv(csv.body)[0]!;
    expect(header.filter((c) => NAMES.some((name) => readPath(name) === c)).sort()).toEqual(
      leadFieldsWhere({ exported: true }).map(readPath).sort(),
    );
  });

  it('every field the Edit page shows is saved by its post: none is dropped', async () => {
    const created = await ctx.createLead({ ...LEAD_BODY_EXAMPLE });
    const id = created.id as string;
    const page = await browser.get(`/dashboard/leads/${id}/edit`);
    expect(page.statusCode).toBe(200);
    expect([...fieldsIn(page.body)].sort()).toEqual([...EDITABLE_FIELDS].sort());
    // A new value for each, valid by its rule.
    const edited: Record<string, string> = Object.fromEntries(
      EDITABLE_FIELDS.map((name, i) => {
        const { format } = leadField(name);
        return [name, format === 'country' ? 'BE' : format === 'priority' ? 'urgent' : `E${i}`];
      }),
    );
    const res = await browser.post(`/dashboard/leads/${id}/edit`, edited);
    expect(res.statusCode, res.body).toBe(303);
    const lead = (await api(`/v1/leads/${id}`)).json();
    for (const name of EDITABLE_FIELDS) {
      const { group } = leadField(name);
      const read = group === 'job' ? lead[name] : lead[group][readNameOf(name)];
      expect(read, name).toBe(edited[name]);
    }
    const changed = decodeURIComponent(String(res.headers.location).split('edited=')[1] ?? '').split(',');
    expect(changed.sort()).toEqual([...EDITABLE_FIELDS].sort());
  });
});
