// Erasing from the dashboard: admins only, a confirmation page that says what goes and what stays, nothing erased
// without the box ticked, and the same erasure as the API's (with the user in the customer's history).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, signedIn, textOf } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

describe.each(dialects())('erasing from the dashboard on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    await addUser(ctx.app, ctx.brandId, 'owner@acme.example', 'owner');
    await addUser(ctx.app, ctx.brandId, 'member@acme.example', 'member');
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('asks first, refuses without the box ticked, then erases with the user in the history', async () => {
    const lead = await ctx.createLead({ customerName: 'Gerda Wis', email: 'gerda.wis@example.com' });
    const customerId = lead.customerId as string;
    const owner = await signedIn(ctx.app, 'owner@acme.example');
    const form = await owner.get(`/dashboard/customers/${customerId}/erase`);
    expect(form.statusCode).toBe(200);
    expect(textOf(form.body)).toContain('Erase Gerda Wis?');
    expect(textOf(form.body)).toContain('What stays');

    const unticked = await owner.post(`/dashboard/customers/${customerId}/erase`, { reason: 'Verzoek' });
    expect(unticked.statusCode).toBe(422);
    expect(textOf(unticked.body)).toContain('Tick the box to confirm that this cannot be undone.');
    expect((await ctx.api.get(`/v1/customers/${customerId}`)).json().name).toBe('Gerda Wis');

    const done = await owner.post(`/dashboard/customers/${customerId}/erase`, {
      reason: 'Verzoek',
      confirm: 'yes',
    });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`/dashboard/customers/${customerId}?done=erased`);
    expect((await ctx.api.get(`/v1/customers/${customerId}`)).json()).toMatchObject({
      erased: true,
      name: '',
    });
    const history = await ctx.app.deps.database.db
      .selectFrom('customer_activity')
      .selectAll()
      .where('customer_id', '=', customerId)
      .execute();
    expect(history).toEqual([
      expect.objectContaining({
        kind: 'erased',
        actor_type: 'user',
        actor_name: 'owner@acme.example',
        detail: '{"reason":"Verzoek"}',
      }),
    ]);
    // The page of an erased customer names it so; its lead keeps its title.
    const page = textOf((await owner.get(`/dashboard/customers/${customerId}`)).body);
    expect(page).toContain('Erased customer');
    expect(textOf((await owner.get(done.headers.location as string)).body)).toContain(
      'The customer is erased.',
    );
    expect(textOf((await owner.get(`/dashboard/leads/${lead.id}`)).body)).toContain(lead.title as string);
  });

  it('is for admins only', async () => {
    const lead = await ctx.createLead();
    const member = await signedIn(ctx.app, 'member@acme.example');
    expect((await member.get(`/dashboard/customers/${lead.customerId}/erase`)).statusCode).toBe(403);
    expect(
      (await member.post(`/dashboard/customers/${lead.customerId}/erase`, { confirm: 'yes' })).statusCode,
    ).toBe(403);
    expect((await ctx.api.get(`/v1/customers/${lead.customerId}`)).json().erased).toBeUndefined();
  });
});
