// The customer page's Edit (form, inline errors with the typed values kept, CSRF), its History, its Likely
// duplicates and merging one from there (a confirmation page that works without a script, then the POST).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

describe.each(dialects())('dashboard customer edit and merge on %s', (dialect) => {
  let ctx: TestContext;
  let browser: Browser;
  let userId: string;
  const USER = 'desk@acme.example';
  let n = 0;
  const email = (prefix: string) => `${prefix}-${++n}-${dialect}@example.com`;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    userId = (await addUser(ctx.app, ctx.brandId, USER)).id;
    browser = await signedIn(ctx.app, USER);
  });
  afterAll(async () => ctx?.close());

  const customerOf = async (fields: Record<string, unknown>) =>
    (await ctx.createLead(fields)).customerId as string;
  const read = async (id: string) => (await ctx.api.get(`/v1/customers/${id}`)).json();
  const section = (html: string, id: string) =>
    new RegExp(`<section class="card" id="${id}"[\\s\\S]*?</section>`).exec(html)?.[0] ?? '';

  describe('Edit', () => {
    it('links from the customer page to a form with the customer’s values, and saves a change', async () => {
      const id = await customerOf({
        customerName: 'Jet Visser',
        email: email('jet'),
        phone: '+31 6 2222 3333',
      });
      const page = await browser.get(`/dashboard/customers/${id}`);
      expect(page.body).toContain(`href="/dashboard/customers/${id}/edit"`);
      expect(textOf(section(page.body, 'history'))).toContain('Nothing changed yet.');

      const form = await browser.get(`/dashboard/customers/${id}/edit`);
      expect(form.statusCode).toBe(200);
      expect(form.body).toContain(`<form method="post" action="/dashboard/customers/${id}/edit"`);
      expect(form.body).toContain('name="_csrf"');
      expect(form.body).toContain('value="Jet Visser"');
      expect(form.body).toContain('value="06 22223333"');
      for (const label of ['Name', 'First name', 'Last name', 'Company', 'Email', 'Phone']) {
        expect(form.body).toContain(`>${label}`);
      }

      const res = await browser.post(`/dashboard/customers/${id}/edit`, {
        name: 'Jet de Visser',
        firstName: 'Jet',
        lastName: '',
        companyName: 'Visser Klussen',
        email: 'JET@visser.example',
        phone: '06 4444 5555',
      });
      expect(res.statusCode, res.body).toBe(303);
      expect(res.headers.location).toBe(`/dashboard/customers/${id}?done=edited`);
      expect(await read(id)).toMatchObject({
        name: 'Jet de Visser',
        firstName: 'Jet',
        lastName: null,
        companyName: 'Visser Klussen',
        email: 'JET@visser.example',
        phone: '+31644445555',
        type: 'business',
      });
      const after = await browser.get(res.headers.location as string);
      expect(textOf(after.body)).toContain('Customer details saved.');
      const history = textOf(section(after.body, 'history'));
      expect(history).toContain('Changed name “Jet Visser” → “Jet de Visser”');
      expect(history).toContain('phone “+31622223333” → “+31644445555”');
      expect(history).toContain('first name (empty) → “Jet”');
      expect(history).toContain(`by ${USER}`);

      const rows = await ctx.app.deps.database.db
        .selectFrom('customer_activity')
        .selectAll()
        .where('customer_id', '=', id)
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        kind: 'updated',
        actor_type: 'user',
        actor_id: userId,
        actor_name: USER,
      });
      const events = (await ctx.api.get('/v1/events?type=customer.updated&limit=100')).json().data as {
        data: { customer: { id: string }; changed: string[] };
      }[];
      expect(events.find((e) => e.data.customer.id === id)?.data.changed).toContain('companyName');

      // Saving it again unchanged writes nothing.
      const form2 = await browser.get(`/dashboard/customers/${id}/edit`);
      expect(form2.body).toContain('value="06 44445555"');
      const same = await browser.post(`/dashboard/customers/${id}/edit`, {
        name: 'Jet de Visser',
        firstName: 'Jet',
        lastName: '',
        companyName: 'Visser Klussen',
        email: 'JET@visser.example',
        phone: '06 44445555',
      });
      expect(same.headers.location).toBe(`/dashboard/customers/${id}?done=unchanged`);
      expect(
        await ctx.app.deps.database.db
          .selectFrom('customer_activity')
          .select('id')
          .where('customer_id', '=', id)
          .execute(),
      ).toHaveLength(1);
    });

    it('shows each error beside its field, keeps what was typed, and stores nothing', async () => {
      const original = email('kees');
      const id = await customerOf({ customerName: 'Kees Brand', email: original });
      await browser.get(`/dashboard/customers/${id}/edit`);
      const res = await browser.post(`/dashboard/customers/${id}/edit`, {
        name: '  ',
        firstName: 'Kees',
        lastName: 'Brand',
        companyName: '',
        email: 'kees@',
        phone: '0612',
      });
      expect(res.statusCode).toBe(422);
      expect(res.body).toContain('value="kees@"');
      expect(res.body).toContain('value="0612"');
      expect(res.body).toContain('value="Brand"');
      expect(res.body).toContain('id="field-name-error"');
      expect(res.body).toContain('id="field-email-error"');
      expect(res.body).toContain('id="field-phone-error"');
      const text = textOf(res.body);
      expect(text).toContain('Name is required.');
      expect(text).toContain('Email must be a valid email address');
      expect(await read(id)).toMatchObject({ name: 'Kees Brand', email: original, lastName: null });
    });

    it('an email another customer has: the error offers to merge that customer instead', async () => {
      const taken = email('lot');
      const other = await customerOf({ customerName: 'Lot Smit', email: taken });
      const id = await customerOf({ customerName: 'Lot S.', email: email('lots') });
      await browser.get(`/dashboard/customers/${id}/edit`);
      const res = await browser.post(`/dashboard/customers/${id}/edit`, {
        name: 'Lot S.',
        email: taken,
      });
      expect(res.statusCode).toBe(409);
      expect(textOf(res.body)).toContain('another customer already has this email address');
      expect(res.body).toContain(`href="/dashboard/customers/${id}/merge?from=${other}"`);
      expect(res.body).toContain(`value="${taken}"`);
    });

    it('History shows every kind of entry, newest first, with who did it', async () => {
      const id = await customerOf({ customerName: 'Rosa', email: email('rosa') });
      const at = Date.now() - 60_000;
      const row = (
        i: number,
        kind: string,
        actor: [string, string | null, string | null],
        detail: unknown,
      ) => ({
        id: `act_${String(at + i).padStart(26, '0')}`,
        brand_id: ctx.brandId,
        customer_id: id,
        at: at + i * 1000,
        kind: kind as 'updated',
        actor_type: actor[0] as 'key',
        actor_id: actor[1],
        actor_name: actor[2],
        detail: JSON.stringify(detail),
      });
      await ctx.app.deps.database.db
        .insertInto('customer_activity')
        .values([
          row(1, 'updated', ['key', 'key_x', 'Website'], { changed: ['email'] }),
          row(2, 'merged', ['user', userId, USER], { from: 'cus_mergedaway' }),
          row(3, 'exported', ['cli', null, null], {}),
          row(4, 'erased', ['retention', null, null], {}),
        ])
        .execute();
      const page = await browser.get(`/dashboard/customers/${id}`);
      const items = [
        ...section(page.body, 'history').matchAll(/<li class="feed-activity">([\s\S]*?)<\/li>/g),
      ].map((m) => textOf(m[1] ?? ''));
      expect(items).toHaveLength(4);
      expect(items[0]).toMatch(/^Erased · .* · by the retention rule$/);
      expect(items[1]).toMatch(/^Personal data downloaded · .* · by the command line$/);
      expect(items[2]).toMatch(new RegExp(`^Merged duplicate cus_mergedaway · .* · by ${USER}$`));
      // An edit whose values an erasure removed: the field names alone.
      expect(items[3]).toMatch(/^Changed email · .* · by key Website$/);
    });

    it('refuses a post without the form token', async () => {
      const id = await customerOf({ customerName: 'Mia', email: email('mia') });
      const res = await browser.post(`/dashboard/customers/${id}/edit`, { _csrf: 'wrong', name: 'Changed' });
      expect(res.statusCode).toBe(403);
      expect((await read(id)).name).toBe('Mia');
    });
  });

  describe('Likely duplicates and merge', () => {
    it('lists customers with the same email, phone, or name and postal code; not others, not erased', async () => {
      const phone = '+31 6 9090 1212';
      const id = await customerOf({
        customerName: 'Noor Jansen',
        email: email('noor'),
        phone,
        postalCode: '3511 AB',
        street: 'Oudegracht',
        city: 'Utrecht',
      });
      const byPhone = await customerOf({ customerName: 'N. Jansen', email: email('noor-phone'), phone });
      const byName = await customerOf({
        customerName: 'noor jansen',
        email: email('noor-name'),
        postalCode: '3511ab',
        street: 'Elsewhere',
        city: 'Utrecht',
      });
      const sameNameOtherPlace = await customerOf({ customerName: 'Noor Jansen', email: email('noor-far') });
      const erased = await customerOf({ customerName: 'Noor Jansen', email: email('noor-gone'), phone });
      await ctx.app.deps.database.db
        .updateTable('customers')
        .set({ erased_at: Date.now() })
        .where('id', '=', erased)
        .execute();
      const page = await browser.get(`/dashboard/customers/${id}`);
      const duplicates = section(page.body, 'duplicates');
      expect(duplicates).toContain(`href="/dashboard/customers/${id}/merge?from=${byPhone}"`);
      expect(duplicates).toContain(`href="/dashboard/customers/${id}/merge?from=${byName}"`);
      expect(duplicates).not.toContain(sameNameOtherPlace);
      expect(duplicates).not.toContain(erased);
      expect(textOf(duplicates)).toContain('Merge into this customer');
      expect(duplicates).toContain(`<form method="get" action="/dashboard/customers/${id}/merge"`);
      // And the other way round: the duplicate lists this customer.
      const back = await browser.get(`/dashboard/customers/${byPhone}`);
      expect(section(back.body, 'duplicates')).toContain(`merge?from=${id}`);
    });

    it('confirms on a page of its own, merges on its POST and goes back to the kept customer', async () => {
      const keepEmail = email('olga');
      const keep = await customerOf({ customerName: 'Olga Peters', email: keepEmail, title: 'Kitchen tap' });
      const from = await customerOf({
        customerName: 'Olga Peters',
        email: email('olga2'),
        phone: '+31 6 1010 2020',
        title: 'Shower drain',
      });
      const confirm = await browser.get(`/dashboard/customers/${keep}/merge?from=${from}`);
      expect(confirm.statusCode).toBe(200);
      const text = textOf(confirm.body);
      expect(text).toContain('Merge duplicate customer');
      expect(text).toContain('The one lead or work item of Olga Peters moves to Olga Peters');
      expect(text).toContain('filled in from the other: phone');
      expect(text).toContain(`(${from}) is removed`);
      expect(confirm.body).toContain(`<form method="post" action="/dashboard/customers/${keep}/merge">`);
      expect(confirm.body).toContain(`<input type="hidden" name="from" value="${from}">`);
      // Nothing happened yet.
      expect((await ctx.api.get(`/v1/customers/${from}`)).statusCode).toBe(200);

      const res = await browser.post(`/dashboard/customers/${keep}/merge`, { from });
      expect(res.statusCode, res.body).toBe(303);
      expect(res.headers.location).toBe(`/dashboard/customers/${keep}?done=merged`);
      expect((await ctx.api.get(`/v1/customers/${from}`)).statusCode).toBe(404);
      const kept = await read(keep);
      expect(kept).toMatchObject({ email: keepEmail, phone: '+31610102020', leadCount: 2 });
      const page = await browser.get(res.headers.location as string);
      const pageText = textOf(page.body);
      expect(pageText).toContain('The duplicate customer is merged into this one.');
      expect(pageText).toContain('Shower drain');
      expect(textOf(section(page.body, 'history'))).toContain(`Merged duplicate ${from}`);
      const rows = await ctx.app.deps.database.db
        .selectFrom('customer_activity')
        .selectAll()
        .where('customer_id', '=', keep)
        .execute();
      expect(rows).toMatchObject([{ kind: 'merged', actor_type: 'user', actor_id: userId }]);
      // The page of the removed customer is gone.
      expect((await browser.get(`/dashboard/customers/${from}`)).statusCode).toBe(404);
    });

    it('answers a reference that names nobody, itself or an erased customer on the page, and needs the token', async () => {
      const keep = await customerOf({ customerName: 'Piet', email: email('piet') });
      const unknown = await browser.get(`/dashboard/customers/${keep}/merge?from=cus_nobody`);
      expect(unknown.statusCode).toBe(404);
      expect(textOf(unknown.body)).toContain('There is no customer with the reference cus_nobody.');
      expect(unknown.body).toContain('value="cus_nobody"');
      const self = await browser.get(`/dashboard/customers/${keep}/merge?from=${keep}`);
      expect(self.statusCode).toBe(422);
      expect(textOf(self.body)).toContain('cannot be merged into itself');
      expect((await browser.get(`/dashboard/customers/${keep}/merge?from=`)).statusCode).toBe(422);

      const from = await customerOf({ customerName: 'Piet 2', email: email('piet2') });
      const refused = await browser.post(`/dashboard/customers/${keep}/merge`, { _csrf: 'nope', from });
      expect(refused.statusCode).toBe(403);
      expect((await ctx.api.get(`/v1/customers/${from}`)).statusCode).toBe(200);
      await browser.get(`/dashboard/customers/${keep}`);
      const posted = await browser.post(`/dashboard/customers/${keep}/merge`, { from: keep });
      expect(posted.statusCode).toBe(422);

      await ctx.app.deps.database.db
        .updateTable('customers')
        .set({ erased_at: Date.now() })
        .where('id', '=', from)
        .execute();
      const erased = await browser.get(`/dashboard/customers/${keep}/merge?from=${from}`);
      expect(erased.statusCode).toBe(409);
      expect(textOf(erased.body)).toContain(`Customer ${from} was erased`);
      const postErased = await browser.post(`/dashboard/customers/${keep}/merge`, { from });
      expect(postErased.statusCode).toBe(409);
      expect((await read(keep)).leadCount).toBe(1);
    });
  });
});
