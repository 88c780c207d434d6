import { describe, expect, it } from 'vitest';
import { changeLeadStatus, createLead } from '../../src/leads/index.js';
import { parseLeadInput } from '../../src/leads/input.js';
import { dialects, validLead } from '../helpers.js';
import { useTestContext } from '../test-context.js';

describe.each(dialects())('events on %s', (dialect) => {
  const ctx = useTestContext(dialect);

  const eventsOf = async (leadId: string) =>
    (await ctx.api.get('/v1/events?limit=100'))
      .json()
      .data.filter((e: { data: { lead?: { id: string } } }) => e.data.lead?.id === leadId);

  it('records lead.created with the single-lead read', async () => {
    const created = await ctx.createLead({ title: 'Event on create' });
    const [event] = await eventsOf(created.id as string);
    expect(event.type).toBe('lead.created');
    expect(event.id).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(event.createdAt).toBe(created.createdAt);
    const detail = (await ctx.api.get(`/v1/leads/${created.id}`)).json();
    expect(event.data).toEqual({ lead: detail });
    expect(event.data.from).toBeUndefined();
  });

  it('records lead.status_changed with from, to and the lead after the change', async () => {
    const created = await ctx.createLead({ title: 'Event on change' });
    await ctx.setStatus(created.id as string, 'quoted');
    await ctx.setStatus(created.id as string, 'scheduled');
    const events = await eventsOf(created.id as string);
    expect(events.map((e: { type: string }) => e.type)).toEqual([
      'lead.status_changed',
      'lead.status_changed',
      'lead.created',
    ]);
    const [scheduled, quoted] = events;
    expect(quoted.data.from).toBe('request');
    expect(quoted.data.to).toBe('quoted');
    expect(quoted.data.lead.status).toBe('quoted');
    expect(quoted.data.lead.statusHistory.map((h: { status: string }) => h.status)).toEqual([
      'request',
      'quoted',
    ]);
    expect(scheduled.data.from).toBe('quoted');
    expect(scheduled.data.to).toBe('scheduled');
    expect(scheduled.data.lead.scheduledAt).toBe(scheduled.createdAt);
    expect(scheduled.data.lead).toEqual((await ctx.api.get(`/v1/leads/${created.id}`)).json());
  });

  it('writes no event when the change is refused or rolled back', async () => {
    const created = await ctx.createLead({ title: 'No event on refusal' });
    const refused = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/leads/${created.id}`,
      headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
      payload: { status: 'completed' },
    });
    expect(refused.statusCode).toBe(409);
    expect(await eventsOf(created.id as string)).toHaveLength(1);
    const before = await ctx.app.deps.database.db.selectFrom('events').select('id').execute();
    const bad = await ctx.app.inject({
      method: 'POST',
      url: '/v1/leads',
      headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
      payload: { title: 'invalid' },
    });
    expect(bad.statusCode).toBe(422);
    expect(await ctx.app.deps.database.db.selectFrom('events').select('id').execute()).toHaveLength(
      before.length,
    );
  });

  it('records events for changes made through the domain functions (the dashboard path)', async () => {
    const db = ctx.app.deps.database;
    const lead = await createLead(
      db,
      { brandId: ctx.brandId, source: 'dashboard', keyId: null, keyName: null },
      parseLeadInput(validLead({ title: 'From the dashboard' })),
    );
    await changeLeadStatus(db, ctx.brandId, lead.id, 'cancelled', {
      type: 'user',
      id: 'usr_test',
      name: 'Test user',
    });
    const events = await eventsOf(lead.id);
    expect(events.map((e: { type: string }) => e.type)).toEqual(['lead.status_changed', 'lead.created']);
    expect(events[0].data.to).toBe('cancelled');
    expect(events[1].data.lead.source).toBe('dashboard');
  });

  it('lists newest first; order=asc; pages with cursors without skipping or repeating', async () => {
    for (let i = 0; i < 5; i++) await ctx.createLead({ title: `Paging ${i}` });
    const all = (await ctx.api.get('/v1/events?limit=100')).json();
    expect(all.limit).toBe(100);
    const keys = all.data.map((e: { createdAt: string; id: string }) => `${e.createdAt}|${e.id}`);
    expect([...keys].sort().reverse()).toEqual(keys);

    const asc = (await ctx.api.get('/v1/events?limit=100&order=asc')).json();
    expect(asc.data.map((e: { id: string }) => e.id)).toEqual(
      [...all.data.map((e: { id: string }) => e.id)].reverse(),
    );

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/v1/events?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: { data: { id: string }[]; limit: number; hasMore: boolean; nextCursor: string | null } = (
        await ctx.api.get(url)
      ).json();
      expect(page.limit).toBe(3);
      seen.push(...page.data.map((e: { id: string }) => e.id));
      cursor = page.nextCursor;
      expect(page.hasMore).toBe(cursor !== null);
      // New events arriving while paging must not shift what the cursor continues from.
      if (pages++ === 0) await ctx.createLead({ title: 'Arrived while paging' });
    } while (cursor);
    expect(seen).toEqual(all.data.map((e: { id: string }) => e.id));
    expect((await ctx.api.get('/v1/events?limit=500')).json().limit).toBe(100);
  });

  it('filters by type (one or more) and createdAfter (exclusive)', async () => {
    const created = await ctx.createLead({ title: 'Filter me' });
    await ctx.setStatus(created.id as string, 'quoted');
    const changed = (await ctx.api.get('/v1/events?type=lead.status_changed&limit=100')).json();
    expect(changed.data.length).toBeGreaterThan(0);
    expect(changed.data.every((e: { type: string }) => e.type === 'lead.status_changed')).toBe(true);
    const all = (await ctx.api.get('/v1/events?limit=100')).json().data;
    const both = (await ctx.api.get('/v1/events?type=lead.created,lead.status_changed&limit=100')).json();
    expect(both.data.map((e: { id: string }) => e.id)).toEqual(
      all.filter((e: { type: string }) => e.type.startsWith('lead.')).map((e: { id: string }) => e.id),
    );
    const customers = (await ctx.api.get('/v1/events?type=customer.created&limit=100')).json();
    expect(customers.data.length).toBeGreaterThan(0);
    expect(customers.data.every((e: { type: string }) => e.type === 'customer.created')).toBe(true);

    const [latest] = (await ctx.api.get('/v1/events?limit=1')).json().data;
    const after = (
      await ctx.api.get(`/v1/events?createdAfter=${encodeURIComponent(latest.createdAt)}`)
    ).json();
    expect(after.data).toEqual([]);
    const since = new Date(Date.parse(latest.createdAt) - 1).toISOString();
    const recent = (await ctx.api.get(`/v1/events?createdAfter=${encodeURIComponent(since)}`)).json();
    expect(recent.data.map((e: { id: string }) => e.id)).toContain(latest.id);
  });

  it('rejects bad filters with 422 naming the parameter', async () => {
    for (const [query, field] of [
      ['type=lead.deleted', 'type'],
      ['createdAfter=yesterday', 'createdAfter'],
      ['cursor=nope', 'cursor'],
      ['limit=0', 'limit'],
      ['colour=red', 'colour'],
    ]) {
      const res = await ctx.api.get(`/v1/events?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });

  it('needs scope full, and shows only the key’s brand', async () => {
    expect((await ctx.api.get('/v1/events', { key: ctx.keys['leads:read'] })).statusCode).toBe(403);
    expect((await ctx.api.get('/v1/events', { key: ctx.keys.revoked })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/events' })).statusCode).toBe(401);
    const other = await ctx.createLead({ title: 'Other brand lead' }, ctx.keys.other);
    const mine = (await ctx.api.get('/v1/events?limit=100')).json();
    expect(mine.data.some((e: { data: { lead?: { id: string } } }) => e.data.lead?.id === other.id)).toBe(
      false,
    );
    expect(
      mine.data.some(
        (e: { data: { customer?: { id: string } } }) => e.data.customer?.id === (other.customerId as string),
      ),
    ).toBe(false);
    const theirs = (
      await ctx.api.get('/v1/events?type=lead.created,lead.status_changed&limit=100', { key: ctx.keys.other })
    ).json();
    expect(theirs.data.map((e: { data: { lead: { brandId: string } } }) => e.data.lead.brandId)).toEqual(
      theirs.data.map(() => ctx.otherBrandId),
    );
  });
});
