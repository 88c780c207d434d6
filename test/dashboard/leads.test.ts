// Leads and work items in the dashboard: lists, search, filters, paging, one lead's page, state changes,
// escaping of user data, the charts, and the security headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { CONTENT_SECURITY_POLICY } from '../../src/dashboard/plugin.js';
import { ALL_STATUSES, allowedTransitions } from '../../src/leads/states.js';
import { leadStats } from '../../src/leads/stats.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { PATH_TO } from '../lead-paths.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

/** Titles of the rows in a list page, in order. */
function titles(html: string): string[] {
  return [...html.matchAll(/<td data-label="Job" class="cell-title"><a href="[^"]+">([^<]*)<\/a>/g)].map(
    (m) => m[1]!,
  );
}

/** The states offered as buttons on a lead's page. */
function buttons(html: string): string[] {
  return [...html.matchAll(/<button type="submit" name="status" value="([a-z_]+)"/g)].map((m) => m[1]!);
}

describe.each(dialects())('dashboard leads and work items on %s', (dialect) => {
  let ctx: TestContext;
  let browser: Browser;
  let userId: string;
  const leads: Record<string, string> = {};

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    userId = (await addUser(ctx.app, ctx.brandId, 'office@acme.example')).id;
    browser = await signedIn(ctx.app, 'office@acme.example');
    const create = async (name: string, fields: Record<string, unknown>) => {
      leads[name] = (await ctx.createLead(fields)).id as string;
    };
    await create('boiler', { title: 'Boiler service', customerName: 'Anna de Wit', priority: 'high' });
    await create('roof', {
      title: 'Roof leak',
      customerName: 'Bram Visser',
      email: 'bram.visser@example.org',
      phone: '+31 6 5555 1234',
      postalCode: '3511 AB',
      city: 'Utrecht',
      priority: 'urgent',
    });
    await create('tiles', { title: 'Bathroom tiles', customerName: 'Cor Bakker', companyName: 'Bakker BV' });
    await create('quoted', { title: 'Garden tap quote', customerName: 'Dirk Smit', priority: 'low' });
    await ctx.setStatus(leads.quoted!, 'quoted');
    await create('scheduled', { title: 'Gutter cleaning', customerName: 'Eva Mulder' });
    await ctx.setStatus(leads.scheduled!, 'scheduled');
    await create('cancelled', { title: 'Cancelled job', customerName: 'Fay Bos' });
    await ctx.setStatus(leads.cancelled!, 'cancelled');
    // Another brand's lead must never show.
    await ctx.createLead({ title: 'Other brand boiler', customerName: 'Anna de Wit' }, ctx.keys.other);
  });
  afterAll(async () => ctx?.close());

  it('lists leads (request, quoted) newest first; work items and cancelled leads are elsewhere', async () => {
    const res = await browser.get('/dashboard/leads');
    expect(res.statusCode).toBe(200);
    expect(titles(res.body)).toEqual(['Garden tap quote', 'Bathroom tiles', 'Roof leak', 'Boiler service']);
    const text = textOf(res.body);
    expect(text).toContain('Bram Visser bram.visser@example.org');
    expect(text).toContain('3511 AB Utrecht');
    expect(res.body).toContain('<span class="badge badge-quoted">Quoted</span>');
    expect(res.body).toContain('<span class="badge priority-urgent">Urgent</span>');
  });

  it('lists work items (scheduled and later) with their visit', async () => {
    const res = await browser.get('/dashboard/work-items');
    expect(res.statusCode).toBe(200);
    expect(titles(res.body)).toEqual(['Gutter cleaning']);
    expect(res.body).toContain('<th scope="col">Visit</th>');
    expect(res.body).toContain('aria-current="page">Work items</a>');
  });

  it('searches title, customer name, company, email, phone, street, postal code and city', async () => {
    const search = async (q: string, path = '/dashboard/leads') =>
      titles((await browser.get(`${path}?q=${encodeURIComponent(q)}`)).body);
    expect(await search('roof')).toEqual(['Roof leak']);
    expect(await search('VISSER')).toEqual(['Roof leak']);
    expect(await search('bram.visser@')).toEqual(['Roof leak']);
    expect(await search('5555 1234')).toEqual(['Roof leak']);
    expect(await search('+31655551234')).toEqual(['Roof leak']);
    expect(await search('3511ab')).toEqual(['Roof leak']);
    expect(await search('utrecht')).toEqual(['Roof leak']);
    expect(await search('anna')).toEqual(['Boiler service']);
    expect(await search('mulder', '/dashboard/work-items')).toEqual(['Gutter cleaning']);
    // The text index: accents and case either way, company, street, phones and postal codes as people type them.
    expect(await search('bákker bv')).toEqual(['Bathroom tiles']);
    expect(await search('06 5555 1234')).toEqual(['Roof leak']);
    expect(await search('0655551234')).toEqual(['Roof leak']);
    expect(await search('3511 ab')).toEqual(['Roof leak']);
    expect(await search('Visser Utrecht')).toEqual(['Roof leak']);
    expect(await search('Keizersgracht')).toEqual([
      'Garden tap quote',
      'Bathroom tiles',
      'Roof leak',
      'Boiler service',
    ]);
    expect(await search('100%')).toEqual([]);
    // LIKE wildcards in the search are taken literally: '_oof' would otherwise match "Roof".
    expect(await search('_oof')).toEqual([]);
    expect(await search('r%f')).toEqual([]);
    const none = await browser.get('/dashboard/leads?q=nothing-like-this');
    expect(textOf(none.body)).toContain('Nothing matches these filters.');
    expect(none.body).toContain('value="nothing-like-this"');
  });

  it('filters by state and priority; a value outside the list is a 422 that says so', async () => {
    expect(titles((await browser.get('/dashboard/leads?status=quoted')).body)).toEqual(['Garden tap quote']);
    expect(titles((await browser.get('/dashboard/leads?priority=high')).body)).toEqual(['Boiler service']);
    expect(titles((await browser.get('/dashboard/leads?status=request&priority=low')).body)).toEqual([]);
    expect(titles((await browser.get('/dashboard/work-items?status=scheduled')).body)).toEqual([
      'Gutter cleaning',
    ]);
    const filtered = await browser.get('/dashboard/leads?status=quoted&priority=low');
    expect(filtered.body).toContain('<option value="quoted" selected>');
    expect(filtered.body).toContain('<option value="low" selected>');
    expect(filtered.body).toContain('<a class="button button-quiet" href="/dashboard/leads">Clear</a>');

    const badState = await browser.get('/dashboard/leads?status=scheduled');
    expect(badState.statusCode).toBe(422);
    expect(textOf(badState.body)).toContain('State is not one we know: choose a state from the list.');
    const badWorkState = await browser.get('/dashboard/work-items?status=quoted');
    expect(badWorkState.statusCode).toBe(422);
    expect(textOf(badWorkState.body)).toContain('State is not one we know: choose a state from the list.');
    const badPriority = await browser.get('/dashboard/leads?priority=asap');
    expect(badPriority.statusCode).toBe(422);
    expect(textOf(badPriority.body)).toContain(
      'Priority is not one we know: choose a priority from the list.',
    );
    const badSource = await browser.get('/dashboard/leads?source=fax');
    expect(badSource.statusCode).toBe(422);
    expect(textOf(badSource.body)).toContain('Source is not one we know: choose a source from the list.');
    const badCursor = await browser.get('/dashboard/leads?cursor=nope');
    expect(badCursor.statusCode).toBe(422);
    expect(textOf(badCursor.body)).toContain('Page link is out of date: start again from the newest.');
    // None of them speaks the API's language.
    for (const res of [badState, badWorkState, badPriority, badSource, badCursor]) {
      expect(textOf(res.body)).not.toMatch(/must be one|comma-separated|cursor this API/);
    }
  });

  it('pages with a cursor, 25 at a time, keeping the filters, without repeats or gaps', async () => {
    for (let i = 0; i < 27; i++) await ctx.createLead({ title: `Paging job ${i}`, customerName: 'Pager' });
    const first = await browser.get('/dashboard/leads?q=paging');
    const firstTitles = titles(first.body);
    expect(firstTitles).toHaveLength(25);
    expect(firstTitles[0]).toBe('Paging job 26');
    const next = /href="(\/dashboard\/leads\?q=paging&amp;cursor=[^"]+)" rel="next"/.exec(first.body)?.[1];
    expect(next).toBeDefined();
    const second = await browser.get(next!.replace(/&amp;/g, '&'));
    expect(titles(second.body)).toEqual(['Paging job 1', 'Paging job 0']);
    expect(second.body).not.toContain('rel="next"');
    expect(second.body).toContain('href="/dashboard/leads?q=paging">← Newest</a>');
  });

  it("shows a lead's job, customer (person or business), address and status history", async () => {
    const res = await browser.get(`/dashboard/leads/${leads.quoted}`);
    expect(res.statusCode).toBe(200);
    const text = textOf(res.body);
    expect(res.body).toContain('<h1 class="lead-title">Garden tap quote</h1>');
    expect(text).toContain('Customer Person');
    expect(text).toContain('Name Dirk Smit');
    expect(text).toMatch(/Keizersgracht 123 1015 CJ Amsterdam NL/);
    expect(text).toContain('Source API (key “key full”)');
    // The history, newest first, each entry naming who made it.
    expect(
      [
        ...res.body.matchAll(
          /<li class="feed-change"><p class="feed-meta"><span class="badge badge-(\w+)">/g,
        ),
      ].map((m) => m[1]),
    ).toEqual(['quoted', 'request']);
    expect(text).toMatch(/Quoted · \w{3}, \d+ \w+ 2\d{3}, \d\d:\d\d · by key key full/);
    const business = textOf((await browser.get(`/dashboard/leads/${leads.tiles}`)).body);
    expect(business).toContain('Customer Business');
    expect(business).toContain('Company Bakker BV');
    expect((await browser.get('/dashboard/leads/wrk_00000000000000000000000000')).statusCode).toBe(404);
  });

  it('offers buttons for exactly the state changes the state table allows, in every state', async () => {
    for (const status of ALL_STATUSES) {
      const { id } = await ctx.createLead({ title: `Buttons in ${status}` });
      for (const step of PATH_TO[status]) await ctx.setStatus(id as string, step);
      const res = await browser.get(`/dashboard/leads/${id}`);
      // Schedule is the submit button of its own form (date, time, duration, who): the order differs.
      expect(buttons(res.body).sort(), status).toEqual([...allowedTransitions(status)].sort());
      if (!allowedTransitions(status).length) expect(textOf(res.body)).toContain('its state is final');
    }
  });

  it('changes state with the same rules as PATCH /v1/leads/{id}: allowed moves, 409 otherwise, 422 for junk', async () => {
    {
      const { id } = await ctx.createLead({ title: 'State walk' });
      const page = `/dashboard/leads/${id}`;
      await browser.get(page);
      const moved = await browser.post(`${page}/status`, { status: 'quoted' });
      expect(moved.statusCode).toBe(303);
      expect(moved.headers.location).toBe(`${page}?moved=quoted`);
      expect(textOf((await browser.get(moved.headers.location as string)).body)).toContain('Moved to Quoted');

      const refused = await browser.post(`${page}/status`, { status: 'completed', confirm: 'yes' });
      expect(refused.statusCode).toBe(409);
      expect(textOf(refused.body)).toMatch(
        /This lead is Quoted \(changed by office@acme\.example at [^)]+\) and cannot move to Completed; nothing was changed\./,
      );
      expect(textOf(refused.body)).not.toContain('"quoted"');
      const junk = await browser.post(`${page}/status`, { status: 'done' });
      expect(junk.statusCode).toBe(422);
      expect(textOf(junk.body)).toContain('“done” is not a state');

      const scheduled = await browser.post(`${page}/status`, {
        status: 'scheduled',
        scheduledDate: '2026-12-01',
        scheduledTime: '09:00',
        durationMinutes: '60',
        assigneeId: '',
      });
      expect(scheduled.statusCode, scheduled.body).toBe(303);
      const api = await ctx.app.inject({ url: `/v1/leads/${id}`, headers: { 'x-api-key': ctx.keys.full } });
      expect(api.json().status).toBe('scheduled');
      expect(api.json().statusHistory.map((h: { status: string }) => h.status)).toEqual([
        'request',
        'quoted',
        'scheduled',
      ]);
      const actors = await ctx.app.deps.database.db
        .selectFrom('lead_status_history')
        .select('actor')
        .where('lead_id', '=', id as string)
        .orderBy('seq')
        .execute();
      expect(actors.map((a) => a.actor)).toEqual([ctx.keyIds.full, userId, userId]);
      expect(titles((await browser.get('/dashboard/work-items?q=state+walk')).body)).toEqual(['State walk']);
    }
  });

  it('shows HTML and script in titles, notes and customer names as text, everywhere', async () => {
    const evil = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    const { id } = await ctx.createLead({
      title: `${evil} Sink`,
      notes: `Notes ${evil}`,
      description: `"quoted" & 'single' ${evil}`,
      customerName: `${evil} Mallory`,
      companyName: `${evil} Ltd`,
    });
    const pages = [
      await browser.get('/dashboard/leads'),
      await browser.get(`/dashboard/leads?q=${encodeURIComponent(evil)}`),
      await browser.get(`/dashboard/leads/${id}`),
    ];
    for (const res of pages) {
      expect(res.body).not.toContain('<script>alert');
      expect(res.body).not.toContain('<img src=x');
      expect(res.body).toContain(
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;',
      );
    }
    const detail = pages[2]!.body;
    expect(detail).toContain('<title>&lt;script&gt;');
    expect(detail).toContain('&quot;quoted&quot; &amp; &#39;single&#39;');
    // Every script on every page is the app's own file: none inline, no inline styles either.
    for (const res of pages) {
      expect([...res.body.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
        expect.stringMatching(/^<script src="\/assets\/app\.[0-9a-f]{12}\.js" defer>$/),
      ]);
      expect(res.body).not.toMatch(/<style|\sstyle=/);
    }
  });

  it('draws leads per day for 30 days and leads per state as SVG, from one brand only', async () => {
    const database = ctx.app.deps.database;
    const db = database.db;
    const day = 24 * 60 * 60 * 1000;
    const now = Date.UTC(2026, 10, 21, 12);
    const other = (await createBrand(database, { language: 'en', name: 'Chart Co' })).id;
    const key = (await createApiKey(database, { brandId: other, name: 'chart', scopes: ['full'] })).key;
    // A third brand: 2 leads today, 1 three days ago, 1 thirty days ago (outside the window).
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await ctx.createLead({ title: `Chart ${i}` }, key)).id as string);
    const at = [now, now - 60_000, now - 3 * day, now - 30 * day];
    for (const [i, id] of ids.entries()) {
      await db.updateTable('leads').set({ received_at: at[i]! }).where('id', '=', id).execute();
    }
    await db
      .updateTable('leads')
      .set({ status: 'planned', stage: 'work' })
      .where('id', '=', ids[0]!)
      .execute();
    const stats = await leadStats(database, other, 30, now);
    expect(stats.perDay).toHaveLength(30);
    expect(stats.perDay[29]).toEqual({ date: '2026-11-21', count: 2 });
    expect(stats.perDay[26]).toEqual({ date: '2026-11-18', count: 1 });
    expect(stats.perDay[0]!.date).toBe('2026-10-23');
    expect(stats.perDay.reduce((sum, d) => sum + d.count, 0)).toBe(3);
    expect(Object.fromEntries(stats.perStatus.map((s) => [s.status, s.count]))).toEqual({
      request: 3,
      quoted: 0,
      scheduled: 0,
      planned: 1,
      in_progress: 0,
      completed: 0,
      cancelled: 0,
    });

    const page = await browser.get('/dashboard/leads');
    expect(page.body).toMatch(
      /<svg class="chart-svg" viewBox="0 0 300 100" preserveAspectRatio="none" role="img"/,
    );
    expect(page.body).toMatch(/aria-label="\d+ leads in the last 30 days; the most on/);
    expect(page.body).toMatch(/<rect class="bar bar-today"/);
    const states = Object.fromEntries(
      [
        ...page.body.matchAll(
          />([A-Za-z ]+)<\/(?:a|span)>\s*<svg class="state-track"[\s\S]*?<a class="state-count"[^>]*>(\d+)</g,
        ),
      ].map((m) => [m[1], Number(m[2])]),
    );
    // This brand's own counts: the other brand's leads are not in them.
    const mine = await leadStats(database, ctx.brandId);
    expect(states).toEqual(
      Object.fromEntries(
        mine.perStatus.map((s) => [
          {
            request: 'Request',
            quoted: 'Quoted',
            scheduled: 'Scheduled',
            planned: 'Planned',
            in_progress: 'In progress',
            completed: 'Completed',
            cancelled: 'Cancelled',
          }[s.status],
          s.count,
        ]),
      ),
    );
    expect(states.Cancelled).toBeGreaterThan(0);
    expect(page.body).toContain('<a class="state-label" href="/dashboard/leads?status=quoted">Quoted</a>');
    expect(page.body).toContain(
      '<a class="state-label" href="/dashboard/work-items?status=planned">Planned</a>',
    );
  });

  it('finds text that holds LIKE wildcards (%, _ and \\) literally', async () => {
    const lead = await ctx.createLead({
      title: 'Fix 100% of the_drain \\ now',
      customerName: 'Wildcard Test',
    });
    const search = async (q: string) =>
      titles((await browser.get(`/dashboard/leads?q=${encodeURIComponent(q)}`)).body);
    expect(await search('100%')).toEqual(['Fix 100% of the_drain \\ now']);
    expect(await search('the_drain')).toEqual(['Fix 100% of the_drain \\ now']);
    expect(await search('drain \\ now')).toEqual(['Fix 100% of the_drain \\ now']);
    await ctx.setStatus(lead.id as string, 'cancelled');
  });

  it('sends the strict CSP, no framing and a referrer policy on every dashboard page; the API is unchanged', async () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    const pages = [
      '/dashboard/leads',
      '/dashboard/work-items',
      `/dashboard/leads/${leads.roof}`,
      '/dashboard/settings/api-keys',
      '/dashboard/settings/users',
      '/dashboard/nope',
    ];
    for (const url of pages) {
      const res = await browser.get(url);
      expect(res.headers['content-security-policy'], url).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('same-origin');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    }
    const signIn = await ctx.app.inject({ url: '/sign-in' });
    expect(signIn.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    const api = await ctx.app.inject({ url: '/v1/leads', headers: { 'x-api-key': ctx.keys.full } });
    expect(api.headers['content-security-policy']).toBeUndefined();
    expect(api.headers['set-cookie']).toBeUndefined();
  });
});
