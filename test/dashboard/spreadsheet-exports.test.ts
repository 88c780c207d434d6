// The CSV exports read back by csv-parse (test/csv.ts, held to RFC 4180) in both formats: the API's (comma, UTC,
// E.164) and the dashboard's, made for the reader's spreadsheet (Dutch: `;`, English: `,`; both with times in the
// brand's zone and phones as dialled there, kept as text). The header comes from the field table (the export
// shapes), and every column has a value wherever the lead's JSON has one: the assignee too, as assigneeId and
// assigneeName (issue 30: the header ended `assignee.nullable,assignee.description`, empty on every row).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leadFieldsWhere, readNameOf } from '../../src/leads/fields.js';
import { LEAD_EXPORT_SHAPE, WORK_ITEM_EXPORT_SHAPE } from '../../src/leads/shape.js';
import { type CsvSeparator, csvObjects, parseCsv } from '../csv.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { addUser, type Browser, signedIn } from './helpers.js';

/** Where a column's value is in the single read, written out here: `a.b` is nested; the assignee's are flat. */
function jsonPath(column: string): string[] {
  if (column === 'assigneeId') return ['assignee', 'id'];
  if (column === 'assigneeName') return ['assignee', 'name'];
  return column.split('.');
}

function valueAt(lead: Record<string, unknown>, path: string[]): unknown {
  let value: unknown = lead;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return null;
    value = (value as Record<string, unknown>)[key];
  }
  return value ?? null;
}

/** "2026-11-24 09:30:00": the moment in Amsterdam, as the dashboard's export writes it. */
function amsterdam(iso: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Europe/Amsterdam',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

const TIME = /(?:^|\.)(?:[a-z][A-Za-z]*At|scheduledFor)$/;

/** The export's columns as the contract and the field table give them, in order. */
const fieldPath = (name: Parameters<typeof readNameOf>[0], group: string) =>
  group === 'job' ? name : `${group}.${readNameOf(name)}`;
const WORK_ONLY = ['scheduledAt', 'scheduledFor', 'durationMinutes', 'assigneeId', 'assigneeName'];

describe.each(dialects())('CSV exports read back by a CSV parser on %s', (dialect) => {
  let ctx: TestContext;
  let dutch: Browser;
  let english: Browser;
  const ids = { planned: '', nobody: '', belgian: '', request: '' };

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    const db = ctx.app.deps.database.db;
    const anna = await addUser(ctx.app, ctx.brandId, 'anna@acme.example');
    await db.updateTable('users').set({ language: 'nl', name: 'Anna' }).where('id', '=', anna.id).execute();
    await addUser(ctx.app, ctx.brandId, 'sam@acme.example', 'member');
    const fitter = await addUser(ctx.app, ctx.brandId, 'fitter@acme.example', 'member');
    await db.updateTable('users').set({ name: 'Fred Fitter' }).where('id', '=', fitter.id).execute();
    dutch = await signedIn(ctx.app, 'anna@acme.example');
    english = await signedIn(ctx.app, 'sam@acme.example');

    const lead = async (fields: Record<string, unknown>, plan?: Record<string, unknown>) => {
      const id = (await ctx.createLead(fields)).id as string;
      if (plan) {
        const res = await ctx.api.patch(`/v1/leads/${id}`, { status: 'scheduled', ...plan });
        expect(res.statusCode, res.body).toBe(200);
      }
      return id;
    };
    ids.planned = await lead(
      {
        title: 'Boiler; kitchen, "urgent"',
        description: 'Café Ærø: water on the floor;\nplease call first',
        customerName: 'José Müller',
        phone: '+31612345678',
        companyName: 'Müller & Zn',
        category: 'Heating',
        budgetQuote: 'about 400',
        streetNumberAddition: 'bis',
      },
      { scheduledFor: '2031-03-03T08:30:00Z', durationMinutes: 90, assigneeId: fitter.id },
    );
    ids.nobody = await lead(
      { title: 'Gutter', phone: '+31201234567' },
      { scheduledFor: '2031-07-01T12:00:00Z' },
    );
    ids.belgian = await lead({ title: 'Roof in Gent', phone: '+32470123456' }, {});
    ids.request = await lead({ title: 'Still a request', phone: '+31612345678' });
  });
  afterAll(async () => ctx?.close());

  const read = async (id: string) => (await ctx.api.get(`/v1/leads/${id}`)).json() as Record<string, unknown>;

  it('the header is the field table’s: the list’s and exported fields, then the visit and the assignee by id and name', () => {
    const lead = [
      'id',
      'title',
      'status',
      'priority',
      'receivedAt',
      'updatedAt',
      'source',
      'sourceFormName',
      ...leadFieldsWhere({ group: 'job', listed: true }).filter((f) => f !== 'title' && f !== 'priority'),
      'customer.id',
      ...leadFieldsWhere({ group: 'customer', exported: true }).map((f) => fieldPath(f, 'customer')),
      'address.id',
      ...leadFieldsWhere({ group: 'address', exported: true }).map((f) => fieldPath(f, 'address')),
      ...leadFieldsWhere({ group: 'job', listed: false, exported: true }),
    ];
    expect(LEAD_EXPORT_SHAPE.columns).toEqual(lead);
    expect(WORK_ITEM_EXPORT_SHAPE.columns).toEqual([...lead, ...WORK_ONLY]);
    expect(WORK_ITEM_EXPORT_SHAPE.columns.filter((c) => c.startsWith('assignee.'))).toEqual([]);
  });

  /** The export at `url` parsed with `separator`, with the checks every export shares. */
  async function exported(
    get: () => Promise<{
      statusCode: number;
      body: string;
      rawPayload: Buffer;
      headers: Record<string, unknown>;
    }>,
    separator: CsvSeparator,
    bom: boolean,
  ) {
    const res = await get();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.rawPayload.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(bom);
    const text = bom ? res.body.slice(1) : res.body;
    const parsed = csvObjects(text, separator);
    // Read with the other separator, the header is one cell: what a spreadsheet in the other language would show.
    expect(parseCsv(text.slice(0, text.indexOf('\r\n') + 2), separator === ',' ? ';' : ',')[0]).toHaveLength(
      1,
    );
    return parsed;
  }

  /** Every column of every row has a value exactly where the lead's JSON has one; `cell` says which. */
  async function expectEveryValue(
    header: string[],
    rows: Record<string, string>[],
    cell: (column: string, value: unknown) => string,
  ) {
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const lead = await read(row.id!);
      for (const column of header) {
        const value = valueAt(lead, jsonPath(column));
        expect(row[column], `${row.id} ${column}`).toBe(value === null ? '' : cell(column, value));
      }
    }
  }

  it('the API’s work-item export: comma, UTC, E.164, no byte order mark; the assignee in assigneeId and assigneeName', async () => {
    const { header, rows } = await exported(
      () => ctx.api.get('/v1/exports/work-items.csv', { key: ctx.keys['work-items:read'] }),
      ',',
      false,
    );
    expect(header).toEqual(WORK_ITEM_EXPORT_SHAPE.columns);
    expect(rows.map((r) => r.id).sort()).toEqual([ids.planned, ids.nobody, ids.belgian].sort());
    await expectEveryValue(header, rows, (_column, value) => String(value));
    const planned = rows.find((r) => r.id === ids.planned)!;
    expect(planned).toMatchObject({
      title: 'Boiler; kitchen, "urgent"',
      description: 'Café Ærø: water on the floor;\nplease call first',
      'customer.phone': '+31612345678',
      scheduledFor: '2031-03-03T08:30:00.000Z',
      durationMinutes: '90',
      assigneeName: 'Fred Fitter',
    });
    expect(planned.assigneeId).toMatch(/^usr_/);
    expect(rows.find((r) => r.id === ids.nobody)).toMatchObject({ assigneeId: '', assigneeName: '' });
  });

  it('the API’s lead export has the lead columns, each filled where the JSON has a value', async () => {
    const { header, rows } = await exported(
      () => ctx.api.get('/v1/exports/leads.csv', { key: ctx.keys['leads:read'] }),
      ',',
      false,
    );
    expect(header).toEqual(LEAD_EXPORT_SHAPE.columns);
    expect(rows.map((r) => r.id)).toEqual([ids.request]);
    await expectEveryValue(header, rows, (_column, value) => String(value));
  });

  /** A dashboard cell: times in Amsterdam, phones as dialled in the Netherlands, the rest as the API writes it. */
  const dashboardCell = (column: string, value: unknown) => {
    if (TIME.test(column)) return amsterdam(value as string);
    if (column === 'customer.phone') {
      return (
        {
          '+31612345678': '06 12345678',
          '+31201234567': '020 123 4567',
          '+32470123456': '00 32 470 12 34 56',
        }[value as string] ?? `unexpected phone ${value}`
      );
    }
    return String(value);
  };

  it.each([
    ['Dutch', ';'],
    ['English', ','],
  ] as const)(
    'the dashboard’s work-item export for a %s reader: cells split at %j, local times, national phones, the assignee',
    async (language, separator) => {
      const browser = language === 'Dutch' ? dutch : english;
      const { header, rows } = await exported(
        () => browser.get('/dashboard/work-items/export.csv'),
        separator,
        true,
      );
      expect(header).toEqual(WORK_ITEM_EXPORT_SHAPE.columns);
      expect(rows.map((r) => r.id).sort()).toEqual([ids.planned, ids.nobody, ids.belgian].sort());
      await expectEveryValue(header, rows, dashboardCell);
      const planned = rows.find((r) => r.id === ids.planned)!;
      expect(planned).toMatchObject({
        title: 'Boiler; kitchen, "urgent"',
        description: 'Café Ærø: water on the floor;\nplease call first',
        'customer.companyName': 'Müller & Zn',
        'customer.phone': '06 12345678',
        // 08:30 UTC in March is 09:30 in Amsterdam.
        scheduledFor: '2031-03-03 09:30:00',
        durationMinutes: '90',
        assigneeName: 'Fred Fitter',
      });
      // Kept as text by a spreadsheet: the leading 0 and a space, never a bare number or a leading +.
      for (const row of rows) expect(row['customer.phone']).toMatch(/^0\d* [\d ]+$/);
      expect(rows.find((r) => r.id === ids.belgian)!['customer.phone']).toBe('00 32 470 12 34 56');
    },
  );

  it.each([
    ['Dutch', ';'],
    ['English', ','],
  ] as const)(
    'the dashboard’s lead export for a %s reader, every column filled where the JSON has a value',
    async (language, separator) => {
      const browser = language === 'Dutch' ? dutch : english;
      const { header, rows } = await exported(
        () => browser.get('/dashboard/leads/export.csv'),
        separator,
        true,
      );
      expect(header).toEqual(LEAD_EXPORT_SHAPE.columns);
      expect(rows.map((r) => r.id)).toEqual([ids.request]);
      await expectEveryValue(header, rows, dashboardCell);
    },
  );
});
