// PostgreSQL plans a named statement once per connection where one plan serves all values (plan_cache_mode=auto,
// set by the pool whatever the server's default), and a list with filters or a search for each call's values
// (sent unnamed, Statement.planPerCall). Planning the single-lead read's five-table join on every call cost
// PostgreSQL four fifths of its CPU for that read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETAIL } from '../../src/leads/queries.js';
import { SqlBuilder, statement } from '../../src/platform/db/sql.js';
import { bulkLeadId, insertBulkLeads } from '../bulk-leads.js';
import { createTestContext, dialects, type TestContext, validLead } from '../helpers.js';
import { sentBy } from '../pg-queries.js';

describe('Statement.planPerCall', () => {
  it('is set only when asked for, by statement() or by the builder', () => {
    expect(statement('select 1').planPerCall).toBeUndefined();
    expect(statement('select 1', { planPerCall: true }).planPerCall).toBe(true);
    expect(new SqlBuilder().sql('select ').value(1).build().planPerCall).toBeUndefined();
    expect(new SqlBuilder().sql('select ').value(1).planPerCall().build().planPerCall).toBe(true);
  });
});

describe.runIf(dialects().includes('postgres'))('plans on PostgreSQL', () => {
  let ctx: TestContext;
  let ids: string[];
  beforeAll(async () => {
    ctx = await createTestContext('postgres');
    ids = [];
    for (let n = 0; n < 3; n++) {
      const res = await ctx.api.post('/v1/leads', validLead({ email: `plan${n}@example.com`, phone: null }), {
        key: ctx.keys['leads:write'],
      });
      expect(res.statusCode).toBe(201);
      ids.push(res.json().id);
    }
    await ctx.api.get('/v1/leads', { key: ctx.keys['leads:read'] }); // the key is read and cached on first use
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('runs every pooled session with plan_cache_mode=auto', async () => {
    const modes = await Promise.all(
      Array.from({ length: 4 }, () =>
        ctx.app.deps.database.all<{ plan_cache_mode: string }>(statement('show plan_cache_mode'), []),
      ),
    );
    expect(modes.flat().map((m) => m.plan_cache_mode)).toEqual(['auto', 'auto', 'auto', 'auto']);
  });

  it('reads a lead with a named statement, which PostgreSQL plans once per connection', async () => {
    const sent = await sentBy(() => ctx.api.get(`/v1/leads/${ids[0]}`, { key: ctx.keys['leads:read'] }));
    const read = sent.find((s) => /from leads l join customers/.test(s.text));
    expect(read?.name).toMatch(/^li_/);
    // Six reads on each of the pool's connections: from the sixth, a connection that has run the statement five
    // times uses the plan it keeps (pg_prepared_statements counts per session, so every session is asked).
    for (let n = 0; n < 12; n++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          ctx.api.get(`/v1/leads/${ids[i % ids.length]}`, { key: ctx.keys['leads:read'] }),
        ),
      );
    }
    const counts = await Promise.all(
      Array.from({ length: 10 }, () =>
        ctx.app.deps.database.all<{ generic: string; custom: string }>(
          statement(
            'select generic_plans::text as generic, custom_plans::text as custom from pg_prepared_statements where name = ?',
          ),
          [read!.name],
        ),
      ),
    );
    const generic = counts.flat().reduce((sum, row) => sum + Number(row.generic), 0);
    expect(generic).toBeGreaterThan(0);
  });

  it('sends a plain page named and a page with filters or a search unnamed, planned for its values', async () => {
    const page = (url: string) =>
      sentBy(async () => {
        const res = await ctx.api.get(url, { key: ctx.keys['leads:read'] });
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
        expect(res.json().data.length).toBeGreaterThan(0);
      }).then((sent) => sent.filter((s) => /from leads l where/.test(s.text)));
    const plain = await page('/v1/leads?limit=2');
    expect(plain).toHaveLength(1);
    expect(plain[0]!.name).toMatch(/^li_/);
    const next = JSON.parse((await ctx.api.get('/v1/leads?limit=2', { key: ctx.keys['leads:read'] })).body)
      .nextCursor as string;
    const cursor = await page(`/v1/leads?limit=2&cursor=${next}`);
    expect(cursor[0]!.name).toMatch(/^li_/);
    for (const filtered of [
      '/v1/leads?status=request',
      '/v1/leads?source=website',
      '/v1/leads?receivedAfter=2000-01-01T00:00:00Z',
      '/v1/leads?q=plan1',
    ]) {
      const sent = await page(filtered);
      expect(sent.length, filtered).toBeGreaterThan(0);
      for (const s of sent) expect(s.name, filtered).toBeUndefined();
    }
  });
});

describe.runIf(dialects().includes('postgres'))('the single-lead read on PostgreSQL', () => {
  it("finds the lead by its primary key before the table has statistics, and no other brand's", async () => {
    const ctx = await createTestContext('postgres');
    try {
      const database = ctx.app.deps.database;
      // No ANALYZE meanwhile: the planner has only the table's size to go by, as after an import.
      await database.all(statement('alter table leads set (autovacuum_enabled = off)'), []);
      await insertBulkLeads(database, ctx.brandId, { tag: 'p', count: 3000 });
      const id = bulkLeadId('p', 1500);
      const [row] = await database.all<{ 'QUERY PLAN': unknown }>(
        statement(`explain (format json) ${DETAIL.sqlite}`),
        [id],
      );
      const plan = JSON.stringify(row!['QUERY PLAN']);
      expect(plan).toContain('"Index Name":"leads_pkey"');
      expect(plan).not.toMatch(/"Index Name":"leads_brand_/);
      // (The bulk leads have no status history, which a read needs: one made through the API is read.)
      const created = await ctx.api.post('/v1/leads', validLead({ email: 'pkey@example.com', phone: null }), {
        key: ctx.keys['leads:write'],
      });
      const url = `/v1/leads/${created.json().id}`;
      expect((await ctx.api.get(url, { key: ctx.keys['leads:read'] })).json()).toMatchObject({
        id: created.json().id,
        brandId: ctx.brandId,
      });
      const other = await ctx.api.get(url, { key: ctx.keys.other });
      expect(other.statusCode).toBe(404);
      expect(other.body).not.toContain(ctx.brandId);
    } finally {
      await ctx.close();
    }
  });
});
