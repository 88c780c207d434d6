// New lead in the dashboard: a lead typed in during a call (source "phone") or from elsewhere ("dashboard"),
// with the user who typed it, a national phone number, the API's validation, and the customer it will be added to
// suggested before saving by the same rules as saving.
import { beforeAll, describe, expect, it } from 'vitest';
import { LEAD_FIELDS } from '../../src/leads/input.js';
import { dialects } from '../helpers.js';
import { useTestContext } from '../test-context.js';
import { addUser, Browser, phonedInLead, signedIn, textOf } from './helpers.js';

const OFFICE = 'sanne@acme.example';

describe.each(dialects())('new lead in the dashboard on %s', (dialect) => {
  const ctx = useTestContext(dialect);
  let browser: Browser;
  let userId: string;

  beforeAll(async () => {
    userId = (await addUser(ctx.app, ctx.brandId, OFFICE)).id;
    browser = await signedIn(ctx.app, OFFICE);
  });

  const readLead = async (id: string) => (await ctx.api.get(`/v1/leads/${id}`)).json();
  const leadCount = async () =>
    Number(
      (
        await ctx.app.deps.database.db
          .selectFrom('leads')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('brand_id', '=', ctx.brandId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** Saves a typed lead; returns its id (from the 303). */
  const save = async (fields: Record<string, string>) => {
    const res = await browser.post('/dashboard/leads/new', phonedInLead(fields));
    expect(res.statusCode, textOf(res.body)).toBe(303);
    const match = /^\/dashboard\/leads\/(wrk_[0-9A-Za-z]+)\?created=1$/.exec(String(res.headers.location));
    expect(match, String(res.headers.location)).not.toBeNull();
    return match![1]!;
  };
  const match = (query: string, who = browser) => who.get(`/dashboard/customers/match?${query}`);

  it('the lead list links to New lead; the page has every lead field with its label, and "Save lead"', async () => {
    const list = await browser.get('/dashboard/leads');
    expect(list.body).toContain('href="/dashboard/leads/new"');
    const res = await browser.get('/dashboard/leads/new');
    expect(res.statusCode).toBe(200);
    for (const { name } of LEAD_FIELDS) {
      expect(res.body, name).toMatch(new RegExp(`<label for="field-${name}">[^<]+`));
      expect(res.body, name).toMatch(new RegExp(`id="field-${name}" name="${name}"`));
    }
    expect(res.body).toContain('<legend>How did it come in</legend>');
    expect(res.body).toMatch(/id="source-phone" name="source" value="phone"[^>]*checked/);
    expect(res.body).toContain('id="source-dashboard" name="source" value="dashboard"');
    expect(res.body).toMatch(/<option value="medium" selected>/);
    expect(res.body).toContain('<button type="submit" class="button button-primary">Save lead</button>');
    expect(res.body).toContain('aria-live="polite"');
    expect(res.body).toContain('name="_csrf"');
  });

  it('a bad post is a 422 with each message beside its field and the typed values kept; nothing is stored', async () => {
    const before = await leadCount();
    const res = await browser.post(
      '/dashboard/leads/new',
      phonedInLead({
        title: '  ',
        customerName: 'Sam <b>Jansen</b>',
        email: 'sam@',
        phone: '12',
        city: '',
        source: 'fax',
      }),
    );
    expect(res.statusCode).toBe(422);
    const body = res.body;
    expect(body).toContain('<p class="error" id="field-title-error">Job title is required.</p>');
    expect(body).toContain(
      '<p class="error" id="field-email-error">Email must be a valid email address, such as name@example.com.</p>',
    );
    expect(body).toMatch(/<p class="error" id="field-phone-error">Phone must be a phone number, such as 06/);
    expect(body).toContain('<p class="error" id="field-city-error">City is required.</p>');
    expect(body).toContain('id="field-source-error"');
    expect(body).toContain('value="Sam &lt;b&gt;Jansen&lt;/b&gt;"');
    expect(body).toContain('value="sam@"');
    expect(body).toContain('value="12"');
    expect(body).toMatch(/<option value="high" selected>/);
    // The list on top follows the form: how it came in, the customer, the job, the address.
    const summary = /<div class="error-summary"[\s\S]*?<\/ul>/.exec(body)?.[0] ?? '';
    expect([...summary.matchAll(/href="#field-([A-Za-z]+)"/g)].map((m) => m[1])).toEqual([
      'source',
      'phone',
      'email',
      'title',
      'city',
    ]);
    expect(await leadCount()).toBe(before);
  });

  it('saves a phone call: 303 to the lead with "Lead created", the user who typed it, the phone in E.164, lead.created', async () => {
    const id = await save({ phone: '06 1234 5678', customerName: 'Piet Phone', title: 'Tap drips' });
    const page = await browser.get(`/dashboard/leads/${id}?created=1`);
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('Lead created.');
    expect(text).toContain(`Source Phone (typed in by ${OFFICE})`);
    const lead = await readLead(id);
    expect(lead).toMatchObject({
      source: 'phone',
      sourceUserId: userId,
      sourceUserName: OFFICE,
      sourceKeyName: null,
      title: 'Tap drips',
      priority: 'high',
      customer: { name: 'Piet Phone', phone: '+31612345678' },
      address: { street: 'Oudegracht', postalCode: '3511 AB', country: 'NL' },
    });
    expect(lead.submitted.phone).toBe('+31612345678');
    const events = (await ctx.api.get('/v1/events?type=lead.created&limit=100')).json().data;
    const event = events.find((e: { data: { lead: { id: string } } }) => e.data.lead.id === id);
    expect(event?.data.lead.sourceUserName).toBe(OFFICE);
  });

  it('"Other" is stored as source "dashboard"; an international number and an empty country work too', async () => {
    const id = await save({
      source: 'dashboard',
      phone: '+32 470 12 34 56',
      country: '',
      title: 'From an email',
    });
    const lead = await readLead(id);
    expect(lead).toMatchObject({ source: 'dashboard', sourceUserId: userId, address: { country: 'NL' } });
    expect(lead.customer.phone).toBe('+32470123456');
  });

  it('a national number is read in the typed country', async () => {
    const id = await save({ phone: '0470 12 34 57', country: 'BE', title: 'Belgian customer' });
    expect((await readLead(id)).customer.phone).toBe('+32470123457');
  });

  it('needs the form token', async () => {
    const before = await leadCount();
    const res = await browser.post('/dashboard/leads/new', { ...phonedInLead(), _csrf: undefined });
    expect(res.statusCode).toBe(403);
    expect(await leadCount()).toBe(before);
  });

  it('the suggestion names the same customer saving links to, by each rule of the contract', async () => {
    // A: email and phone. B: a phone and no email. C1, C2: one phone, two emails, C2 with the latest lead.
    const a = await ctx.createLead({
      customerName: 'Anna Email',
      email: 'anna@match.example',
      phone: '+31611111111',
    });
    const b = await ctx.createLead({ customerName: 'Bob Phone', email: undefined, phone: '+31622222222' });
    await ctx.createLead({ customerName: 'Cor One', email: 'c1@match.example', phone: '+31633333333' });
    // C2's lead strictly later: two creates in one millisecond would tie, and a tie has no latest.
    await new Promise((resolve) => setTimeout(resolve, 3));
    const c2 = await ctx.createLead({
      customerName: 'Cor Two',
      email: 'c2@match.example',
      phone: '+31633333333',
    });

    // Email (any case) wins over a phone of someone else.
    let res = await match('email=ANNA%40match.example&phone=0622222222');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({
      match: { id: a.customerId, name: 'Anna Email', companyName: null, leadCount: 1 },
      rule: 'email',
    });
    let id = await save({ email: 'ANNA@match.example', phone: '06 2222 2222' });
    expect((await readLead(id)).customer.id).toBe(a.customerId);

    // A new email with the phone of a customer without email: that customer (who then gains the email).
    res = await match('email=bob%40match.example&phone=06%202222%202222');
    expect(res.json()).toMatchObject({ match: { id: b.customerId, name: 'Bob Phone' }, rule: 'phone' });
    id = await save({ email: 'bob@match.example', phone: '06 2222 2222' });
    expect((await readLead(id)).customer).toMatchObject({ id: b.customerId, email: 'bob@match.example' });

    // A new email with a phone only customers with an email have: nobody (a new customer).
    res = await match('email=carl%40match.example&phone=0633333333');
    expect(res.json()).toEqual({ match: null, rule: null });

    // No email, a phone several customers share: the one with the latest lead.
    res = await match('phone=06-33333333');
    expect(res.json()).toMatchObject({
      match: { id: c2.customerId, name: 'Cor Two', leadCount: 1 },
      rule: 'phone',
    });
    id = await save({ phone: '0633333333' });
    expect((await readLead(id)).customer.id).toBe(c2.customerId);

    // Nobody: a new customer.
    res = await match('email=nobody%40match.example');
    expect(res.json()).toEqual({ match: null, rule: null });
    id = await save({ email: 'nobody@match.example', customerName: 'New Person' });
    const created = (await readLead(id)).customer.id;
    expect([a.customerId, b.customerId, c2.customerId]).not.toContain(created);
  });

  it('the suggestion: nothing for what would not save, nothing of another brand or only spam, and a company by its name', async () => {
    await ctx.createLead({ customerName: 'Dirk', companyName: 'Dirk BV', email: 'dirk@match.example' });
    expect((await match('email=DIRK%40match.example')).json()).toMatchObject({
      match: { name: 'Dirk', companyName: 'Dirk BV' },
      rule: 'email',
    });
    // Half-typed or unusable: no suggestion.
    expect((await match('email=dirk%40')).json()).toEqual({ match: null, rule: null });
    expect((await match('email=dirk%40match.example&phone=12')).json()).toEqual({ match: null, rule: null });
    expect((await match('')).json()).toEqual({ match: null, rule: null });
    // Another brand's customer is never named.
    await ctx.createLead({ customerName: 'Other', email: 'other@match.example' }, ctx.keys.other);
    expect((await match('email=other%40match.example')).json()).toEqual({ match: null, rule: null });
    // A customer only spam has is known to nobody.
    const spam = await ctx.createLead({ customerName: 'Spammer', email: 'spam@match.example' });
    await ctx.app.deps.database.db
      .updateTable('leads')
      .set({ spam: 1 })
      .where('id', '=', spam.id as string)
      .execute();
    expect((await match('email=spam%40match.example')).json()).toEqual({ match: null, rule: null });
    // Other brands' users see their own customers only.
    await addUser(ctx.app, ctx.otherBrandId, 'office@other.example');
    const other = await signedIn(ctx.app, 'office@other.example');
    expect((await match('email=DIRK%40match.example', other)).json()).toEqual({ match: null, rule: null });
    expect((await match('email=other%40match.example', other)).json()).toMatchObject({ rule: 'email' });
  });

  it('the suggestion needs a session and is for the dashboard itself', async () => {
    const anonymous = new Browser(ctx.app);
    const res = await anonymous.get('/dashboard/customers/match?email=dirk%40match.example');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toMatch(/^\/sign-in/);
    expect(res.body).not.toContain('Dirk');
    const crossSite = await browser.get('/dashboard/customers/match?email=dirk%40match.example', {
      'sec-fetch-site': 'cross-site',
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.body).not.toContain('Dirk');
  });

  it('the lists filter by the sources phone and dashboard', async () => {
    const phone = await save({ title: 'Only by phone', phone: '0611112222' });
    const other = await save({ title: 'Only typed in', source: 'dashboard' });
    const byPhone = await browser.get('/dashboard/leads?source=phone');
    expect(byPhone.statusCode).toBe(200);
    expect(byPhone.body).toContain('<option value="phone" selected>Phone</option>');
    expect(byPhone.body).toContain('Only by phone');
    expect(byPhone.body).not.toContain('Only typed in');
    const typedIn = await browser.get('/dashboard/leads?source=dashboard');
    expect(typedIn.body).toContain('Only typed in');
    expect(typedIn.body).not.toContain('Only by phone');
    const ids = (await ctx.api.get('/v1/leads?source=dashboard&limit=100'))
      .json()
      .data.map((l: { id: string }) => l.id);
    expect(ids).toContain(other);
    expect(ids).not.toContain(phone);
  });
});
