// The Spam view: a honeypot post is listed there and nowhere else; "Not spam" makes it a lead as if it had arrived
// normally (customer linked and filled by the form posts' rules, lead.created); Delete; brand isolation, CSRF,
// escaping; and the worker removing spam older than 30 days when an instance starts.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createForm, type Form } from '../../src/forms/forms.js';
import { formPoster } from '../api.js';
import { dialects, formRateLimit, validLead } from '../helpers.js';
import { useTestContext } from '../test-context.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

const SITE = 'https://www.acme-plumbing.example';
const DAY = 24 * 60 * 60 * 1000;

describe.each(dialects())('dashboard spam on %s', (dialect) => {
  const ctx = useTestContext(dialect, {
    rateLimit: formRateLimit(),
  });
  let browser: Browser;
  let form: Form;

  beforeAll(async () => {
    form = await createForm(ctx.app.deps.database, ctx.brandId, { name: 'Website', allowedOrigins: [SITE] });
    await addUser(ctx.app, ctx.brandId, 'office@acme.example', 'member');
    browser = await signedIn(ctx.app, 'office@acme.example');
    await browser.get('/dashboard/spam');
  });

  const db = () => ctx.app.deps.database.db;
  /** A post to the form as a browser on the brand's site sends it; the honeypot filled unless told otherwise. */
  const post = async (fields: Record<string, unknown> = {}, formId = form.id) => {
    const values = validLead({ _gotcha: 'http://spam.example', ...fields }) as Record<string, string>;
    const res = await formPoster(ctx.app, SITE).form(formId, values);
    expect(res.statusCode, res.body).toBe(303);
    const row = await db()
      .selectFrom('leads')
      .select(['id', 'spam', 'customer_id'])
      .where('title', '=', values.title!)
      .executeTakeFirstOrThrow();
    return { ...row, values };
  };
  const leadIds = async () =>
    (await ctx.api.get('/v1/leads?limit=100')).json().data.map((l: { id: string }) => l.id) as string[];
  const events = async (type: string) =>
    (await ctx.api.get(`/v1/events?type=${type}&limit=100`)).json().data as {
      id: string;
      data: Record<string, { id: string }>;
    }[];

  it('lists a honeypot post under Spam with what was sent and the form, not under Leads', async () => {
    const spam = await post({
      title: 'Spammy boiler',
      customerName: 'Bot Bottom',
      phone: '06 1111 2222',
      description: 'Buy cheap things',
    });
    expect(spam.spam).toBe(1);
    const res = await browser.get('/dashboard/spam');
    expect(res.statusCode).toBe(200);
    const row = new RegExp(`<tr id="${spam.id}">[\\s\\S]*?</tr>`).exec(res.body)?.[0] ?? '';
    const text = textOf(row);
    for (const shown of [
      'Spammy boiler',
      'Buy cheap things',
      'Bot Bottom',
      spam.values.email!,
      '06 11112222',
    ]) {
      expect(text).toContain(shown);
    }
    expect(text).toContain('Website');
    expect(row).toContain('<time datetime=');
    expect(row).toContain(`action="/dashboard/spam/${spam.id}/release"`);
    expect(text).toContain('Not spam');

    const leads = await browser.get('/dashboard/leads');
    expect(leads.body).not.toContain('Spammy boiler');
    // The lead list leads to Spam, saying how many are held back.
    expect(leads.body).toMatch(
      /<a class="button button-quiet" href="\/dashboard\/spam">Spam <span class="badge[^"]*">\d+<\/span>/,
    );
    expect(await leadIds()).not.toContain(spam.id);
  });

  it('"Not spam" makes it a lead: in the list, lead.created, and its customer linked and filled by the rules', async () => {
    // A real lead from the same email, without a phone: the spam links to its customer quietly.
    const email = `sam-${Date.now()}@example.com`;
    const real = await ctx.createLead({ email, customerName: 'Sam Real' });
    const customerId = String(real.customerId);
    const spam = await post({
      email,
      customerName: 'Sam Spam',
      phone: '06 3333 4444',
      title: 'Real after all',
    });
    expect(spam.customer_id).toBe(customerId);
    const quiet = (await ctx.api.get(`/v1/customers/${customerId}`)).json();
    expect(quiet.phone).toBeNull();

    const res = await browser.post(`/dashboard/spam/${spam.id}/release`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/spam?released=${spam.id}`);
    const after = await browser.get(String(res.headers.location));
    expect(after.body).toContain(`<a href="/dashboard/leads/${spam.id}">Real after all</a>`);
    expect(textOf(after.body)).toContain('is now a lead');
    expect(after.body).not.toContain(`<tr id="${spam.id}">`);

    expect(await leadIds()).toContain(spam.id);
    expect((await browser.get('/dashboard/leads')).body).toContain('Real after all');
    const lead = (await ctx.api.get(`/v1/leads/${spam.id}`)).json();
    expect(lead).toMatchObject({ source: 'form', sourceFormId: form.id, sourceFormName: 'Website' });
    // A form post, released or not, never adds a phone to a customer found by email (issue 29): the lead keeps
    // the phone it was sent with.
    expect(lead.customer).toMatchObject({ id: customerId, name: 'Sam Real', email, phone: null });
    expect(lead.submitted.phone).toBe('+31633334444');
    const created = (await events('lead.created')).filter((e) => e.data.lead?.id === spam.id);
    expect(created).toHaveLength(1);
    const updated = (await events('customer.updated')).filter((e) => e.data.customer?.id === customerId);
    expect(updated).toEqual([]);
    // The customer's page lists it too.
    expect((await browser.get(`/dashboard/customers/${customerId}`)).body).toContain('Real after all');

    // Pressed again (a double click): told it is a lead, nothing fires twice.
    const again = await browser.post(`/dashboard/spam/${spam.id}/release`);
    expect(again.statusCode).toBe(303);
    expect((await events('lead.created')).filter((e) => e.data.lead?.id === spam.id)).toHaveLength(1);
  });

  it('"Not spam" for someone new announces the customer (customer.created) as a normal lead would', async () => {
    const spam = await post({ customerName: 'New Person', title: 'First time' });
    expect((await events('customer.created')).some((e) => e.data.customer?.id === spam.customer_id)).toBe(
      false,
    );
    expect((await browser.post(`/dashboard/spam/${spam.id}/release`)).statusCode).toBe(303);
    const announced = (await events('customer.created')).filter(
      (e) => e.data.customer?.id === spam.customer_id,
    );
    expect(announced).toHaveLength(1);
    expect((await ctx.api.get(`/v1/leads/${spam.id}`)).json().customer).toMatchObject({
      id: spam.customer_id,
      name: 'New Person',
      email: spam.values.email,
    });
  });

  it('deletes spam at once', async () => {
    const spam = await post({ title: 'Delete me' });
    const res = await browser.post(`/dashboard/spam/${spam.id}/delete`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/spam?done=deleted');
    expect(
      await db().selectFrom('leads').select('id').where('id', '=', spam.id).executeTakeFirst(),
    ).toBeUndefined();
    const page = await browser.get('/dashboard/spam?done=deleted');
    expect(textOf(page.body)).toContain('The spam is deleted.');
    expect(page.body).not.toContain('Delete me');
  });

  it("another brand's spam is not listed and is a 404 for Not spam and Delete; a real lead is no spam", async () => {
    const foreignForm = await createForm(ctx.app.deps.database, ctx.otherBrandId, {
      name: 'Theirs',
      allowedOrigins: [SITE],
    });
    const foreign = await post({ title: 'Their spam' }, foreignForm.id);
    expect((await browser.get('/dashboard/spam')).body).not.toContain('Their spam');
    expect((await browser.post(`/dashboard/spam/${foreign.id}/release`)).statusCode).toBe(404);
    expect((await browser.post(`/dashboard/spam/${foreign.id}/delete`)).statusCode).toBe(404);
    const row = await db().selectFrom('leads').select('spam').where('id', '=', foreign.id).executeTakeFirst();
    expect(row?.spam).toBe(1);
    const real = await ctx.createLead();
    expect((await browser.post(`/dashboard/spam/${String(real.id)}/delete`)).statusCode).toBe(404);
    expect(await leadIds()).toContain(real.id);
  });

  it('refuses Not spam and Delete without the CSRF token, changing nothing', async () => {
    const spam = await post({ title: 'Guarded spam' });
    expect((await browser.post(`/dashboard/spam/${spam.id}/release`, { _csrf: undefined })).statusCode).toBe(
      403,
    );
    expect(
      (await browser.post(`/dashboard/spam/${spam.id}/delete`, {}, { origin: 'https://evil.example' }))
        .statusCode,
    ).toBe(403);
    const row = await db().selectFrom('leads').select('spam').where('id', '=', spam.id).executeTakeFirst();
    expect(row?.spam).toBe(1);
    expect((await events('lead.created')).some((e) => e.data.lead?.id === spam.id)).toBe(false);
  });

  it('escapes what a spam post sent', async () => {
    await post({ title: '<script>x</script>', customerName: '<img src=x onerror=alert(1)>' });
    const res = await browser.get('/dashboard/spam');
    expect(res.body).not.toContain('<script>x</script>');
    expect(res.body).not.toContain('<img src=x');
    expect(res.body).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(res.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('an instance that starts runs the due clean-up round: spam older than 30 days goes, and only that', async () => {
    const old = await post({ title: 'Old spam' });
    const young = await post({ title: 'Young spam' });
    const oldReal = await post({ title: 'Old real lead', _gotcha: '' });
    expect(oldReal.spam).toBe(0);
    const age = (id: string, days: number) =>
      db()
        .updateTable('leads')
        .set({ received_at: Date.now() - days * DAY })
        .where('id', '=', id)
        .execute();
    await age(old.id, 31);
    await age(young.id, 29);
    await age(oldReal.id, 31);
    // The round is due again (the first instance ran it when it started; one instance runs it per round).
    await db().updateTable('job_leases').set({ next_run_at: 0 }).where('name', '=', 'clean-up').execute();

    const instance = await buildApp(ctx.app.deps.config, {
      database: ctx.app.deps.database,
      migrate: false,
      logger: false,
      defaultMetrics: false,
      webhookWorker: false,
      mailWorker: false,
    });
    await instance.ready();
    await instance.close();

    const left = async (id: string) =>
      (await db().selectFrom('leads').select('spam').where('id', '=', id).executeTakeFirst())?.spam;
    expect(await left(old.id)).toBeUndefined();
    expect(
      await db().selectFrom('customers').select('id').where('id', '=', old.customer_id).executeTakeFirst(),
    ).toBeUndefined();
    expect(await left(young.id)).toBe(1);
    expect(await left(oldReal.id)).toBe(0);
    expect(await leadIds()).toContain(oldReal.id);
  });
});
