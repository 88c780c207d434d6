// The dashboard's lists: "1–25 of 312" counts with their filters, and "Export CSV" of what the filters match.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkLeadId, insertBulkLeads } from '../bulk-leads.js';
import { csvObjects } from '../csv.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { addUser, Browser, signedIn, textOf } from './helpers.js';

/** The list's count line, as a reader sees it. */
function countLine(html: string): string | undefined {
  const match = /<p class="muted list-count">([^<]*)<\/p>/.exec(html);
  return match ? textOf(match[1]!) : undefined;
}

function exportHref(html: string): string | undefined {
  return /<a class="button button-quiet" href="([^"]+)">Export CSV<\/a>/
    .exec(html)?.[1]
    ?.replace(/&amp;/g, '&');
}

function olderHref(html: string): string | undefined {
  return /href="([^"]+)" rel="next"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
}

describe.each(dialects())('dashboard counts and CSV export on %s', (dialect) => {
  let ctx: TestContext;
  let browser: Browser;
  let other: Browser;
  const ids: Record<'tap' | 'boiler', string> = { tap: '', boiler: '' };

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    const database = ctx.app.deps.database;
    await insertBulkLeads(database, ctx.brandId, { tag: 'r', count: 312 });
    await insertBulkLeads(database, ctx.brandId, { tag: 'q', count: 40, status: 'quoted' });
    await insertBulkLeads(database, ctx.brandId, { tag: 's', count: 30, status: 'scheduled' });
    ids.tap = (await ctx.createLead({ title: 'Dripping tap, kitchen', priority: 'high' })).id as string;
    ids.boiler = (await ctx.createLead({ title: 'Boiler service', priority: 'high' })).id as string;
    await ctx.createLead({ title: 'Other brand dripping tap', priority: 'high' }, ctx.keys.other);
    await addUser(ctx.app, ctx.brandId, 'office@acme.example');
    await addUser(ctx.app, ctx.otherBrandId, 'office@other.example');
    browser = await signedIn(ctx.app, 'office@acme.example');
    other = await signedIn(ctx.app, 'office@other.example');
  });
  afterAll(async () => ctx?.close());

  it('counts the lead list: "1–25 of 354" on the first page, "351–354 of 354" on the last', async () => {
    let page = await browser.get('/dashboard/leads');
    expect(page.statusCode).toBe(200);
    expect(countLine(page.body)).toBe('1–25 of 354');
    const seen: string[] = [];
    for (let next = olderHref(page.body); next; next = olderHref(page.body)) {
      page = await browser.get(next);
      seen.push(countLine(page.body)!);
    }
    expect(seen[0]).toBe('26–50 of 354');
    expect(seen.at(-1)).toBe('351–354 of 354');
    expect(seen).toHaveLength(14);
  });

  it('counts with the filters: state, priority, search, source; work items apart', async () => {
    expect(countLine((await browser.get('/dashboard/leads?status=request')).body)).toBe('1–25 of 314');
    const quoted = await browser.get('/dashboard/leads?status=quoted');
    expect(countLine(quoted.body)).toBe('1–25 of 40');
    const last = await browser.get(olderHref(quoted.body)!);
    expect(countLine(last.body)).toBe('26–40 of 40');
    expect(countLine((await browser.get('/dashboard/leads?priority=high')).body)).toBe('1–2 of 2');
    expect(countLine((await browser.get('/dashboard/leads?q=dripping')).body)).toBe('1–1 of 1');
    expect(countLine((await browser.get('/dashboard/leads?source=form')).body)).toBe('0 leads');
    expect(countLine((await browser.get('/dashboard/work-items')).body)).toBe('1–25 of 30');
    expect(countLine((await other.get('/dashboard/work-items')).body)).toBe('0 work items');
    expect(countLine((await other.get('/dashboard/leads')).body)).toBe('1–1 of 1');
  });

  it('counts again once the data has changed', async () => {
    expect(countLine((await browser.get('/dashboard/leads?priority=urgent')).body)).toBe('0 leads');
    await ctx.createLead({ title: 'Burst pipe', priority: 'urgent' });
    expect(countLine((await browser.get('/dashboard/leads?priority=urgent')).body)).toBe('1–1 of 1');
  });

  it("links Export CSV to the list's current filters, not its page", async () => {
    const page = await browser.get('/dashboard/leads?q=tap&status=request&priority=high&source=website');
    expect(exportHref(page.body)).toBe(
      '/dashboard/leads/export.csv?q=tap&status=request&priority=high&source=website',
    );
    const first = await browser.get('/dashboard/leads');
    const second = await browser.get(olderHref(first.body)!);
    expect(exportHref(second.body)).toBe('/dashboard/leads/export.csv');
    expect(exportHref((await browser.get('/dashboard/work-items?status=scheduled')).body)).toBe(
      '/dashboard/work-items/export.csv?status=scheduled',
    );
  });

  it('exports what the filters match, every page of it, with a byte order mark for Excel', async () => {
    const res = await browser.get('/dashboard/leads/export.csv?q=tap&status=request&priority=high');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="leads-\d{4}-\d\d-\d\d\.csv"$/);
    expect([...res.rawPayload.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const { header, rows } = csvObjects(res.body.slice(1));
    expect(header.slice(0, 3)).toEqual(['id', 'title', 'status']);
    expect(rows.map((r) => r.id)).toEqual([ids.tap]);
    expect(rows[0]!.title).toBe('Dripping tap, kitchen');

    const all = csvObjects((await browser.get('/dashboard/leads/export.csv?status=quoted')).body.slice(1));
    expect(all.rows).toHaveLength(40);
    expect(all.rows[0]!.id).toBe(bulkLeadId('q', 39));
    const work = await browser.get('/dashboard/work-items/export.csv');
    expect(work.headers['content-disposition']).toMatch(/filename="work-items-/);
    const workRows = csvObjects(work.body.slice(1)).rows;
    expect(workRows).toHaveLength(30);
    expect(workRows.every((r) => r.status === 'scheduled' && r.scheduledAt)).toBe(true);
  });

  it("exports the signed-in user's brand only", async () => {
    const rows = csvObjects((await other.get('/dashboard/leads/export.csv?q=tap')).body.slice(1)).rows;
    expect(rows.map((r) => r.title)).toEqual(['Other brand dripping tap']);
  });

  it('answers bad filters with a page that says so, not a file', async () => {
    const res = await browser.get('/dashboard/leads/export.csv?priority=extreme');
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(textOf(res.body)).toContain(
      'Nothing was exported: Priority is not one we know: choose a priority from the list.',
    );
  });

  it('needs a session: without one it sends to sign-in, and no data', async () => {
    for (const path of ['/dashboard/leads/export.csv', '/dashboard/work-items/export.csv?status=scheduled']) {
      const res = await new Browser(ctx.app).get(path);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toMatch(/^\/sign-in/);
      expect(res.body).not.toContain('Bulk job');
    }
    // An API key is not a session.
    const keyed = await ctx.app.inject({
      method: 'GET',
      url: '/dashboard/leads/export.csv',
      headers: { 'x-api-key': ctx.keys.full },
    });
    expect(keyed.statusCode).toBe(302);
  });
});
