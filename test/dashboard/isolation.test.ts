// Every dashboard page and action is limited to the signed-in user's brand: another brand's lead, key, user or
// invitation is a 404 (the same answer as "does not exist") and is never changed.
import { beforeAll, describe, expect, it } from 'vitest';
import { createInvite } from '../../src/accounts/invites.js';
import { dialects } from '../helpers.js';
import { useTestContext } from '../test-context.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

describe.each(dialects())('brand isolation in the dashboard on %s', (dialect) => {
  const ctx = useTestContext(dialect);
  let intruder: Browser;
  let leadA: string;
  let keyA: string;
  let userA: string;
  let inviteA: string;

  beforeAll(async () => {
    await addUser(ctx.app, ctx.brandId, 'owner-a@a.example', 'owner');
    userA = (await addUser(ctx.app, ctx.brandId, 'member-a@a.example', 'member')).id;
    await addUser(ctx.app, ctx.otherBrandId, 'owner-b@b.example', 'owner');
    leadA = (await ctx.createLead({ title: 'Brand A secret job', customerName: 'Alice of A' })).id as string;
    await ctx.createLead({ title: 'Brand B own job' }, ctx.keys.other);
    keyA = ctx.keyIds.full!;
    inviteA = (
      await createInvite(ctx.app.deps.database, {
        brandId: ctx.brandId,
        email: 'new-a@a.example',
        role: 'member',
        invitedBy: 'owner-a@a.example',
      })
    ).id;
    intruder = await signedIn(ctx.app, 'owner-b@b.example');
    await intruder.get('/dashboard/leads');
  });

  it("cannot see brand A's leads in lists, search, work items or the chart", async () => {
    const lists = [
      await intruder.get('/dashboard/leads'),
      await intruder.get('/dashboard/leads?q=secret'),
      await intruder.get('/dashboard/work-items'),
    ];
    for (const res of lists) {
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('Brand A secret job');
      expect(res.body).not.toContain('Alice of A');
    }
    expect(lists[0]!.body).toContain('Brand B own job');
    expect(lists[0]!.body).toMatch(/aria-label="1 lead in the last 30 days/);
  });

  it("cannot open or move brand A's lead: 404, and its state stays", async () => {
    expect((await intruder.get(`/dashboard/leads/${leadA}`)).statusCode).toBe(404);
    const move = await intruder.post(`/dashboard/leads/${leadA}/status`, { status: 'cancelled' });
    expect(move.statusCode).toBe(404);
    expect(textOf(move.body)).toContain('This page does not exist, or you have no access to it.');
    const junk = await intruder.post(`/dashboard/leads/${leadA}/status`, { status: 'junk' });
    expect(junk.statusCode).toBe(404);
    const stored = await ctx.app.deps.database.db
      .selectFrom('leads')
      .select('status')
      .where('id', '=', leadA)
      .executeTakeFirstOrThrow();
    expect(stored.status).toBe('request');
  });

  it("cannot see or revoke brand A's keys: 404, and the key keeps working", async () => {
    const list = await intruder.get('/dashboard/settings/api-keys');
    expect(textOf(list.body)).not.toContain('key full');
    expect(textOf(list.body)).toContain('other');
    expect((await intruder.get(`/dashboard/settings/api-keys/${keyA}/revoke`)).statusCode).toBe(404);
    expect((await intruder.post(`/dashboard/settings/api-keys/${keyA}/revoke`)).statusCode).toBe(404);
    const stored = await ctx.app.deps.database.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('id', '=', keyA)
      .executeTakeFirstOrThrow();
    expect(stored.revoked_at).toBeNull();
    const api = await ctx.app.inject({ url: '/v1/leads', headers: { 'x-api-key': ctx.keys.full } });
    expect(api.statusCode).toBe(200);
  });

  it("cannot see or remove brand A's people or withdraw its invitations: 404", async () => {
    const list = await intruder.get('/dashboard/settings/users');
    expect(list.body).not.toContain('a.example');
    expect((await intruder.get(`/dashboard/settings/users/${userA}/remove`)).statusCode).toBe(404);
    expect((await intruder.post(`/dashboard/settings/users/${userA}/remove`)).statusCode).toBe(404);
    expect((await intruder.post(`/dashboard/settings/users/invites/${inviteA}/withdraw`)).statusCode).toBe(
      404,
    );
    expect(
      await ctx.app.deps.database.db
        .selectFrom('users')
        .select('id')
        .where('id', '=', userA)
        .executeTakeFirst(),
    ).toBeDefined();
    expect(
      await ctx.app.deps.database.db
        .selectFrom('user_invites')
        .select('id')
        .where('id', '=', inviteA)
        .executeTakeFirst(),
    ).toBeDefined();
  });

  it('creates keys and people in its own brand only', async () => {
    const posted = await intruder.post('/dashboard/settings/api-keys', {
      name: 'B key',
      scopes: 'leads:read',
    });
    const res = await intruder.get(posted.headers.location as string);
    const key = /lik_[A-Za-z0-9_-]{43}/.exec(res.body)![0];
    const own = await ctx.app.inject({ url: '/v1/leads', headers: { 'x-api-key': key } });
    expect(own.json().data.map((l: { title: string }) => l.title)).toEqual(['Brand B own job']);
    await intruder.post('/dashboard/settings/users', {
      email: 'member-b@b.example',
      role: 'member',
      password: 'b password 123',
    });
    const user = await ctx.app.deps.database.db
      .selectFrom('users')
      .select('brand_id')
      .where('email', '=', 'member-b@b.example')
      .executeTakeFirstOrThrow();
    expect(user.brand_id).toBe(ctx.otherBrandId);
  });
});
