// GET /v1/exports/leads.csv and /v1/exports/work-items.csv: columns, escaping, formula guard, filters, scopes,
// isolation, compression, streaming a large export page by page, and what happens when it fails midway.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { leadFieldsWhere } from '../../src/leads/fields.js';
import { csvCell } from '../../src/platform/http/csv-export.js';
import {
  BULK_DESCRIPTION,
  bulkCustomerId,
  bulkLeadId,
  bulkReceivedAt,
  bulkTitle,
  insertBulkLeads,
} from '../bulk-leads.js';
import { csvObjects, parseCsv } from '../csv.js';
import { createTestContext, dialects, QUICK, type TestContext } from '../helpers.js';

/** The columns the contract names, in its order. */
const CONTRACT_COLUMNS = [
  'id',
  'title',
  'status',
  'priority',
  'receivedAt',
  'updatedAt',
  'source',
  'sourceFormName',
  'customer.id',
  'customer.name',
  'customer.email',
  'customer.phone',
  'customer.companyName',
  'address.id',
  'address.street',
  'address.streetNumber',
  'address.streetNumberAddition',
  'address.postalCode',
  'address.city',
  'address.country',
  'description',
  'category',
  'budgetQuote',
];
/**
 * And the job fields the field table has added since (src/leads/fields.ts; test/domain/fields.test.ts checks the
 * export against the table): listed ones with the list item's fields, after sourceFormName; others at the end.
 */
const ADDED_LISTED = leadFieldsWhere({ group: 'job', listed: true }).filter(
  (c) => !CONTRACT_COLUMNS.includes(c),
);
const ADDED_EXPORTED = leadFieldsWhere({ group: 'job', listed: false, exported: true }).filter(
  (c) => !CONTRACT_COLUMNS.includes(c),
);
const AFTER_LISTED = CONTRACT_COLUMNS.indexOf('sourceFormName') + 1;
const LEAD_COLUMNS = [
  ...CONTRACT_COLUMNS.slice(0, AFTER_LISTED),
  ...ADDED_LISTED,
  ...CONTRACT_COLUMNS.slice(AFTER_LISTED),
  ...ADDED_EXPORTED,
];
/** An item's empty cells of the added fields. */
const ADDED_EMPTY = Object.fromEntries([...ADDED_LISTED, ...ADDED_EXPORTED].map((c) => [c, '']));

describe('csvCell', () => {
  it('quotes fields with a comma, quote, CR or LF and doubles quotes; leaves others as they are', () => {
    expect(csvCell('plain text')).toBe('plain text');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('one\ntwo')).toBe('"one\ntwo"');
    expect(csvCell('one\r\ntwo')).toBe('"one\r\ntwo"');
    expect(csvCell('Café Ærø ✓')).toBe('Café Ærø ✓');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });

  it.each(['=', '+', '-', '@', '\t', '\r'])('puts a quote mark before a cell starting with %j', (start) => {
    const cell = csvCell(`${start}HYPERLINK("http://evil.example")`);
    const text = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
    expect(text).toBe(`'${start}HYPERLINK("http://evil.example")`);
  });

  it('leaves an E.164 phone number alone, but not a phone-like text with spaces or letters', () => {
    expect(csvCell('+31612345678')).toBe('+31612345678');
    expect(csvCell('+31 6 1234 5678')).toBe("'+31 6 1234 5678");
    expect(csvCell('+1+1')).toBe("'+1+1");
    expect(csvCell('+')).toBe("'+");
  });
});

describe.each(dialects())('CSV exports on %s', (dialect) => {
  let ctx: TestContext;
  const ids = {} as Record<'first' | 'quoted' | 'scheduled' | 'formula', string>;
  let customerId: string;
  let otherLeadId: string;

  const exportRows = async (url: string, key = ctx.keys['leads:read']) => {
    const res = await ctx.api.get(url, { key: key });
    expect(res.statusCode, res.body).toBe(200);
    return csvObjects(res.body).rows;
  };
  const setTitle = (id: string, title: string) =>
    ctx.app.deps.database.db.updateTable('leads').set({ title }).where('id', '=', id).execute();
  const setReceived = (id: string, at: string) =>
    ctx.app.deps.database.db
      .updateTable('leads')
      .set({ received_at: Date.parse(at) })
      .where('id', '=', id)
      .execute();

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    const first = await ctx.createLead({
      title: 'Tap, "left" side\nand the shower',
      description: 'Café — Ærø, Zürich ✓ 水',
      customerName: 'José Müller',
      phone: '+31 6 1234 5678',
      companyName: 'Müller & Zn, B.V.',
      streetNumberAddition: 'bis',
      budgetQuote: '-500',
      category: '@home',
    });
    ids.first = first.id as string;
    customerId = first.customerId as string;
    ids.quoted = (await ctx.createLead({ title: 'Quoted one' })).id as string;
    await ctx.setStatus(ids.quoted, 'quoted');
    ids.scheduled = (await ctx.createLead({ title: 'Scheduled one' })).id as string;
    await ctx.setStatus(ids.scheduled, 'scheduled');
    ids.formula = (await ctx.createLead({ title: 'Formula' })).id as string;
    await setReceived(ids.first, '2026-01-01T10:00:00.000Z');
    await setReceived(ids.quoted, '2026-02-01T10:00:00.000Z');
    await setReceived(ids.formula, '2026-03-01T10:00:00.000Z');
    otherLeadId = (await ctx.createLead({ title: 'Other brand lead' }, ctx.keys.other)).id as string;
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('sends a CSV download with a header row of the list fields, in a stable order', async () => {
    const res = await ctx.api.get('/v1/exports/leads.csv', { key: ctx.keys['leads:read'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="leads-${new Date().toISOString().slice(0, 10)}.csv"`,
    );
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.startsWith('id,title,status,')).toBe(true);
    expect(res.body.endsWith('\r\n')).toBe(true);
    expect(parseCsv(res.body)[0]).toEqual(LEAD_COLUMNS);

    const work = await ctx.api.get('/v1/exports/work-items.csv', { key: ctx.keys['work-items:read'] });
    expect(work.statusCode, work.body).toBe(200);
    expect(work.headers['content-disposition']).toMatch(
      /^attachment; filename="work-items-\d{4}-\d\d-\d\d\.csv"$/,
    );
    // The lead's columns first, so a sheet of both lines up; what work items add comes at the end.
    const header = parseCsv(work.body)[0]!;
    expect(header.slice(0, LEAD_COLUMNS.length)).toEqual(LEAD_COLUMNS);
    expect(header).toContain('scheduledAt');
  });

  it('writes each list field of an item into its column: times in ISO UTC, nulls empty', async () => {
    const rows = await exportRows('/v1/exports/leads.csv');
    const row = rows.find((r) => r.id === ids.first)!;
    const lead = (await ctx.api.get(`/v1/leads/${ids.first}`, { key: ctx.keys['leads:read'] })).json();
    expect(row).toEqual({
      id: ids.first,
      title: 'Tap, "left" side\nand the shower',
      status: 'request',
      priority: 'medium',
      receivedAt: '2026-01-01T10:00:00.000Z',
      updatedAt: lead.updatedAt,
      source: 'website',
      sourceFormName: '',
      'customer.id': customerId,
      'customer.name': 'José Müller',
      'customer.email': lead.customer.email,
      'customer.phone': '+31612345678',
      'customer.companyName': 'Müller & Zn, B.V.',
      'address.id': lead.address.id,
      'address.street': 'Keizersgracht',
      'address.streetNumber': '123',
      'address.streetNumberAddition': 'bis',
      'address.postalCode': '1015 CJ',
      'address.city': 'Amsterdam',
      'address.country': 'NL',
      description: 'Café — Ærø, Zürich ✓ 水',
      category: "'@home",
      budgetQuote: "'-500",
      ...ADDED_EMPTY,
    });
  });

  it('escapes commas, quotes, line breaks and keeps non-ASCII as UTF-8 in the bytes sent', async () => {
    const res = await ctx.api.get('/v1/exports/leads.csv', { key: ctx.keys['leads:read'] });
    expect(res.body).toContain('"Tap, ""left"" side\nand the shower"');
    expect(res.body).toContain(',"Café — Ærø, Zürich ✓ 水",');
    expect(res.rawPayload.includes(Buffer.from('Zürich ✓ 水', 'utf8'))).toBe(true);
    expect(res.body.charCodeAt(0)).not.toBe(0xfeff);
  });

  it.each<[string, string]>([
    ['=', '=HYPERLINK("http://evil.example","x")'],
    ['+', '+1+cmd|calc'],
    ['-', '-2+3'],
    ['@', '@SUM(A1:A2)'],
    ['tab', '\t=1+1'],
    ['carriage return', '\r=1+1'],
  ])('neutralises a cell starting with %s', async (_name, title) => {
    await setTitle(ids.formula, title);
    const rows = await exportRows('/v1/exports/leads.csv');
    expect(rows.find((r) => r.id === ids.formula)!.title).toBe(`'${title}`);
  });

  it('leaves E.164 phone numbers as they are', async () => {
    const rows = await exportRows('/v1/exports/leads.csv');
    for (const row of rows) expect(row['customer.phone']).toMatch(/^(\+\d{8,15})?$/);
    expect(rows.find((r) => r.id === ids.first)!['customer.phone']).toBe('+31612345678');
  });

  it('lists only what the list serves: leads in one, work items in the other', async () => {
    const leads = (await exportRows('/v1/exports/leads.csv')).map((r) => r.id);
    expect(leads).toEqual(expect.arrayContaining([ids.first, ids.quoted, ids.formula]));
    expect(leads).not.toContain(ids.scheduled);
    const work = await exportRows('/v1/exports/work-items.csv', ctx.keys['work-items:read']);
    expect(work.map((r) => r.id)).toEqual([ids.scheduled]);
    expect(work[0]!.scheduledAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('applies the list filters: status, received range, source, customerId, order', async () => {
    const idsOf = async (query: string) =>
      (await exportRows(`/v1/exports/leads.csv?${query}`)).map((r) => r.id);
    expect(await idsOf('status=quoted')).toEqual([ids.quoted]);
    expect(await idsOf('status=request')).not.toContain(ids.quoted);
    expect(
      await idsOf('receivedAfter=2026-01-01T10:00:00.000Z&receivedBefore=2026-03-01T10:00:00.000Z'),
    ).toEqual([ids.quoted]);
    expect(await idsOf('receivedBefore=2026-03-01T10:00:00.000Z')).toEqual([ids.quoted, ids.first]);
    expect(await idsOf('receivedBefore=2026-03-01T10:00:00.000Z&order=asc')).toEqual([ids.first, ids.quoted]);
    expect(await idsOf(`customerId=${customerId}`)).toEqual([ids.first]);
    expect(await idsOf('source=form')).toEqual([]);
    expect((await idsOf('source=website')).length).toBeGreaterThanOrEqual(3);
  });

  it('refuses what the list refuses, and paging parameters, as problem+json 422', async () => {
    for (const query of [
      'status=scheduled',
      'receivedAfter=yesterday',
      'limit=10',
      'cursor=abc',
      'order=up',
    ]) {
      const res = await ctx.api.get(`/v1/exports/leads.csv?${query}`, { key: ctx.keys['leads:read'] });
      expect(res.statusCode, query).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().errors[0].field).toBe(query.split('=')[0]);
    }
  });

  it('needs the list scope: leads:read cannot export work items, nor work-items:read leads', async () => {
    const none = await ctx.app.inject({ method: 'GET', url: '/v1/exports/leads.csv' });
    expect(none.statusCode).toBe(401);
    const work = await ctx.api.get('/v1/exports/work-items.csv', { key: ctx.keys['leads:read'] });
    expect(work.statusCode).toBe(403);
    expect(work.json().requiredScope).toBe('work-items:read');
    const leads = await ctx.api.get('/v1/exports/leads.csv', { key: ctx.keys['work-items:read'] });
    expect(leads.statusCode).toBe(403);
    expect(leads.json().requiredScope).toBe('leads:read');
    for (const scope of ['leads:write', 'customers:read'] as const) {
      expect((await ctx.api.get('/v1/exports/leads.csv', { key: ctx.keys[scope] })).statusCode).toBe(403);
    }
    expect((await ctx.api.get('/v1/exports/leads.csv', { key: ctx.keys.full })).statusCode).toBe(200);
  });

  it("exports each brand's items only; another brand's customerId is a 422", async () => {
    const mine = (await exportRows('/v1/exports/leads.csv')).map((r) => r.id);
    const theirs = (await exportRows('/v1/exports/leads.csv', ctx.keys.other)).map((r) => r.id);
    expect(mine).not.toContain(otherLeadId);
    expect(theirs).toEqual([otherLeadId]);
    const res = await ctx.api.get(`/v1/exports/leads.csv?customerId=${customerId}`, { key: ctx.keys.other });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([{ field: 'customerId', message: 'is not a customer of this brand' }]);
  });

  it('starts with a UTF-8 byte order mark when asked (bom=true), for Excel', async () => {
    const res = await ctx.api.get('/v1/exports/leads.csv?bom=true', { key: ctx.keys['leads:read'] });
    expect(res.statusCode).toBe(200);
    expect([...res.rawPayload.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(parseCsv(res.body.slice(1))[0]).toEqual(LEAD_COLUMNS);
  });

  it('compresses with gzip or br when the client accepts it, to the same bytes', async () => {
    const plain = await ctx.api.get('/v1/exports/leads.csv', { key: ctx.keys['leads:read'] });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzip = await ctx.api.get('/v1/exports/leads.csv', {
      key: ctx.keys['leads:read'],
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toMatch(/Accept-Encoding/);
    expect(zlib.gunzipSync(gzip.rawPayload).toString('utf8')).toBe(plain.body);
    const br = await ctx.api.get('/v1/exports/leads.csv', {
      key: ctx.keys['leads:read'],
      headers: {
        'accept-encoding': 'gzip;q=0.5, br',
      },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.rawPayload).toString('utf8')).toBe(plain.body);
    const refused = await ctx.api.get('/v1/exports/leads.csv', {
      key: ctx.keys['leads:read'],
      headers: {
        'accept-encoding': 'br;q=0, gzip;q=0',
      },
    });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('is in the OpenAPI document as a text/csv response with the list filters, without limit and cursor', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    for (const path of ['/v1/exports/leads.csv', '/v1/exports/work-items.csv']) {
      const operation = doc.paths[path].get;
      expect(Object.keys(operation.responses['200'].content)).toEqual(['text/csv']);
      const names = (operation.parameters as { name: string }[]).map((p) => p.name);
      expect(names).toEqual(
        expect.arrayContaining(['status', 'receivedAfter', 'customerId', 'order', 'bom']),
      );
      expect(names).not.toContain('limit');
      expect(names).not.toContain('cursor');
    }
  });
});

// 100,000 leads: left to `npm test`, out of the quick loop.
describe.skipIf(QUICK).each(dialects())('a large export on %s', (dialect) => {
  const COUNT = 100_000;
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    await insertBulkLeads(ctx.app.deps.database, ctx.brandId, { tag: 'a', count: COUNT });
  }, 120_000);
  afterAll(async () => {
    await ctx?.close();
  });

  const expectedRow = (n: number) => ({
    id: bulkLeadId('a', n),
    title: bulkTitle(n),
    receivedAt: bulkReceivedAt(n),
    'customer.id': bulkCustomerId('a', n),
    description: BULK_DESCRIPTION,
  });

  it('streams all 100,000 leads, each once, in order, across the database pages', async () => {
    const res = await ctx.api.get('/v1/exports/leads.csv', { key: ctx.keys['leads:read'] });
    expect(res.statusCode).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const { header, rows } = csvObjects(res.body);
    expect(header).toEqual(LEAD_COLUMNS);
    expect(rows.length).toBe(COUNT);
    expect(rows[0]).toMatchObject(expectedRow(COUNT - 1));
    expect(rows[COUNT - 1]).toMatchObject(expectedRow(0));
    expect(rows[50_000]).toMatchObject(expectedRow(COUNT - 1 - 50_000));
    // Newest first without a gap or a repeat, also where one page of 1,000 ends and the next begins.
    for (let k = 0; k < COUNT; k++) {
      if (rows[k]!.id !== bulkLeadId('a', COUNT - 1 - k)) throw new Error(`row ${k} is ${rows[k]!.id}`);
    }
  }, 60_000);

  it('counts as one read against the rate limit however many pages it reads', async () => {
    const remaining = async () => {
      const res = await ctx.api.get('/v1/exports/leads.csv?receivedBefore=2025-01-01T01:00:00.000Z');
      expect(res.statusCode).toBe(200);
      expect(parseCsv(res.body).length).toBe(3600 + 1);
      return {
        left: Number(res.headers['ratelimit-remaining']),
        reset: Number(res.headers['ratelimit-reset']),
      };
    };
    // Limits count in fixed one-minute windows: a pair that straddles a window's end is measured again.
    for (let attempt = 0; ; attempt++) {
      const before = await remaining();
      const after = await remaining();
      if (after.reset > before.reset && attempt < 3) continue;
      expect(after.left).toBe(before.left - 1);
      break;
    }
  });

  describe('over a real connection', () => {
    let base: string;
    beforeAll(async () => {
      await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    });

    const open = (path: string) =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        http
          .get(`${base}${path}`, { headers: { 'x-api-key': ctx.keys['leads:read'] } }, resolve)
          .on('error', reject);
      });

    it('stops reading pages from the database when the client goes away', async () => {
      const spy = vi.spyOn(ctx.app.deps.database, 'all');
      try {
        const res = await open('/v1/exports/leads.csv');
        expect(res.statusCode).toBe(200);
        await new Promise((resolve) => res.once('data', resolve));
        res.destroy();
        // The server notices the closed socket; the export ends with at most the page in flight.
        const settled = async () => {
          const calls = spy.mock.calls.length;
          await new Promise((resolve) => setTimeout(resolve, 300));
          return spy.mock.calls.length === calls ? calls : undefined;
        };
        let calls: number | undefined;
        while (calls === undefined) calls = await settled();
        // 100 pages make a complete export; a reader that vanished after the first chunk got a few at most.
        expect(calls).toBeLessThan(50);
      } finally {
        spy.mockRestore();
      }
    }, 30_000);

    it('cuts the connection when the database fails after the file has started, and logs it', async () => {
      const database = ctx.app.deps.database;
      const all = database.all.bind(database);
      let exportQueries = 0;
      const spy = vi.spyOn(database, 'all').mockImplementation(async (statement, params) => {
        if (statement.sqlite.includes('"k_time"') && ++exportQueries === 3)
          throw new Error('connection lost');
        return all(statement, params);
      });
      const logged = vi.spyOn(ctx.app.log, 'error');
      try {
        const res = await open('/v1/exports/leads.csv');
        expect(res.statusCode).toBe(200);
        let received = '';
        const outcome = await new Promise<string>((resolve) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            received += chunk;
          });
          res.on('end', () => resolve('complete'));
          res.on('error', () => resolve('aborted'));
          res.on('aborted', () => resolve('aborted'));
        });
        expect(outcome).toBe('aborted');
        // Two pages arrived before the failure; nothing pretends the file is whole.
        expect(received.split('\r\n').length).toBeLessThan(COUNT);
        expect(received).toContain(bulkLeadId('a', COUNT - 1));
      } finally {
        spy.mockRestore();
      }
      expect(logged).toHaveBeenCalled();
    }, 30_000);

    it('answers a failure before the first byte with problem+json', async () => {
      const database = ctx.app.deps.database;
      const all = database.all.bind(database);
      const spy = vi.spyOn(database, 'all').mockImplementation(async (statement, params) => {
        if (statement.sqlite.includes('"k_time"')) throw new Error('connection lost');
        return all(statement, params);
      });
      try {
        const res = await ctx.api.get('/v1/exports/leads.csv', { key: ctx.keys['leads:read'] });
        expect(res.statusCode).toBe(500);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      } finally {
        spy.mockRestore();
      }
    });
  });
});
