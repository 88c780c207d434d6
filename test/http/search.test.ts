// Search (`q` on GET /v1/leads, /v1/work-items and /v1/customers): every field, accents and case, phones in any
// format, postal codes with or without the space, several words, brand isolation, paging, the index kept in step
// with edits, and the plan: the database's text index, not a scan.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCustomer, updateCustomer } from '../../src/customers/customers.js';
import { updateLead } from '../../src/leads/update.js';
import { insertBulkLeads } from '../bulk-leads.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

describe.each(dialects())('search on %s', (dialect) => {
  let ctx: TestContext;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    // The brand's country is NL: national numbers are Dutch ones.
    ids.emile = (
      await ctx.createLead({
        customerName: 'Émile Dupont',
        email: 'emile.dupont@example.fr',
        phone: '+31 6 1234 5678',
        street: 'Prinsengracht',
        streetNumber: '263',
        postalCode: '1016 GV',
        city: 'Amsterdam',
        title: 'Replace the boiler',
        description: 'The pilot light keeps going out',
      })
    ).id as string;
    ids.bakker = (
      await ctx.createLead({
        customerName: 'Joost Bakker',
        companyName: 'Bakker Vastgoed',
        email: 'joost@bakkervastgoed.nl',
        phone: '+31 20 555 0101',
        street: 'Keizersgracht',
        streetNumber: '12',
        postalCode: '1015 CJ',
        city: 'Amsterdam',
        title: 'Gutter cleaning',
      })
    ).id as string;
    ids.zoe = (
      await ctx.createLead({
        customerName: 'Zoë Janssen',
        email: 'zoe@example.com',
        street: 'Oudegracht',
        streetNumber: '5',
        postalCode: '3511AB',
        city: 'Utrecht',
        title: 'Rénovation de la salle de bain',
      })
    ).id as string;
    // Another brand's lead holds every word searched here: it must never be found.
    await ctx.createLead(
      {
        customerName: 'Émile Dupont',
        companyName: 'Bakker Vastgoed',
        email: 'emile.dupont@example.fr',
        phone: '+31 6 1234 5678',
        street: 'Keizersgracht',
        postalCode: '1015 CJ',
        city: 'Utrecht',
        title: 'Replace the boiler',
      },
      ctx.keys.other,
    );
  });
  afterAll(async () => ctx?.close());

  const found = async (q: string, list = 'leads') => {
    const response = await ctx.api.get(`/v1/${list}?q=${encodeURIComponent(q)}`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().data as { id: string }[]).map((l) => l.id).sort();
  };
  const only = (...names: string[]) => names.map((n) => ids[n]!).sort();

  it('finds each field', async () => {
    expect(await found('boiler')).toEqual(only('emile')); // title
    expect(await found('pilot light')).toEqual(only('emile')); // description
    expect(await found('Dupont')).toEqual(only('emile')); // customer name
    expect(await found('Vastgoed')).toEqual(only('bakker')); // company
    expect(await found('joost@bakker')).toEqual(only('bakker')); // email
    expect(await found('Prinsengracht')).toEqual(only('emile')); // street
    expect(await found('Keizersgracht 12')).toEqual(only('bakker')); // street and number
    expect(await found('1016 GV')).toEqual(only('emile')); // postal code
    expect(await found('Utrecht')).toEqual(only('zoe')); // city
    expect(await found('Amsterdam')).toEqual(only('emile', 'bakker'));
    expect(await found('no such thing')).toEqual([]);
  });

  it('ignores accents and case, both ways', async () => {
    for (const q of ['Émile', 'émile', 'Emile', 'EMILE', 'emile dupont', 'ÉMILE DUPONT']) {
      expect(await found(q), q).toEqual(only('emile'));
    }
    expect(await found('Zoe')).toEqual(only('zoe'));
    expect(await found('zoë')).toEqual(only('zoe'));
    expect(await found('renovation')).toEqual(only('zoe'));
  });

  it('finds a phone written any way', async () => {
    for (const q of [
      '06 1234 5678',
      '0612345678',
      '06-12345678',
      '+31 6 1234 5678',
      '+31612345678',
      '612345678',
      '(06) 12 34 56 78',
      '0031 6 1234 5678',
    ]) {
      expect(await found(q), q).toEqual(only('emile'));
    }
    // Partly typed: national and international.
    expect(await found('06 1234')).toEqual(only('emile'));
    expect(await found('+3120')).toEqual(only('bakker'));
    expect(await found('020 555 0101')).toEqual(only('bakker'));
    expect(await found('0611111111')).toEqual([]);
  });

  it('finds a postal code with or without its space', async () => {
    for (const q of ['1015 CJ', '1015CJ', '1015cj', '1015 cj'])
      expect(await found(q), q).toEqual(only('bakker'));
    for (const q of ['3511 AB', '3511AB', '3511ab']) expect(await found(q), q).toEqual(only('zoe'));
  });

  it('needs every word, across fields', async () => {
    expect(await found('Bakker Keizersgracht')).toEqual(only('bakker'));
    expect(await found('Dupont boiler Amsterdam')).toEqual(only('emile'));
    expect(await found('Bakker Prinsengracht')).toEqual([]);
    // Short words go with their neighbour; a query of fewer than 3 characters finds nothing.
    expect(await found('salle de bain')).toEqual(only('zoe'));
    expect(await found('de')).toEqual([]);
  });

  it("never finds another brand's leads, and the other brand finds only its own", async () => {
    const other = await ctx.api.get(`/v1/leads?q=${encodeURIComponent('émile')}`, { key: ctx.keys.other });
    const data = other.json().data as { id: string }[];
    expect(data).toHaveLength(1);
    expect(Object.values(ids)).not.toContain(data[0]!.id);
  });

  it('takes LIKE and FTS syntax literally', async () => {
    for (const q of ['100%', '_oiler', '"boiler"', 'boiler OR Vastgoed', 'boil*', 'NEAR(a b)', "o'brien"]) {
      expect(await found(q), q).toEqual([]);
    }
  });

  it('combines with the other filters and pages through the results exactly', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++)
      made.push(
        (await ctx.createLead({ title: `Paging probe ${i}`, description: 'Zwaluwstraat' })).id as string,
      );
    await ctx.setStatus(made[0]!, 'quoted');
    await ctx.setStatus(made[1]!, 'quoted');
    const seen: string[] = [];
    let url = '/v1/leads?q=zwaluwstraat&limit=2';
    for (let pages = 0; pages < 10; pages++) {
      const page = (await ctx.api.get(url)).json();
      seen.push(...page.data.map((l: { id: string }) => l.id));
      if (!page.nextCursor) break;
      url = `/v1/leads?q=zwaluwstraat&limit=2&cursor=${page.nextCursor}`;
    }
    expect(seen).toEqual([...made].reverse());
    const quoted = (await ctx.api.get('/v1/leads?q=zwaluwstraat&status=quoted'))
      .json()
      .data.map((l: { id: string }) => l.id);
    expect(quoted.sort()).toEqual([made[0], made[1]].sort());
    // The work-item list searches too.
    await ctx.setStatus(made[2]!, 'scheduled');
    expect(await found('zwaluwstraat', 'work-items')).toEqual([made[2]]);
    expect(await found('zwaluwstraat')).toHaveLength(6);
  });

  it('keeps the index in step with edits of the lead, its address and its customer', async () => {
    const database = ctx.app.deps.database;
    const actor = { type: 'user' as const, id: 'usr_test', name: 'Test' };
    const id = (
      await ctx.createLead({
        customerName: 'Fenna Hoekstra',
        title: 'Leaking roof',
        street: 'Lindengracht',
        postalCode: '1015 KB',
        city: 'Amsterdam',
      })
    ).id as string;
    await updateLead(database, ctx.brandId, id, { title: 'Dakgoot vervangen' }, actor);
    expect(await found('leaking roof')).toEqual([]);
    expect(await found('dakgoot')).toEqual([id]);
    await updateLead(
      database,
      ctx.brandId,
      id,
      { street: 'Bloemgracht', postalCode: '1016 KR', city: 'Zaandam' },
      actor,
    );
    expect(await found('Lindengracht')).toEqual([]);
    expect(await found('Bloemgracht 1016KR Zaandam')).toEqual([id]);
    const lead = (await ctx.api.get(`/v1/leads/${id}`)).json();
    const current = await getCustomer(database, ctx.brandId, lead.customerId);
    await database.write((tx) =>
      updateCustomer(
        tx,
        ctx.brandId,
        current,
        { name: 'Fenna de Wit-Hoekstra', companyName: 'Hoekstra Daken', phone: '+31687654321' },
        Date.now(),
      ),
    );
    expect(await found('de Wit')).toEqual([id]);
    expect(await found('hoekstra daken')).toEqual([id]);
    expect(await found('06 8765 4321')).toEqual([id]);
    expect(await found('Fenna Hoekstra')).toEqual([id]); // still in what the lead was submitted with
  });

  it('searches customers: GET /v1/customers?q=', async () => {
    const customers = await found('Bakker Vastgoed', 'customers');
    const bakker = (await ctx.api.get(`/v1/leads/${ids.bakker}`)).json();
    expect(customers).toEqual([bakker.customerId]);
    expect(await found('020 555 0101', 'customers')).toEqual([bakker.customerId]);
    expect(await found('nothing like it', 'customers')).toEqual([]);
    const other = (await ctx.api.get('/v1/customers?q=Bakker', { key: ctx.keys.other })).json().data as {
      id: string;
    }[];
    expect(other.map((c) => c.id)).not.toContain(bakker.customerId);
  });

  it('rejects a q of more than 200 characters', async () => {
    expect((await ctx.api.get(`/v1/leads?q=${'a'.repeat(201)}`)).statusCode).toBe(422);
  });

  it('uses the text index, not a scan (the plan)', async () => {
    const database = ctx.app.deps.database;
    // Enough leads that reading them all would cost more than the index (the planner's choice on PostgreSQL).
    await insertBulkLeads(database, ctx.brandId, { tag: 's', count: 5000 });
    // As autovacuum would: statistics, and the GIN index's pending list merged in (the planner costs reading it).
    if (dialect === 'postgres') await sql`vacuum analyze`.execute(database.db);
    const { listLeads } = await import('../../src/leads/read.js');
    // The statement listLeads runs, captured and explained.
    const statements: { text: string; params: readonly unknown[] }[] = [];
    const spy = {
      ...database,
      dialect: database.dialect,
      db: database.db,
      all: async <R>(s: { sqlite: string; postgres: string }, params: readonly unknown[]) => {
        statements.push({ text: dialect === 'postgres' ? s.postgres : s.sqlite, params });
        return database.all<R>(s, params);
      },
    } as typeof database;
    await listLeads(spy, ctx.brandId, 'lead', { limit: 25, order: 'desc', search: 'Émile Dupont' });
    const list = statements.at(-1)!;
    expect(list.text).toContain('lead_search');
    const plan = await database.db.connection().execute(async (db) => {
      if (dialect === 'postgres') {
        // The plan starts from the search (above); 5,000 short documents are still cheaper to read whole than
        // through any index, so the scan is switched off to show which index answers.
        await sql`set enable_seqscan = off`.execute(db);
        const literal = (v: unknown) =>
          typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`;
        const text = list.text.replace(/\$(\d+)/g, (_, n) => literal(list.params[Number(n) - 1]));
        const rows = (await sql.raw(`explain ${text}`).execute(db)).rows as { 'QUERY PLAN': string }[];
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      }
      const literal = (v: unknown) =>
        typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`;
      let n = 0;
      const text = list.text.replace(/\?/g, () => literal(list.params[n++]));
      const rows = (await sql.raw(`explain query plan ${text}`).execute(db)).rows as { detail: string }[];
      return rows.map((r) => r.detail).join('\n');
    });
    if (dialect === 'postgres') {
      expect(plan).toMatch(/Bitmap Index Scan on lead_search_body/);
    } else {
      expect(plan).toMatch(/SCAN s VIRTUAL TABLE INDEX \d+:M/);
      // The leads are looked up by the matches' ids, not walked in order and checked one by one.
      expect(plan).toMatch(/SEARCH l USING INDEX sqlite_autoindex_leads_1 \(id=\?\)/);
    }
    expect(plan).not.toMatch(/leads_brand_stage_received/);
  });
});
