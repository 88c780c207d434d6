// The calendar feeds (contract "Calendars and visit notices"): GET /calendar/{token}.ics read by ical.js, the
// account page's links and "New link", the brand feed of admins, ETag/304, and nobody else's visits in a feed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, signedIn, textOf } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { nextSpringForward, parseCalendar, wallClock } from './ical.js';

const PUBLIC_URL = 'https://leads.acme.example';
const DAY = 24 * 60 * 60 * 1000;
const FEED = /https:\/\/leads\.acme\.example\/calendar\/([A-Za-z0-9_-]{43})\.ics/g;

describe.each(dialects())('calendar feeds on %s', (dialect) => {
  let ctx: TestContext;
  let owner: { id: string; email: string };
  let fitter: { id: string; email: string };
  let stranger: { id: string; email: string };

  beforeAll(async () => {
    ctx = await createTestContext(dialect, { publicUrl: PUBLIC_URL });
    owner = await addUser(ctx.app, ctx.brandId, 'owner@acme.example', 'owner');
    fitter = await addUser(ctx.app, ctx.brandId, 'fitter@acme.example', 'member');
    stranger = await addUser(ctx.app, ctx.otherBrandId, 'owner@other.example', 'owner');
  });
  afterAll(async () => ctx?.close());

  /** A visit planned through the API: its lead id. */
  async function visit(fields: Record<string, unknown>, scheduledFor: string, assigneeId: string | null) {
    const lead = await ctx.createLead(fields);
    const res = await ctx.api.patch(`/v1/leads/${lead.id}`, {
      status: 'scheduled',
      scheduledFor,
      durationMinutes: 90,
      assigneeId,
    });
    expect(res.statusCode, res.body).toBe(200);
    return lead.id as string;
  }

  /** The feed addresses the account page shows, by their order there (mine first, then the brand's). */
  async function accountLinks(email: string): Promise<string[]> {
    const browser = await signedIn(ctx.app, email);
    const page = await browser.get('/dashboard/settings/account');
    expect(page.statusCode).toBe(200);
    return [...new Set([...page.body.matchAll(FEED)].map((m) => m[1]!))];
  }

  const feed = (token: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'GET', url: `/calendar/${token}.ics`, headers });

  it('a user’s feed: their visits only, with UTC times right across a daylight-saving change', async () => {
    const spring = nextSpringForward();
    const day = (offset: number) => new Date(spring.getTime() + offset * DAY).toISOString().slice(0, 10);
    // 09:00 in Amsterdam the day before the clocks go forward (+01:00) and the day after (+02:00).
    const before = await visit(
      { title: 'Boiler service', customerName: 'Jan Jansen', phone: '+31 6 1234 5678' },
      `${day(-1)}T09:00:00+01:00`,
      fitter.id,
    );
    const after = await visit({ title: 'Roof repair' }, `${day(1)}T09:00:00+02:00`, fitter.id);
    const ownersOwn = await visit({ title: 'Owner’s own job' }, `${day(2)}T10:00:00+02:00`, owner.id);
    const unassigned = await visit({ title: 'Nobody’s yet' }, `${day(3)}T10:00:00+02:00`, null);
    // Another brand's visit, assigned to its owner.
    const other = await ctx.api.as(ctx.keys.other).post('/v1/leads', {
      title: 'Other brand job',
      customerName: 'X',
      email: 'x@example.com',
      street: 'Rue Neuve',
      streetNumber: '1',
      postalCode: '1000',
      city: 'Brussels',
      country: 'BE',
    });
    expect(other.statusCode, other.body).toBe(201);
    const planned = await ctx.api.as(ctx.keys.other).patch(`/v1/leads/${other.json().id}`, {
      status: 'scheduled',
      scheduledFor: `${day(1)}T09:00:00+02:00`,
      assigneeId: stranger.id,
    });
    expect(planned.statusCode, planned.body).toBe(200);

    const [token] = await accountLinks(fitter.email);
    const res = await feed(token!);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const cal = parseCalendar(res.body);
    expect(cal.refreshInterval).toBe('PT1H');
    expect(cal.publishedTtl).toBe('PT1H');
    expect(res.body).toContain('REFRESH-INTERVAL;VALUE=DURATION:PT1H');
    expect(cal.events.map((e) => e.uid).sort()).toEqual(
      [`${before}@lead-intake`, `${after}@lead-intake`].sort(),
    );
    const byUid = new Map(cal.events.map((e) => [e.uid, e]));
    const first = byUid.get(`${before}@lead-intake`)!;
    const second = byUid.get(`${after}@lead-intake`)!;
    expect(first.start.toISOString()).toBe(`${day(-1)}T08:00:00.000Z`);
    expect(second.start.toISOString()).toBe(`${day(1)}T07:00:00.000Z`);
    // Both at 09:00 on the wall clock in Amsterdam, though an hour apart in UTC.
    expect(wallClock(first.start, 'Europe/Amsterdam')).toBe('09:00');
    expect(wallClock(second.start, 'Europe/Amsterdam')).toBe('09:00');
    expect(first.end.getTime() - first.start.getTime()).toBe(90 * 60_000);
    expect(first.summary).toBe('Boiler service');
    expect(first.location).toBe('Keizersgracht 123, 1015 CJ Amsterdam');
    expect(first.description).toContain('Jan Jansen');
    expect(first.description).toContain('06 12345678');
    expect(first.description).toContain(`${PUBLIC_URL}/dashboard/leads/${before}`);
    expect(first.status).toBe('CONFIRMED');
    for (const id of [ownersOwn, unassigned, other.json().id]) expect(res.body).not.toContain(id);

    // The owner's own feed has their visit only; the brand feed has every visit of the brand and no other's.
    const [mine, brand] = await accountLinks(owner.email);
    const own = parseCalendar((await feed(mine!)).body);
    expect(own.events.map((e) => e.uid)).toEqual([`${ownersOwn}@lead-intake`]);
    const all = parseCalendar((await feed(brand!)).body);
    expect(all.events.map((e) => e.uid).sort()).toEqual(
      [before, after, ownersOwn, unassigned].map((id) => `${id}@lead-intake`).sort(),
    );
    // A member has no brand feed, and another brand's owner sees none of these.
    expect(await accountLinks(fitter.email)).toHaveLength(1);
    const [strangers] = await accountLinks(stranger.email);
    expect(parseCalendar((await feed(strangers!)).body).events.map((e) => e.uid)).toEqual([
      `${other.json().id}@lead-intake`,
    ]);
  });

  it('SEQUENCE grows with each change; a cancelled visit stays, cancelled; ETag and 304 while unchanged', async () => {
    const start = new Date(Math.floor((Date.now() + 5 * DAY) / 60_000) * 60_000);
    const id = await visit({ title: 'Gutter' }, start.toISOString(), fitter.id);
    const [token] = await accountLinks(fitter.email);
    const eventOf = async () => {
      const res = await feed(token!);
      return { res, event: parseCalendar(res.body).events.find((e) => e.uid === `${id}@lead-intake`)! };
    };
    const { res: firstRes, event: planned } = await eventOf();
    const etag = firstRes.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await feed(token!, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');

    const moved = new Date(start.getTime() + 2 * 60 * 60 * 1000);
    expect((await ctx.api.patch(`/v1/leads/${id}`, { scheduledFor: moved.toISOString() })).statusCode).toBe(
      200,
    );
    const { res: movedRes, event: afterMove } = await eventOf();
    expect(afterMove.sequence).toBeGreaterThan(planned.sequence);
    expect(afterMove.start.getTime()).toBe(moved.getTime());
    expect((await feed(token!, { 'if-none-match': etag })).statusCode).toBe(200);
    expect(movedRes.headers.etag).not.toBe(etag);

    await ctx.setStatus(id, 'cancelled');
    const { event: cancelled } = await eventOf();
    expect(cancelled.status).toBe('CANCELLED');
    expect(cancelled.sequence).toBeGreaterThan(afterMove.sequence);
    expect(cancelled.uid).toBe(planned.uid);
    // Cancelled more than 30 days ago: gone.
    await ctx.app.deps.database.db
      .updateTable('leads')
      .set({ updated_at: Date.now() - 31 * DAY })
      .where('id', '=', id)
      .execute();
    expect((await feed(token!)).body).not.toContain(id);
  });

  it('"New link" replaces the address: the old one answers 404, the new one the feed; unknown tokens 404', async () => {
    const browser = await signedIn(ctx.app, owner.email);
    const page = await browser.get('/dashboard/settings/account');
    const [mine, brand] = [...new Set([...page.body.matchAll(FEED)].map((m) => m[1]!))];
    expect(page.body).toContain(`webcal://leads.acme.example/calendar/${mine}.ics`);
    expect(textOf(page.body)).toContain('New link');
    const rotated = await browser.post('/dashboard/settings/account/calendar', { feed: 'mine' });
    expect(rotated.statusCode).toBe(303);
    const shown = await browser.get(rotated.headers.location as string);
    expect(textOf(shown.body)).toContain('Your calendar has a new address.');
    const [newMine, sameBrand] = [...new Set([...shown.body.matchAll(FEED)].map((m) => m[1]!))];
    expect(newMine).not.toBe(mine);
    expect(sameBrand).toBe(brand);
    expect((await feed(mine!)).statusCode).toBe(404);
    expect((await feed(newMine!)).statusCode).toBe(200);
    expect((await feed(brand!)).statusCode).toBe(200);
    // The same page again shows the same addresses: made once, kept.
    const [kept] = await accountLinks(owner.email);
    expect(kept).toBe(newMine);
    for (const bad of ['x', 'A'.repeat(43), `${newMine}x`]) expect((await feed(bad)).statusCode).toBe(404);
    // A member cannot rotate (nor has) a brand feed; a former admin's brand feed stops working.
    await ctx.app.deps.database.db
      .updateTable('users')
      .set({ role: 'member' })
      .where('id', '=', owner.id)
      .execute();
    expect((await feed(brand!)).statusCode).toBe(404);
    await ctx.app.deps.database.db
      .updateTable('users')
      .set({ role: 'owner' })
      .where('id', '=', owner.id)
      .execute();
    // A disabled user's feed answers 404.
    const leaver = await addUser(ctx.app, ctx.brandId, 'leaver@acme.example', 'member');
    const [leaversFeed] = await accountLinks(leaver.email);
    expect((await feed(leaversFeed!)).statusCode).toBe(200);
    await ctx.app.deps.database.db
      .updateTable('users')
      .set({ disabled_at: Date.now() })
      .where('id', '=', leaver.id)
      .execute();
    expect((await feed(leaversFeed!)).statusCode).toBe(404);
  });
});
