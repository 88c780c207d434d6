// Customers in the dashboard: the customer page (contact details, every lead and work item), the links to it from
// lead pages and lists, company names in the lists, and "Use these details" (the contact details a lead was
// submitted with, applied to its customer, with a customer.updated event and a line in the lead's history).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/dashboard/plugin.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

/** Rows of the table on a customer page: [title, state, priority, address]. */
function customerRows(html: string): string[][] {
  const table = /<table class="list customer-leads">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
  return [...table.matchAll(/<tr>\s*<td data-label="Job"[\s\S]*?<\/tr>/g)].map((m) => {
    const cell = (label: string) =>
      textOf(new RegExp(`<td data-label="${label}"[^>]*>([\\s\\S]*?)</td>`).exec(m[0])?.[1] ?? '');
    return [cell('Job'), cell('State'), cell('Priority'), cell('Address')];
  });
}

/** The list row of the job with this title. */
function listRow(html: string, title: string): string {
  const row = [...html.matchAll(/<tr>\s*<td data-label="Job"[\s\S]*?<\/tr>/g)].find((m) =>
    m[0].includes(`>${title}</a>`),
  );
  if (!row) throw new Error(`no row for ${title}`);
  return row[0];
}

/** The customer cell of a list row. */
function customerCell(row: string): string {
  return /<td data-label="Customer">([\s\S]*?)<\/td>/.exec(row)?.[1] ?? '';
}

describe.each(dialects())('dashboard customers on %s', (dialect) => {
  let ctx: TestContext;
  let browser: Browser;
  let userId: string;
  const USER = 'office@acme.example';
  /** Lead ids and customer ids by name. */
  const lead: Record<string, string> = {};
  const customer: Record<string, string> = {};

  const customerUpdatedEvents = async () =>
    (await ctx.api.get('/v1/events?type=customer.updated&limit=100')).json().data as {
      data: { customer: { id: string }; changed: string[] };
    }[];
  const activityRows = (leadId: string) =>
    ctx.app.deps.database.db
      .selectFrom('lead_activity')
      .select(['kind', 'actor_type', 'actor_id', 'actor_name', 'detail'])
      .where('lead_id', '=', leadId)
      .execute();

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    userId = (await addUser(ctx.app, ctx.brandId, USER)).id;
    browser = await signedIn(ctx.app, USER);
    const create = async (name: string, fields: Record<string, unknown>, key?: string) => {
      const created = await ctx.createLead(fields, key);
      lead[name] = created.id as string;
      return created.customerId as string;
    };
    // Sam: first lead creates the customer; the second links by email and keeps its own name and phone with it.
    const sam = {
      customerName: 'Sam Jansen',
      email: 'sam@example.com',
      phone: '+31 6 1111 2222',
    };
    customer.sam = await create('samFirst', { title: 'Boiler service', ...sam, priority: 'high' });
    await create('samSecond', {
      title: 'Roof leak',
      ...sam,
      customerName: 'Samuel Jansen',
      phone: '+31 6 3333 4444',
      street: 'Oudegracht',
      streetNumber: '12',
      postalCode: '3511 AB',
      city: 'Utrecht',
    });
    await create('samScheduled', { title: 'Gutter cleaning', ...sam });
    await ctx.setStatus(lead.samScheduled!, 'scheduled');
    await create('samCancelled', { title: 'Cancelled job', ...sam });
    await ctx.setStatus(lead.samCancelled!, 'cancelled');
    // A business customer, with a lead and a work item.
    const bakker = { customerName: 'Cor Bakker', companyName: 'Bakker BV', email: 'cor@bakker.example' };
    customer.bakker = await create('tiles', { title: 'Bathroom tiles', ...bakker });
    await create('bakkerWork', { title: 'Kitchen floor', ...bakker });
    await ctx.setStatus(lead.bakkerWork!, 'scheduled');
    // Another brand: the same email, and a second lead whose submission differs.
    customer.other = await create('otherFirst', { title: 'Other brand job', ...sam }, ctx.keys.other);
    await create(
      'otherSecond',
      { title: 'Other brand job 2', ...sam, customerName: 'Mallory' },
      ctx.keys.other,
    );
  });
  afterAll(async () => ctx?.close());

  it("shows a customer's contact details, type and every lead and work item in any state, newest first", async () => {
    const res = await browser.get(`/dashboard/customers/${customer.sam}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('<h1 class="lead-title">Sam Jansen</h1>');
    const text = textOf(res.body);
    expect(text).toContain('Name Sam Jansen');
    expect(text).toContain('Type Person');
    expect(text).toContain('Leads 4');
    expect(text).toContain(`Reference ${customer.sam}`);
    expect(text).toMatch(/Created \w{3}, \d{1,2} \w{3} \d{4}, \d\d:\d\d/);
    expect(res.body).toContain('<a href="mailto:sam@example.com">sam@example.com</a>');
    expect(res.body).toContain('<a href="tel:+31611112222">06 11112222</a>');
    expect(customerRows(res.body)).toEqual([
      ['Cancelled job', 'Cancelled', 'Medium', 'Keizersgracht 123, 1015 CJ Amsterdam'],
      ['Gutter cleaning', 'Scheduled', 'Medium', 'Keizersgracht 123, 1015 CJ Amsterdam'],
      ['Roof leak', 'Request', 'Medium', 'Oudegracht 12, 3511 AB Utrecht'],
      ['Boiler service', 'Request', 'High', 'Keizersgracht 123, 1015 CJ Amsterdam'],
    ]);
    for (const id of [lead.samFirst, lead.samSecond, lead.samScheduled, lead.samCancelled]) {
      expect(res.body).toContain(`<a href="/dashboard/leads/${id}">`);
    }
    // Only this customer's leads.
    expect(res.body).not.toContain('Bathroom tiles');
    expect(res.body).not.toContain('Other brand job');

    const business = await browser.get(`/dashboard/customers/${customer.bakker}`);
    expect(business.body).toContain('<h1 class="lead-title">Bakker BV</h1>');
    const businessText = textOf(business.body);
    expect(businessText).toContain('Type Business');
    expect(businessText).toContain('Company Bakker BV');
    expect(businessText).toContain('Name Cor Bakker');
    expect(customerRows(business.body).map((r) => r.slice(0, 2))).toEqual([
      ['Kitchen floor', 'Scheduled'],
      ['Bathroom tiles', 'Request'],
    ]);
  });

  it("another brand's customer and an unknown id are the dashboard's 404", async () => {
    for (const id of [customer.other, 'cus_00000000000000000000000000', 'nope', '%3Cscript%3E']) {
      const res = await browser.get(`/dashboard/customers/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(textOf(res.body)).toContain('This page does not exist, or you have no access to it.');
      expect(res.body).not.toContain('Other brand job');
      expect(res.body).not.toContain('<script>');
    }
    // Signed out: to sign-in, as every dashboard page.
    const anonymous = await ctx.app.inject({ url: `/dashboard/customers/${customer.sam}` });
    expect(anonymous.statusCode).toBe(302);
    expect(anonymous.headers.location).toBe(
      `/sign-in?next=${encodeURIComponent(`/dashboard/customers/${customer.sam}`)}`,
    );
  });

  it("links to the customer's page from each lead page and from both lists' customer column", async () => {
    const page = await browser.get(`/dashboard/leads/${lead.samFirst}`);
    expect(page.body).toContain(`<a href="/dashboard/customers/${customer.sam}">Sam Jansen</a>`);
    expect(textOf(page.body)).toContain('All leads of this customer');

    const leads = await browser.get('/dashboard/leads');
    const samCell = customerCell(listRow(leads.body, 'Roof leak'));
    expect(samCell).toContain(
      `<a class="customer-link" href="/dashboard/customers/${customer.sam}">Sam Jansen</a>`,
    );
    expect(textOf(samCell)).toBe('Sam Jansen sam@example.com');

    const work = await browser.get('/dashboard/work-items');
    expect(customerCell(listRow(work.body, 'Gutter cleaning'))).toContain(
      `href="/dashboard/customers/${customer.sam}"`,
    );
  });

  it('shows business customers by their company name in both lists, with the person below', async () => {
    const leads = await browser.get('/dashboard/leads');
    const cell = customerCell(listRow(leads.body, 'Bathroom tiles'));
    expect(cell).toContain(
      `<a class="customer-link" href="/dashboard/customers/${customer.bakker}">Bakker BV</a>`,
    );
    expect(cell).toContain('<span class="sub">Cor Bakker</span>');
    expect(textOf(cell)).toBe('Bakker BV Cor Bakker cor@bakker.example');

    const work = await browser.get('/dashboard/work-items');
    expect(textOf(customerCell(listRow(work.body, 'Kitchen floor')))).toBe(
      'Bakker BV Cor Bakker cor@bakker.example',
    );
  });

  it('shows no comparison when the submission matches the customer', async () => {
    const res = await browser.get(`/dashboard/leads/${lead.samFirst}`);
    expect(res.body).not.toContain('Submitted with this lead');
    expect(res.body).not.toContain('/use-submitted');
  });

  it('refuses "Use these details" without the right form token (403) and changes nothing', async () => {
    const page = await browser.get(`/dashboard/leads/${lead.samSecond}`);
    expect(page.body).toContain(
      `<form class="actions" method="post" action="/dashboard/leads/${lead.samSecond}/use-submitted">`,
    );
    const before = (await ctx.api.get(`/v1/customers/${customer.sam}`)).json();
    const events = (await customerUpdatedEvents()).length;
    const url = `/dashboard/leads/${lead.samSecond}/use-submitted`;
    // The real token with its last character changed (to another one, whatever it was).
    const altered = `${browser.csrf.slice(0, -1)}${browser.csrf.endsWith('A') ? 'B' : 'A'}`;
    for (const csrf of [undefined, '', 'x'.repeat(43), altered]) {
      const res = await browser.post(url, { _csrf: csrf });
      expect(res.statusCode).toBe(403);
      expect(textOf(res.body)).toContain('This form has expired');
    }
    const crossSite = await browser.post(url, {}, { origin: 'https://evil.example' });
    expect(crossSite.statusCode).toBe(403);
    expect((await ctx.api.get(`/v1/customers/${customer.sam}`)).json()).toEqual(before);
    expect(await customerUpdatedEvents()).toHaveLength(events);
    expect(await activityRows(lead.samSecond!)).toEqual([]);
  });

  it("another brand's lead is a 404 and its customer is untouched", async () => {
    await browser.get(`/dashboard/leads/${lead.samSecond}`);
    const res = await browser.post(`/dashboard/leads/${lead.otherSecond}/use-submitted`);
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('Mallory');
    const theirs = (await ctx.api.get(`/v1/customers/${customer.other}`, { key: ctx.keys.other })).json();
    expect(theirs.name).toBe('Sam Jansen');
    expect(await activityRows(lead.otherSecond!)).toEqual([]);
    expect(
      (await browser.post('/dashboard/leads/wrk_00000000000000000000000000/use-submitted')).statusCode,
    ).toBe(404);
  });

  it('shows the submitted details next to the record and applies them: customer.updated, history, notice', async () => {
    const page = await browser.get(`/dashboard/leads/${lead.samSecond}`);
    expect(page.statusCode).toBe(200);
    const section =
      /<section class="card card-highlight" aria-labelledby="submitted-title">[\s\S]*?<\/section>/.exec(
        page.body,
      )?.[0];
    expect(section).toBeDefined();
    const rows = [...section!.matchAll(/<tr>\s*<td[\s\S]*?<\/tr>/g)].map((m) => textOf(m[0]));
    expect(rows).toEqual(['Name Samuel Jansen Sam Jansen', 'Phone 06 33334444 06 11112222']);
    expect(section).toContain('<th scope="col">Submitted</th><th scope="col">Customer record</th>');
    expect(section).toContain(`name="_csrf" value="${browser.csrf}"`);
    expect(section).toContain(
      '<button type="submit" class="button button-primary">Use these details</button>',
    );

    const events = (await customerUpdatedEvents()).length;
    const res = await browser.post(`/dashboard/leads/${lead.samSecond}/use-submitted`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/leads/${lead.samSecond}?applied=name%2Cphone`);

    const after = await browser.get(res.headers.location as string);
    expect(after.statusCode).toBe(200);
    const text = textOf(after.body);
    expect(text).toContain('Customer details updated: name, phone.');
    expect(after.body).not.toContain('Submitted with this lead');
    expect(text).toMatch(
      /Applied the submitted details to the customer: name, phone · \w{3}, \d{1,2} \w{3} \d{4}, \d\d:\d\d · by office@acme\.example/,
    );
    // In the timeline above the lead's first state (newest first).
    expect(after.body).toMatch(
      /<ol class="feed"><li class="feed-activity">[\s\S]*?<li class="feed-change"><p class="feed-meta"><span class="badge badge-request">/,
    );

    const record = (await ctx.api.get(`/v1/customers/${customer.sam}`)).json();
    expect(record).toMatchObject({ name: 'Samuel Jansen', phone: '+31633334444', email: 'sam@example.com' });
    const updated = await customerUpdatedEvents();
    expect(updated).toHaveLength(events + 1);
    expect(updated[0]!.data.customer.id).toBe(customer.sam);
    expect(updated[0]!.data.changed).toEqual(['name', 'phone']);
    const activity = await activityRows(lead.samSecond!);
    expect(activity).toHaveLength(1);
    expect(activity[0]).toMatchObject({
      kind: 'customer_details_applied',
      actor_type: 'user',
      actor_id: userId,
      actor_name: USER,
    });

    // The customer page shows the new details; the first lead now differs the other way round.
    const customerPage = textOf((await browser.get(`/dashboard/customers/${customer.sam}`)).body);
    expect(customerPage).toContain('Name Samuel Jansen');
    expect(customerPage).toContain('Phone 06 33334444');
    const first = await browser.get(`/dashboard/leads/${lead.samFirst}`);
    expect(first.body).toContain('Submitted with this lead');

    // Sending the form again (a second tab, a double click) changes nothing and says so.
    const again = await browser.post(`/dashboard/leads/${lead.samSecond}/use-submitted`);
    expect(again.headers.location).toBe(`/dashboard/leads/${lead.samSecond}?applied=none`);
    expect(textOf((await browser.get(again.headers.location as string)).body)).toContain(
      'Nothing to apply: the customer already has these details.',
    );
    expect(await customerUpdatedEvents()).toHaveLength(events + 1);
    expect(await activityRows(lead.samSecond!)).toHaveLength(1);
  });

  it('a notice only names fields it knows', async () => {
    const res = await browser.get(
      `/dashboard/leads/${lead.samSecond}?applied=${encodeURIComponent('<b>x</b>,toString')}`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('Customer details updated');
    expect(res.body).not.toContain('<b>x</b>');
  });

  it('is a 409 that says why, and changes nothing, when the submitted email belongs to another customer', async () => {
    // Customers cannot take each other's email through the API alone; a change made elsewhere (here: directly
    // in the database) can leave a lead's submitted email with another customer.
    const db = ctx.app.deps.database.db;
    const original = await ctx.createLead({
      title: 'Fence repair',
      customerName: 'Rik',
      email: 'rik@example.com',
    });
    const rik = original.customerId as string;
    await db
      .updateTable('customers')
      .set({ email: 'rik@old.example', email_normalized: 'rik@old.example' })
      .where('id', '=', rik)
      .execute();
    const taker = await ctx.createLead({ title: 'Other job', customerName: 'Ria', email: 'rik@example.com' });
    expect(taker.customerId).not.toBe(rik);

    const page = await browser.get(`/dashboard/leads/${original.id}`);
    expect(textOf(page.body)).toContain('Email rik@example.com rik@old.example');
    const events = (await customerUpdatedEvents()).length;
    const res = await browser.post(`/dashboard/leads/${original.id}/use-submitted`);
    expect(res.statusCode).toBe(409);
    const text = textOf(res.body);
    expect(text).toContain(
      'Another customer already has the email rik@example.com; the details were not applied.',
    );
    expect(res.body).toContain(
      `<a href="/dashboard/customers/${taker.customerId}">Open the customer with that email</a>`,
    );
    // Still the lead's page, with the comparison, so the user can go on from here.
    expect(res.body).toContain('<h1 class="lead-title">Fence repair</h1>');
    expect(res.body).toContain('Submitted with this lead');
    expect((await ctx.api.get(`/v1/customers/${rik}`)).json().email).toBe('rik@old.example');
    expect(await customerUpdatedEvents()).toHaveLength(events);
    expect(await activityRows(original.id as string)).toEqual([]);
  });

  it('shows HTML in names, companies and submitted details as text on every page', async () => {
    const evil = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    const escaped = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;';
    const first = await ctx.createLead({
      title: `${evil} Sink`,
      customerName: `${evil} Mallory`,
      companyName: `${evil} Ltd`,
      email: 'mallory@example.com',
    });
    const second = await ctx.createLead({
      title: 'Second sink',
      customerName: `${evil} Mallory II`,
      companyName: `${evil} Holding`,
      email: 'mallory@example.com',
    });
    const pages = [
      await browser.get(`/dashboard/customers/${first.customerId}`),
      await browser.get(`/dashboard/leads/${second.id}`),
      await browser.get('/dashboard/leads'),
    ];
    for (const res of pages) {
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('<script>alert');
      expect(res.body).not.toContain('<img src=x');
      expect(res.body).toContain(escaped);
      expect([...res.body.matchAll(/<script[^>]*>/g)]).toHaveLength(1);
    }
    expect(pages[0]!.body).toContain(`<title>${escaped} Ltd · lead-intake</title>`);
    expect(pages[1]!.body).toContain('Submitted with this lead');
    expect(pages[1]!.body).toContain(`${escaped} Mallory II`);
    expect(pages[1]!.body).toContain(`${escaped} Holding`);
  });
});
