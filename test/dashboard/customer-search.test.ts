// Finding a returning customer (issue 30): the customers list (/dashboard/customers: search by name, email, phone in
// any format, postal code; newest first; 25 a page) and the search across everything in the header
// (/dashboard/search: leads and work items in any state and customers, grouped, each group linking to its list
// with every state). Another brand's customers and leads never show, whatever the search.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { createTestContext, dialects, nextMillisecond, type TestContext } from '../helpers.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

const YEAR = 365 * 24 * 60 * 60 * 1000;
const PAGING_PEOPLE = 27;

/** The rows of the first table of `html`, each as its cells' text by data-label. */
function rows(html: string): Record<string, string>[] {
  const table = /<table class="list[^"]*">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
  return [...table.matchAll(/<tr>\s*<td[\s\S]*?<\/tr>/g)].map((row) =>
    Object.fromEntries(
      [...row[0].matchAll(/<td data-label="([^"]+)"[^>]*>([\s\S]*?)<\/td>/g)].map((m) => [
        m[1]!,
        textOf(m[2]!),
      ]),
    ),
  );
}

/** The section of the search page with this id (its heading's), or '' when there is none. */
function group(html: string, id: string): string {
  return (
    new RegExp(`<section class="search-group" aria-labelledby="${id}">[\\s\\S]*?</section>`).exec(
      html,
    )?.[0] ?? ''
  );
}

/** The href of the link with this text (entities as the page writes them). */
function linkTo(html: string, text: string | RegExp): string {
  const links = [...html.matchAll(/<a [^>]*href="([^"]+)"[^>]*>([\s\S]*?)<\/a>/g)];
  const found = links.find((m) =>
    typeof text === 'string' ? textOf(m[2]!) === text : text.test(textOf(m[2]!)),
  );
  if (!found) throw new Error(`no link ${text}`);
  return found[1]!.replace(/&amp;/g, '&');
}

const countText = (html: string) =>
  textOf(/<p class="muted list-count">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '');

describe.each(dialects())('finding customers in the dashboard on %s', (dialect) => {
  let ctx: TestContext;
  let office: Browser;
  let empty: Browser;
  const ids: Record<string, string> = {};

  /** Runs `fn` with the clock at `at` (Date only: the lead's times and ids come from it). */
  async function at<T>(time: number, fn: () => Promise<T>): Promise<T> {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(time);
    try {
      return await fn();
    } finally {
      vi.useRealTimers();
    }
  }

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    await addUser(ctx.app, ctx.brandId, 'office@acme.example');
    office = await signedIn(ctx.app, 'office@acme.example');
    const sanne = {
      customerName: 'Sanne Jansen',
      email: 'sanne@jansen-utrecht.nl',
      phone: '+31 6 1234 5678',
      street: 'Oudegracht',
      streetNumber: '12',
      postalCode: '3511 AB',
      city: 'Utrecht',
    };
    // Last year's job for Sanne, done and completed then.
    const lastYear = Date.now() - YEAR;
    const boiler = await at(lastYear, () => ctx.createLead({ ...sanne, title: 'Boiler service' }));
    ids.boiler = boiler.id as string;
    ids.sanne = boiler.customerId as string;
    for (const [i, status] of ['scheduled', 'planned', 'in_progress', 'completed'].entries()) {
      await at(lastYear + (i + 1) * 3_600_000, () => ctx.setStatus(ids.boiler!, status));
    }
    const gutter = await at(lastYear + 30 * 86_400_000, () =>
      ctx.createLead({ ...sanne, title: 'Gutter cleaning' }),
    );
    ids.gutter = gutter.id as string;
    await ctx.setStatus(ids.gutter, 'cancelled');
    // People in between, for the pages (25 a page).
    // Each in a millisecond of its own: customers are listed newest first, and a tie falls to their random ids.
    for (let n = 1; n <= PAGING_PEOPLE; n++) {
      await nextMillisecond();
      await ctx.createLead({ customerName: `Paging Person ${n}`, title: `Window frame ${n}`, phone: '' });
    }
    await nextMillisecond();
    ids.bakker = (
      await ctx.createLead({
        customerName: 'Piet Bakker',
        companyName: 'Bakker Vastgoed',
        email: 'piet@bakker.example',
        phone: '+31 20 555 1234',
        postalCode: '1015 CJ',
        title: 'Radiator cold',
      })
    ).customerId as string;
    await nextMillisecond();
    const erased = await ctx.createLead({
      customerName: 'Erik Vergeten',
      email: 'erik@vergeten.example',
      title: 'Roof tiles',
    });
    ids.erased = erased.customerId as string;
    const erasure = await ctx.api.post(`/v1/customers/${ids.erased}/erase`, {});
    expect(erasure.statusCode).toBe(200);
    // Sanne is back this year: an open lead.
    ids.tap = (await ctx.createLead({ ...sanne, title: 'Leaking tap' })).id as string;
    // Another brand with a customer of the same name, email domain and postal code.
    await ctx.createLead(
      { ...sanne, email: 'sanne@jansen-elders.nl', phone: '+31 6 1234 5678', title: 'Other brand boiler' },
      ctx.keys.other,
    );
    // A brand without any lead yet.
    const newBrand = await createBrand(ctx.app.deps.database, {
      language: 'en',
      name: 'New Builders',
      country: 'NL',
    });
    await addUser(ctx.app, newBrand.id, 'new@builders.example');
    empty = await signedIn(ctx.app, 'new@builders.example');
  }, 60_000);

  afterAll(async () => {
    vi.useRealTimers();
    await ctx?.close();
  });

  describe('the customers list', () => {
    it('lists the brand’s customers newest first, 25 a page, with "Older" to the rest', async () => {
      const first = await office.get('/dashboard/customers');
      expect(first.statusCode).toBe(200);
      const total = PAGING_PEOPLE + 3; // Sanne, Bakker Vastgoed, the erased customer
      expect(countText(first.body)).toBe(`1–25 of ${total}`);
      const page1 = rows(first.body);
      expect(page1).toHaveLength(25);
      // Newest first: the erased customer came after Bakker, who came after the paging people.
      expect(page1[0]!.Customer).toContain('Erased customer');
      expect(page1[1]!.Customer).toBe('Bakker Vastgoed Piet Bakker');
      expect(page1[2]!.Customer).toBe(`Paging Person ${PAGING_PEOPLE}`);
      expect(page1[3]!.Customer).toBe(`Paging Person ${PAGING_PEOPLE - 1}`);

      const second = await office.get(linkTo(first.body, 'Older →'));
      expect(second.statusCode).toBe(200);
      expect(countText(second.body)).toBe(`26–${total} of ${total}`);
      const page2 = rows(second.body);
      expect(page2.map((r) => r.Customer)).toEqual([
        'Paging Person 4',
        'Paging Person 3',
        'Paging Person 2',
        'Paging Person 1',
        'Sanne Jansen',
      ]);
      expect(second.body).not.toContain('Older →');
      expect(linkTo(second.body, '← Newest')).toBe('/dashboard/customers');
      // Another brand's Sanne Jansen is on neither page.
      expect(first.body + second.body).not.toContain('sanne@jansen-elders.nl');
    });

    it('shows name, email, phone as written nationally, the count of leads and the latest lead', async () => {
      const res = await office.get('/dashboard/customers?q=Jansen');
      const [sanne, ...others] = rows(res.body);
      expect(others).toEqual([]);
      expect(sanne).toMatchObject({
        Customer: 'Sanne Jansen',
        Email: 'sanne@jansen-utrecht.nl',
        Phone: '06 12345678',
        Leads: '3',
      });
      // Her latest lead is this year's (the open one), not last year's.
      expect(sanne!['Latest lead']).toContain(String(new Date().getUTCFullYear()));
      expect(res.body).toContain(`href="/dashboard/customers/${ids.sanne}"`);
    });

    it('finds a customer by name, email, phone in any format, and postal code; never another brand’s', async () => {
      const searches = [
        'Jansen',
        'sanne jan',
        'sanne@jansen-utrecht.nl',
        'jansen-utrecht',
        '06 1234 5678',
        '0612345678',
        '+31612345678',
        '3511 AB',
        '3511ab',
      ];
      for (const q of searches) {
        const res = await office.get(`/dashboard/customers?q=${encodeURIComponent(q)}`);
        expect(res.statusCode, q).toBe(200);
        expect(
          rows(res.body).map((r) => r.Customer),
          q,
        ).toEqual(['Sanne Jansen']);
        expect(countText(res.body), q).toBe('1–1 of 1');
        expect(res.body, q).not.toContain('sanne@jansen-elders.nl');
      }
      const business = await office.get('/dashboard/customers?q=020%205551234');
      expect(rows(business.body).map((r) => r.Customer)).toEqual(['Bakker Vastgoed Piet Bakker']);
      // The other brand finds its own Sanne only.
      const other = await ctx.api.get('/v1/customers?q=Jansen', { key: ctx.keys.other });
      expect(other.json().data).toHaveLength(1);
    });

    it('an erased customer shows as erased, without personal data, and no search finds it by what was erased', async () => {
      const res = await office.get('/dashboard/customers');
      const row = rows(res.body).find((r) => r.Customer?.includes('Erased customer'))!;
      expect(row).toMatchObject({ Customer: 'Erased customer Personal data erased', Email: '', Phone: '' });
      expect(res.body).not.toContain('Erik');
      expect(res.body).not.toContain('vergeten');
      const byName = await office.get('/dashboard/customers?q=Vergeten');
      expect(rows(byName.body)).toEqual([]);
    });

    it('says so when nothing is found, when the search is too short, and when there are no customers yet', async () => {
      const nothing = await office.get('/dashboard/customers?q=Zwartjes');
      expect(nothing.statusCode).toBe(200);
      expect(textOf(nothing.body)).toContain('Nothing found for “Zwartjes”');
      expect(nothing.body).toContain('value="Zwartjes"');
      const short = await office.get('/dashboard/customers?q=ab');
      expect(textOf(short.body)).toContain(
        'Type at least 3 letters or digits to search (“ab” is too short).',
      );
      expect(rows(short.body)).toEqual([]);
      const none = await empty.get('/dashboard/customers');
      expect(none.statusCode).toBe(200);
      expect(textOf(none.body)).toContain(
        'No customers yet They appear when the first lead comes in: from your website form, through the API, or typed in with New lead.',
      );
      // The new brand finds nothing of Acme's either.
      expect(rows((await empty.get('/dashboard/customers?q=Jansen')).body)).toEqual([]);
    });

    it('a page link that is out of date is a 422 that says to start again', async () => {
      const res = await office.get('/dashboard/customers?cursor=l1.bogus');
      expect(res.statusCode).toBe(422);
      expect(textOf(res.body)).toContain('Page link is out of date: start again from the newest.');
    });

    it('counts a new customer at once (the count is kept only while nothing changed)', async () => {
      const before = countText((await office.get('/dashboard/customers')).body);
      const total = Number(/of (\d+)$/.exec(before)?.[1]);
      await ctx.createLead({ customerName: 'Nieuwe Klant', title: 'Tap drips' });
      const after = await office.get('/dashboard/customers');
      expect(countText(after.body)).toBe(`1–25 of ${total + 1}`);
      expect(rows(after.body)[0]!.Customer).toBe('Nieuwe Klant');
    });

    it('is in the navigation, marked as the current page', async () => {
      const res = await office.get('/dashboard/customers');
      expect(res.body).toContain('<a href="/dashboard/customers" aria-current="page">Customers</a>');
      const leads = await office.get('/dashboard/leads');
      expect(leads.body).toContain('<a href="/dashboard/customers">Customers</a>');
      // A customer's pages are under Customers, and lead back to the list.
      for (const url of [`/dashboard/customers/${ids.sanne}`, `/dashboard/customers/${ids.sanne}/edit`]) {
        const one = await office.get(url);
        expect(one.body, url).toContain('<a href="/dashboard/customers" aria-current="page">Customers</a>');
      }
      const sanne = await office.get(`/dashboard/customers/${ids.sanne}`);
      expect(sanne.body).toContain(
        '<p class="breadcrumb"><a href="/dashboard/customers">← Customers</a></p>',
      );
    });
  });

  describe('the search across everything', () => {
    it('is a GET form in the header of every dashboard page', async () => {
      for (const url of ['/dashboard/leads', '/dashboard/customers', `/dashboard/leads/${ids.tap}`]) {
        const res = await office.get(url);
        expect(res.body, url).toMatch(
          /<form class="site-search" method="get" action="\/dashboard\/search" role="search" aria-label="Search leads, work items and customers">\s*<label class="visually-hidden" for="site-search-q">Search leads, work items and customers<\/label>\s*<input id="site-search-q"[^>]* name="q" type="search"/,
        );
      }
    });

    it('finds last year’s completed job, the cancelled and the open lead and the customer, grouped', async () => {
      const res = await office.get('/dashboard/search?q=Jansen');
      expect(res.statusCode).toBe(200);
      const leads = group(res.body, 'search-leads');
      const work = group(res.body, 'search-work-items');
      const customers = group(res.body, 'search-customers');
      expect(rows(leads).map((r) => [r.Job, r.State])).toEqual([
        [expect.stringContaining('Leaking tap'), 'Request'],
        [expect.stringContaining('Gutter cleaning'), 'Cancelled'],
      ]);
      expect(rows(work).map((r) => [r.Job, r.State])).toEqual([
        [expect.stringContaining('Boiler service'), 'Completed'],
      ]);
      expect(rows(customers).map((r) => r.Customer)).toEqual(['Sanne Jansen']);
      expect(textOf(leads)).toContain('Leads 2');
      expect(res.body).not.toContain('Other brand boiler');
      expect(res.body).not.toContain('sanne@jansen-elders.nl');
    });

    it('each group’s "all N results" opens its list with the same search and every state, showing N', async () => {
      const res = await office.get('/dashboard/search?q=sanne%40jansen-utrecht.nl');
      const leadsHref = linkTo(group(res.body, 'search-leads'), 'All 2 results');
      expect(leadsHref).toBe(
        '/dashboard/leads?q=sanne%40jansen-utrecht.nl&status=request%2Cquoted%2Ccancelled',
      );
      const leads = await office.get(leadsHref);
      expect(leads.statusCode).toBe(200);
      expect(countText(leads.body)).toBe('1–2 of 2');
      expect(rows(leads.body).map((r) => r.State)).toEqual(['Request', 'Cancelled']);
      expect(leads.body).toMatch(
        /<option value="request,quoted,cancelled" selected>Open and cancelled<\/option>/,
      );

      const workHref = linkTo(group(res.body, 'search-work-items'), '1 result in the list');
      expect(workHref).toBe('/dashboard/work-items?q=sanne%40jansen-utrecht.nl');
      const work = await office.get(workHref);
      expect(countText(work.body)).toBe('1–1 of 1');
      expect(rows(work.body).map((r) => r.State)).toEqual(['Completed']);

      const customersHref = linkTo(group(res.body, 'search-customers'), '1 result in the list');
      expect(customersHref).toBe('/dashboard/customers?q=sanne%40jansen-utrecht.nl');
      expect(rows((await office.get(customersHref)).body).map((r) => r.Customer)).toEqual(['Sanne Jansen']);

      // The leads page's own filter offers the same choice, and its CSV export takes it.
      const csv = await office.get(`${leadsHref.replace('/dashboard/leads', '/dashboard/leads/export.csv')}`);
      expect(csv.statusCode).toBe(200);
      expect(csv.body).toContain('Gutter cleaning');
      expect(csv.body).toContain('Leaking tap');
      expect(csv.body).not.toContain('Boiler service');
    });

    it('shows the first 5 of a group and links to all of them', async () => {
      const res = await office.get('/dashboard/search?q=Window%20frame');
      const leads = group(res.body, 'search-leads');
      expect(rows(leads)).toHaveLength(5);
      expect(rows(leads)[0]!.Job).toContain(`Window frame ${PAGING_PEOPLE}`);
      const all = await office.get(linkTo(leads, `All ${PAGING_PEOPLE} results`));
      expect(countText(all.body)).toBe(`1–25 of ${PAGING_PEOPLE}`);
      expect(rows(group(res.body, 'search-customers'))).toHaveLength(5);
      expect(textOf(group(res.body, 'search-customers'))).toContain(`All ${PAGING_PEOPLE} results`);
      expect(textOf(group(res.body, 'search-work-items'))).toContain('None found.');
    });

    it('says what to type, when a search is too short, and when nothing is found', async () => {
      const blank = await office.get('/dashboard/search');
      expect(blank.statusCode).toBe(200);
      expect(textOf(blank.body)).toContain('Type a name, company, email address, phone number');
      expect(blank.body).toMatch(/<input id="field-q" name="q" type="search" value=""[^>]* autofocus>/);
      const short = await office.get('/dashboard/search?q=%20j%20');
      expect(textOf(short.body)).toContain('(“j” is too short)');
      const nothing = await office.get('/dashboard/search?q=Zwartjes');
      expect(textOf(nothing.body)).toContain('Nothing found for “Zwartjes”');
      expect(nothing.body).not.toContain('search-group');
      // A brand without leads finds nothing of another's.
      const other = await empty.get('/dashboard/search?q=Jansen');
      expect(textOf(other.body)).toContain('Nothing found for “Jansen”');
    });

    it('needs a signed-in user', async () => {
      for (const url of ['/dashboard/search?q=Jansen', '/dashboard/customers']) {
        const res = await ctx.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(302);
        expect(res.headers.location, url).toBe(`/sign-in?next=${encodeURIComponent(url)}`);
      }
    });
  });
});
