// Search (`q` on GET /v1/leads, /v1/work-items and /v1/customers): every field, accents and case, phones in any
// format, postal codes with or without the space, several words, brand isolation, paging, the index kept in step
// with edits, and the plan: the database's text index, not a scan.

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCustomer, updateCustomer } from '../../src/customers/customers.js';
import { updateLead } from '../../src/leads/update.js';
import { indexPendingLeads } from '../../src/platform/db/search-index.js';
import { insertBulkLeads } from '../bulk-leads.js';
import { addUser, signedIn, textOf } from '../dashboard/helpers.js';
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
  /** Changes the customer that lead `id` is linked to, as the customer page does. */
  const editCustomerOf = async (id: string, changes: Parameters<typeof updateCustomer>[3]) => {
    const database = ctx.app.deps.database;
    const lead = (await ctx.api.get(`/v1/leads/${id}`)).json();
    const current = await getCustomer(database, ctx.brandId, lead.customerId);
    await database.write((tx) => updateCustomer(tx, ctx.brandId, current, changes, Date.now()));
  };

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
    await editCustomerOf(id, {
      name: 'Fenna de Wit-Hoekstra',
      companyName: 'Hoekstra Daken',
      phone: '+31687654321',
    });
    expect(await found('de Wit')).toEqual([id]);
    expect(await found('hoekstra daken')).toEqual([id]);
    expect(await found('06 8765 4321')).toEqual([id]);
    expect(await found('Fenna Hoekstra')).toEqual([id]); // still in what the lead was submitted with
  });

  it("holds a contact's value once when the customer says the same, both again once they differ", async () => {
    const database = ctx.app.deps.database;
    // How often the document of lead `id` holds `term` (a trigram on SQLite: its FTS5 index read through an
    // fts5vocab table; a folded substring of the stored body on PostgreSQL).
    if (dialect === 'sqlite') {
      await sql`create virtual table if not exists temp.search_terms using fts5vocab(main, lead_search, instance)`.execute(
        database.db,
      );
    }
    const held = async (id: string, term: string) => {
      if (dialect === 'sqlite') {
        // What a search does first: the documents still waiting for the interval are written (search-index.ts).
        await database.write((tx) => indexPendingLeads(tx));
        const { rows } = await sql<{ n: number }>`select count(*) as n from temp.search_terms
          where term = ${term} and doc = (select id from lead_search_rows where lead_id = ${id})`.execute(
          database.db,
        );
        return Number(rows[0]!.n);
      }
      const { rows } = await sql<{
        body: string;
      }>`select body from lead_search where lead_id = ${id}`.execute(database.db);
      return rows[0]!.body.split(term).length - 1;
    };
    const id = (
      await ctx.createLead({
        customerName: 'Quirijn Zwaagstra',
        email: 'q.z@example.org',
        phone: '+31 6 4455 6677',
        title: 'Dakraam lekt',
        street: 'Westerstraat',
        postalCode: '1015 MN',
        city: 'Amsterdam',
      })
    ).id as string;
    // Name, email and phone as submitted are the new customer's own: each is in the document once, not twice.
    expect(await held(id, 'zwa')).toBe(1);
    expect(await held(id, 'q.z')).toBe(1);
    expect(await held(id, '644')).toBe(1);
    expect(await found('Quirijn Zwaagstra')).toEqual([id]);
    expect(await found('06 4455 6677')).toEqual([id]);
    await editCustomerOf(id, { name: 'Quirijn Zwaagstra-Bos', email: 'qzb@example.org' });
    // The customer's record now says otherwise: what was submitted is back in the document beside it.
    expect(await held(id, 'zwa')).toBe(2);
    expect(await held(id, 'q.z')).toBe(1);
    expect(await held(id, 'qzb')).toBe(1);
    expect(await held(id, '644')).toBe(1);
    expect(await found('q.z@example')).toEqual([id]);
    expect(await found('Zwaagstra-Bos')).toEqual([id]);
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

  it('refuses a query of more than 8 words, a repeated word counting once (422 naming q)', async () => {
    const forty = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    for (const url of ['/v1/leads', '/v1/work-items', '/v1/customers']) {
      const res = await ctx.api.get(`${url}?q=${encodeURIComponent(forty)}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual([{ field: 'q', message: 'has 40 words; a search takes at most 8' }]);
    }
    const repeated = Array.from({ length: 25 }, () => 'Dupont').join(' ');
    const found = await ctx.api.get(`/v1/leads?q=${encodeURIComponent(`Émile ${repeated}`)}`);
    expect(found.statusCode).toBe(200);
    expect(found.json().data.map((l: { id: string }) => l.id)).toEqual([ids.emile]);
  });

  it('answers a NUL or another control character in q or a filter with a 422, never a 500', async () => {
    const routes = [
      '/v1/leads?q=ab%00cd',
      '/v1/work-items?q=ab%00cd',
      '/v1/customers?q=ab%00cd',
      '/v1/customers?email=a%00b%40example.com',
      '/v1/exports/leads.csv?q=ab%00cd',
      '/v1/exports/work-items.csv?q=ab%00cd',
      '/v1/leads?q=ab%01cd%0Aef',
    ];
    for (const url of routes) {
      const res = await ctx.api.get(url);
      expect(res.statusCode, url).toBe(422);
      expect(res.headers['content-type'], url).toMatch(/problem\+json/);
      expect(res.json().errors[0].field, url).toBe(url.includes('email') ? 'email' : 'q');
    }
  });

  it('says so on the dashboard too, in the list, never a 500', async () => {
    await addUser(ctx.app, ctx.brandId, 'search-office@acme.example');
    const browser = await signedIn(ctx.app, 'search-office@acme.example');
    const forty = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    for (const list of ['/dashboard/leads', '/dashboard/work-items']) {
      const page = await browser.get(`${list}?q=${encodeURIComponent(forty)}`);
      expect(page.statusCode).toBe(422);
      expect(textOf(page.body)).toContain('has 40 words; a search takes at most 8.');
      expect((await browser.get(`${list}?q=ab%00cd`)).statusCode).toBe(422);
    }
    // The header's search across everything says the same.
    const everything = await browser.get(`/dashboard/search?q=${encodeURIComponent(forty)}`);
    expect(everything.statusCode).toBe(422);
    expect(textOf(everything.body)).toContain('has 40 words; a search takes at most 8.');
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
    // PostgreSQL: one statement, the search a subquery of the list's. SQLite: the search's windows first (each
    // over the brand's rowid range only), then the list of what they found.
    const search =
      dialect === 'postgres' ? list : statements.find((s) => s.text.includes('lead_search match'))!;
    expect(search.text).toContain('lead_search');
    const explain = (statement: { text: string; params: readonly unknown[] }) =>
      database.db.connection().execute(async (db) => {
        if (dialect === 'postgres') {
          // The plan starts from the search (above); 5,000 short documents are still cheaper to read whole than
          // through any index, so the scan is switched off to show which index answers.
          await sql`set enable_seqscan = off`.execute(db);
          const literal = (v: unknown) =>
            typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`;
          const text = statement.text.replace(/\$(\d+)/g, (_, n) => literal(statement.params[Number(n) - 1]));
          const rows = (await sql.raw(`explain ${text}`).execute(db)).rows as { 'QUERY PLAN': string }[];
          return rows.map((r) => r['QUERY PLAN']).join('\n');
        }
        const literal = (v: unknown) =>
          typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`;
        let n = 0;
        const text = statement.text.replace(/\?/g, () => literal(statement.params[n++]));
        const rows = (await sql.raw(`explain query plan ${text}`).execute(db)).rows as { detail: string }[];
        return rows.map((r) => r.detail).join('\n');
      });
    const plan = await explain(list);
    if (dialect === 'postgres') {
      expect(plan).toMatch(/Bitmap Index Scan on lead_search_body/);
    } else {
      // The index read with the rowid range's bounds (FTS5's index string: M for the match, > and < for them).
      expect(await explain(search)).toMatch(/SCAN s VIRTUAL TABLE INDEX \d+:M\d*[<>=]+/);
      // The leads are looked up by the matches' ids, not walked in order and checked one by one.
      expect(plan).toMatch(/SEARCH l USING INDEX sqlite_autoindex_leads_1 \(id=\?\)/);
    }
    expect(plan).not.toMatch(/leads_brand_stage_received/);
  });
  it('stops a search that runs past the budget with a 422, and searches again once the budget allows', async () => {
    // 5,000 more leads of the brand, each a document two of the words are in (the third in none): more than one
    // window on SQLite, and more than a millisecond of PostgreSQL work either way it plans the list.
    const database = ctx.app.deps.database;
    await insertBulkLeads(database, ctx.brandId, { tag: 'b', count: 5000 });
    const before = database.searchBudgetMs;
    // The budget SEARCH_BUDGET_MS sets (50 ms at least there); 0 here: any search longer than one window.
    Object.assign(database, { searchBudgetMs: 0 });
    try {
      const res = await ctx.api.get('/v1/leads?q=bulk%20customer%20nowhere');
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual([
        { field: 'q', message: 'took longer than 0 s and was stopped; add a word or a filter to narrow it' },
      ]);
      // Another brand's search meanwhile: its own (few) documents, within any budget on SQLite.
      if (dialect === 'sqlite') {
        expect((await ctx.api.get('/v1/leads?q=Dupont', { key: ctx.keys.other })).statusCode).toBe(200);
      }
    } finally {
      Object.assign(database, { searchBudgetMs: before });
    }
    expect((await ctx.api.get('/v1/leads?q=bulk%20customer&limit=1')).statusCode).toBe(200);
  });
  it.runIf(dialect === 'sqlite')(
    "keeps each brand's documents in a rowid range of the index of its own",
    async () => {
      const database = ctx.app.deps.database;
      const rows = (
        await sql<{ brand_id: string; search_key: number; id: number }>`select l.brand_id, b.search_key, r.id
        from lead_search_rows r join leads l on l.id = r.lead_id join brands b on b.id = l.brand_id`.execute(
          database.db,
        )
      ).rows;
      expect(new Set(rows.map((r) => r.brand_id)).size).toBe(2);
      for (const r of rows) expect(Math.floor(r.id / 2 ** 32)).toBe(r.search_key);
      expect(new Set(rows.map((r) => r.search_key)).size).toBe(2);
    },
  );
});
