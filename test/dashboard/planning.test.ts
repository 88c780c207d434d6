// Planning in the dashboard: the Schedule and Change visit forms (in the brand's time zone), the visit on work items,
// the week's planning, My visits, the brand's time zone setting and people's display names.
import { beforeAll, describe, expect, it } from 'vitest';
import { leadStats } from '../../src/leads/stats.js';
import { addDays, dayIn } from '../../src/shared/time-zones.js';
import { dialects } from '../helpers.js';
import { useTestContext } from '../test-context.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

describe.each(dialects())('dashboard planning on %s', (dialect) => {
  const ctx = useTestContext(dialect);
  let admin: Browser;
  let fitter: Browser;
  let fitterId: string;
  let bossId: string;
  beforeAll(async () => {
    const db = ctx.app.deps.database.db;
    bossId = (await addUser(ctx.app, ctx.brandId, 'boss@acme.example')).id;
    fitterId = (await addUser(ctx.app, ctx.brandId, 'fitter@acme.example', 'member')).id;
    await db.updateTable('users').set({ name: 'Fred Fitter' }).where('id', '=', fitterId).execute();
    admin = await signedIn(ctx.app, 'boss@acme.example');
    fitter = await signedIn(ctx.app, 'fitter@acme.example');
  });

  const read = (id: string) => ctx.api.read(`/v1/leads/${id}`);
  const newLead = async (title: string, ...steps: string[]) => {
    const id = (await ctx.createLead({ title })).id as string;
    for (const step of steps) await ctx.setStatus(id, step);
    return id;
  };
  const schedule = (browser: Browser, id: string, fields: Record<string, string>) =>
    browser.post(`/dashboard/leads/${id}/status`, { status: 'scheduled', ...fields });
  const tomorrow = () => addDays(dayIn('Europe/Amsterdam', Date.now()), 1);

  it('the Schedule action is a form with a date, a start time, a duration and who does it', async () => {
    const id = await newLead('Form fields');
    const page = await admin.get(`/dashboard/leads/${id}`);
    for (const [fieldId, label] of [
      ['field-scheduledDate', 'Date'],
      ['field-scheduledTime', 'Start time'],
      ['field-durationMinutes', 'Duration'],
      ['field-assigneeId', 'Who does it'],
    ]) {
      expect(page.body).toContain(`<label for="${fieldId}">${label}</label>`);
      expect(page.body).toContain(`id="${fieldId}"`);
    }
    expect(page.body).toMatch(/<input id="field-scheduledDate" name="scheduledDate" type="date"/);
    expect(page.body).toMatch(/<input id="field-scheduledTime" name="scheduledTime" type="time"/);
    expect(page.body).toContain('<option value="" selected>Nobody yet</option>');
    expect(page.body).toContain(`<option value="${fitterId}">Fred Fitter</option>`);
    expect(page.body).toContain(`<option value="${bossId}">boss@acme.example</option>`);
    expect(page.body).toContain('<option value="480">8 h</option>');
    expect(page.body).toMatch(
      /<button type="submit" name="status" value="scheduled" [^>]*>Schedule<\/button>/,
    );
  });

  it('scheduling stores the visit as entered in the brand’s time zone (Europe/Amsterdam), with who does it', async () => {
    const id = await newLead('Boiler service');
    const res = await schedule(admin, id, {
      scheduledDate: '2026-11-24',
      scheduledTime: '09:00',
      durationMinutes: '90',
      assigneeId: fitterId,
    });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/leads/${id}?moved=scheduled`);
    expect(await read(id)).toMatchObject({
      status: 'scheduled',
      scheduledFor: '2026-11-24T08:00:00.000Z',
      durationMinutes: 90,
      assignee: { id: fitterId, name: 'Fred Fitter' },
    });
    const page = textOf((await admin.get(`/dashboard/leads/${id}`)).body);
    expect(page).toContain('Visit Tue, 24 Nov 2026, 09:00 · 1 h 30 min · Fred Fitter');
  });

  it('DST: 09:00 on 2026-03-29 (clocks go forward) and on 2026-10-25 (clocks go back) in Amsterdam', async () => {
    const spring = await newLead('Spring visit');
    await schedule(admin, spring, {
      scheduledDate: '2026-03-29',
      scheduledTime: '09:00',
      durationMinutes: '60',
    });
    expect((await read(spring)).scheduledFor).toBe('2026-03-29T07:00:00.000Z');
    const autumn = await newLead('Autumn visit');
    await schedule(admin, autumn, {
      scheduledDate: '2026-10-25',
      scheduledTime: '09:00',
      durationMinutes: '60',
    });
    expect((await read(autumn)).scheduledFor).toBe('2026-10-25T08:00:00.000Z');
    const week = await admin.get('/dashboard/planning?week=2026-W13');
    const day = /<li class="planning-day"[^>]*data-day="2026-03-29"[\s\S]*?<\/li>\s*<\/ul>/.exec(
      week.body,
    )?.[0];
    expect(day, 'Sunday 29 March has the visit').toBeDefined();
    expect(textOf(day!)).toContain('09:00–10:00 Spring visit');
  });

  it('problems are named beside their fields, what was typed is kept, and nothing changes', async () => {
    const id = await newLead('Bad input');
    const res = await schedule(admin, id, {
      scheduledDate: '2026-02-30',
      scheduledTime: '25:00',
      durationMinutes: '5',
      assigneeId: fitterId,
    });
    expect(res.statusCode).toBe(422);
    const text = textOf(res.body);
    expect(text).toContain('Date must be a date such as 2026-11-24.');
    expect(text).toContain('Start time must be a time such as 09:30.');
    expect(text).toContain('Duration must be between 15 minutes and 24 hours.');
    expect(res.body).toContain('value="2026-02-30"');
    expect(res.body).toContain('value="25:00"');
    expect(res.body).toContain(`<option value="${fitterId}" selected>Fred Fitter</option>`);
    expect(res.body).toMatch(/id="field-scheduledDate"[^>]*aria-invalid="true"/);
    expect((await read(id)).status).toBe('request');

    const missing = await schedule(admin, id, { durationMinutes: '60' });
    expect(missing.statusCode).toBe(422);
    expect(textOf(missing.body)).toContain('Date is required.');
    const stranger = await addUser(ctx.app, ctx.otherBrandId, `stranger-${dialect}@example.com`);
    const other = await schedule(admin, id, {
      scheduledDate: '2026-12-01',
      scheduledTime: '10:00',
      durationMinutes: '60',
      assigneeId: stranger.id,
    });
    expect(other.statusCode).toBe(422);
    expect(textOf(other.body)).toContain('Who does it must be someone of this brand, or nobody yet.');
    expect(await read(id)).toMatchObject({ status: 'request', scheduledFor: null, assignee: null });
  });

  it('the schedule form needs the page’s CSRF token', async () => {
    const id = await newLead('Forged');
    await admin.get(`/dashboard/leads/${id}`);
    const forged = await admin.post(`/dashboard/leads/${id}/status`, {
      _csrf: undefined,
      status: 'scheduled',
      scheduledDate: '2026-12-01',
      scheduledTime: '10:00',
      durationMinutes: '60',
    });
    expect(forged.statusCode).toBe(403);
    expect((await read(id)).status).toBe('request');
  });

  it('Change visit on a work item: saved in the zone, lead.updated; a completed item offers none and refuses it', async () => {
    const id = await newLead('Change me', 'scheduled');
    const page = await admin.get(`/dashboard/leads/${id}`);
    expect(page.body).toContain(`action="/dashboard/leads/${id}/visit"`);
    expect(textOf(page.body)).toContain('Change visit');
    const res = await admin.post(`/dashboard/leads/${id}/visit`, {
      scheduledDate: '2026-07-01',
      scheduledTime: '14:30',
      durationMinutes: '120',
      assigneeId: bossId,
    });
    expect(res.statusCode, res.body).toBe(303);
    expect(await read(id)).toMatchObject({
      status: 'scheduled',
      scheduledFor: '2026-07-01T12:30:00.000Z',
      durationMinutes: 120,
      assignee: { id: bossId, name: 'boss@acme.example' },
    });
    const events = (await ctx.api.get('/v1/events?type=lead.updated&limit=100')).json().data as {
      data: { lead: { id: string }; changed: string[] };
    }[];
    expect(events.find((e) => e.data.lead.id === id)?.data.changed).toEqual([
      'scheduledFor',
      'durationMinutes',
      'assigneeId',
    ]);
    // The form shows the visit as saved, in the zone (14:30 CEST).
    const again = await admin.get(`/dashboard/leads/${id}`);
    expect(again.body).toContain('value="14:30"');

    for (const step of ['planned', 'in_progress', 'completed']) await ctx.setStatus(id, step);
    const done = await admin.get(`/dashboard/leads/${id}`);
    expect(done.body).not.toContain(`action="/dashboard/leads/${id}/visit"`);
    const refused = await admin.post(`/dashboard/leads/${id}/visit`, {
      scheduledDate: '2026-07-02',
      scheduledTime: '14:30',
      durationMinutes: '120',
    });
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toContain('a completed visit cannot be re-planned');
  });

  it('after saving, a visit that double-books its person or starts in the past is saved with a warning', async () => {
    const first = await newLead('Boiler at the Jansens');
    await admin.get(`/dashboard/leads/${first}`);
    await schedule(admin, first, {
      scheduledDate: '2031-02-03',
      scheduledTime: '09:00',
      durationMinutes: '120',
      assigneeId: fitterId,
    });
    const second = await newLead('Tap at the Pieterses', 'scheduled');
    const res = await admin.post(`/dashboard/leads/${second}/visit`, {
      scheduledDate: '2031-02-03',
      scheduledTime: '10:00',
      durationMinutes: '60',
      assigneeId: fitterId,
    });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/leads/${second}?visit=saved`);
    expect(await read(second)).toMatchObject({ scheduledFor: '2031-02-03T09:00:00.000Z' });
    const page = await admin.get(res.headers.location as string);
    const warning = /<div class="notice notice-warning" role="status">([\s\S]*?)<\/div>/.exec(page.body)?.[1];
    expect(warning).toContain(`<a href="/dashboard/leads/${first}">Boiler at the Jansens</a>`);
    expect(textOf(warning!)).toBe(
      'Saved, but take a look: Fred Fitter already has a visit at that time: Boiler at the Jansens at Mon, 3 Feb 2031, 09:00 (2 h).',
    );
    // Said once, after saving: the page on its own shows the visit without it.
    expect((await admin.get(`/dashboard/leads/${second}`)).body).not.toContain('notice-warning');
    // Someone else at that time is no double booking.
    const third = await newLead('Gutter at the Bakkers', 'scheduled');
    await admin.post(`/dashboard/leads/${third}/visit`, {
      scheduledDate: '2031-02-03',
      scheduledTime: '10:00',
      durationMinutes: '60',
      assigneeId: bossId,
    });
    expect((await admin.get(`/dashboard/leads/${third}?visit=saved`)).body).not.toContain('notice-warning');

    // In the past, from the Schedule form: in Dutch for a Dutch reader.
    await ctx.app.deps.database.db
      .updateTable('users')
      .set({ language: 'nl' })
      .where('id', '=', fitterId)
      .execute();
    try {
      const late = await newLead('Te laat ingepland');
      await fitter.get(`/dashboard/leads/${late}`);
      const moved = await schedule(fitter, late, {
        scheduledDate: '2020-01-06',
        scheduledTime: '09:00',
        durationMinutes: '60',
        assigneeId: '',
      });
      expect(moved.statusCode, moved.body).toBe(303);
      expect((await read(late)).status).toBe('scheduled');
      const text = textOf((await fitter.get(moved.headers.location as string)).body);
      expect(text).toContain(
        'Opgeslagen, maar let op: De afspraak begint in het verleden ( ma 6 jan 2020, 09:00 ).',
      );
    } finally {
      await ctx.app.deps.database.db
        .updateTable('users')
        .set({ language: 'en' })
        .where('id', '=', fitterId)
        .execute();
    }
  });

  it('the work-item list shows each visit’s date, time and person', async () => {
    const id = await newLead('Listed visit');
    await schedule(admin, id, {
      scheduledDate: '2026-12-03',
      scheduledTime: '08:15',
      durationMinutes: '30',
      assigneeId: fitterId,
    });
    const res = await admin.get('/dashboard/work-items?q=listed+visit');
    expect(res.body).toContain('<th scope="col">Visit</th>');
    expect(textOf(res.body)).toContain('Thu, 3 Dec 2026, 08:15 · 30 min · Fred Fitter');
  });

  it('Planning shows the week per person and day: a visit tomorrow at 09:00 is on that day, in its person’s row', async () => {
    const id = await newLead('Tomorrow’s visit');
    const day = tomorrow();
    await schedule(admin, id, {
      scheduledDate: day,
      scheduledTime: '09:00',
      durationMinutes: '60',
      assigneeId: fitterId,
    });
    const unassigned = await newLead('Nobody’s visit');
    await schedule(admin, unassigned, { scheduledDate: day, scheduledTime: '11:00', durationMinutes: '45' });
    const res = await admin.get(`/dashboard/planning?from=${day}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('aria-current="page">Planning</a>');
    const section = (name: string) =>
      new RegExp(`<section class="planning-person" aria-label="${name}">[\\s\\S]*?</section>`).exec(
        res.body,
      )?.[0] ?? '';
    const fred = section('Fred Fitter');
    const cell = new RegExp(`data-day="${day}"[\\s\\S]*?</li>\\s*</ul>`).exec(fred)?.[0] ?? '';
    expect(textOf(cell)).toContain('09:00–10:00 Tomorrow’s visit');
    expect(cell).toContain(`href="/dashboard/leads/${id}"`);
    expect(textOf(cell)).toContain('1015 CJ Amsterdam · 1 h');
    expect(textOf(section('boss@acme.example'))).not.toContain('Tomorrow’s visit');
    expect(textOf(section('Nobody yet'))).toContain('11:00–11:45 Nobody’s visit');
    // Monday to Sunday, seven days per person.
    expect(fred.match(/class="planning-day/g)).toHaveLength(7);
  });

  it('today is highlighted; previous and next week links; ?week= picks a week; a bad one is a 422', async () => {
    const today = dayIn('Europe/Amsterdam', Date.now());
    const thisWeek = await admin.get('/dashboard/planning');
    expect(thisWeek.body).toMatch(
      new RegExp(`class="planning-day today[^"]*" data-day="${today}" aria-current="date"`),
    );
    const w48 = await admin.get('/dashboard/planning?week=2026-W48');
    expect(w48.statusCode).toBe(200);
    expect(textOf(w48.body)).toContain('Week 48: Mon 23 Nov – Sun 29 Nov 2026');
    expect(w48.body).toContain('href="/dashboard/planning?week=2026-W47" rel="prev"');
    expect(w48.body).toContain('href="/dashboard/planning?week=2026-W49" rel="next"');
    expect(w48.body).toContain('data-day="2026-11-23"');
    expect(w48.body).toContain('data-day="2026-11-29"');
    expect(w48.body).not.toContain('data-day="2026-11-30"');
    // 2026-11-24 09:00 CET (Boiler service, above) is in week 48, on Tuesday.
    expect(textOf(w48.body)).toContain('09:00–10:30 Boiler service');
    expect(textOf((await admin.get('/dashboard/planning?week=2026-W49')).body)).not.toContain(
      'Boiler service',
    );
    const bad = await admin.get('/dashboard/planning?week=2026-W60');
    expect(bad.statusCode).toBe(422);
    expect(textOf(bad.body)).toContain('Week must be an ISO week such as 2026-W48');
  });

  it('My visits: the signed-in person’s visits from today on, next first; nobody else’s', async () => {
    const later = await newLead('Later visit for Fred');
    const sooner = await newLead('Sooner visit for Fred');
    const bosses = await newLead('Visit for the boss');
    const past = await newLead('Past visit for Fred');
    const day = tomorrow();
    await schedule(admin, later, {
      scheduledDate: addDays(day, 2),
      scheduledTime: '08:00',
      durationMinutes: '60',
      assigneeId: fitterId,
    });
    await schedule(admin, sooner, {
      scheduledDate: day,
      scheduledTime: '13:00',
      durationMinutes: '60',
      assigneeId: fitterId,
    });
    await schedule(admin, bosses, {
      scheduledDate: day,
      scheduledTime: '13:00',
      durationMinutes: '60',
      assigneeId: bossId,
    });
    await schedule(admin, past, {
      scheduledDate: '2020-01-06',
      scheduledTime: '08:00',
      durationMinutes: '60',
      assigneeId: fitterId,
    });
    const res = await fitter.get('/dashboard/my-visits');
    expect(res.statusCode).toBe(200);
    const text = textOf(res.body);
    expect(text).toContain('My visits');
    expect(text.indexOf('Sooner visit for Fred')).toBeGreaterThan(-1);
    expect(text.indexOf('Sooner visit for Fred')).toBeLessThan(text.indexOf('Later visit for Fred'));
    expect(text).toContain('13:00–14:00');
    expect(text).not.toContain('Visit for the boss');
    expect(text).not.toContain('Past visit for Fred');
  });

  describe('the brand’s time zone', () => {
    it('is for admins: a member gets a 403 page and changes nothing', async () => {
      expect((await fitter.get('/dashboard/settings/brand')).statusCode).toBe(403);
      const post = await fitter.post('/dashboard/settings/brand', { timeZone: 'UTC' });
      expect(post.statusCode).toBe(403);
      const page = await fitter.get('/dashboard/leads');
      expect(page.body).not.toContain('href="/dashboard/settings/brand"');
    });

    it('an unknown zone is a 422 naming it; a real one is saved and every date follows it', async () => {
      const page = await admin.get('/dashboard/settings/brand');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<option value="Europe/Amsterdam" selected>Europe/Amsterdam</option>');
      const bad = await admin.post('/dashboard/settings/brand', { timeZone: 'Mars/Olympus_Mons' });
      expect(bad.statusCode).toBe(422);
      expect(textOf(bad.body)).toContain('Time zone must be an IANA time zone name');
      expect(bad.body).toContain('<option value="Mars/Olympus_Mons" selected>');

      const id = await newLead('Zoned dates', 'scheduled');
      const receivedAt = Date.parse('2026-11-20T23:30:00Z');
      await ctx.app.deps.database.db
        .updateTable('leads')
        .set({ received_at: receivedAt })
        .where('id', '=', id)
        .execute();
      const inAmsterdam = textOf((await admin.get(`/dashboard/leads/${id}`)).body);
      expect(inAmsterdam).toContain('Received Sat, 21 Nov 2026, 00:30');

      const saved = await admin.post('/dashboard/settings/brand', { timeZone: 'America/New_York' });
      expect(saved.statusCode).toBe(303);
      const inNewYork = await admin.get(`/dashboard/leads/${id}`);
      expect(textOf(inNewYork.body)).toContain('Received Fri, 20 Nov 2026, 18:30');
      expect(inNewYork.body).toContain('<time datetime="2026-11-20T23:30:00.000Z" title="America/New_York">');
      // The visit form now takes New York times.
      await admin.post(`/dashboard/leads/${id}/visit`, {
        scheduledDate: '2026-12-01',
        scheduledTime: '09:00',
        durationMinutes: '60',
      });
      expect((await read(id)).scheduledFor).toBe('2026-12-01T14:00:00.000Z');
      await admin.post('/dashboard/settings/brand', { timeZone: 'Europe/Amsterdam' });
    });

    it('the per-day chart counts days of the brand’s zone', async () => {
      const db = ctx.app.deps.database.db;
      const { createBrand } = await import('../../src/accounts/brands.js');
      const brand = await createBrand(ctx.app.deps.database, {
        language: 'en',
        name: 'Late Night Ltd',
        country: 'NL',
      });
      const { createApiKey } = await import('../../src/accounts/api-keys.js');
      const key = (
        await createApiKey(ctx.app.deps.database, { brandId: brand.id, name: 'k', scopes: ['full'] })
      ).key;
      const id = (await ctx.createLead({ title: 'Late lead' }, key)).id as string;
      await db
        .updateTable('leads')
        .set({ received_at: Date.parse('2026-11-20T23:30:00Z') })
        .where('id', '=', id)
        .execute();
      const now = Date.parse('2026-11-21T12:00:00Z');
      const utc = await leadStats(ctx.app.deps.database, brand.id, 30, now, 'UTC');
      const amsterdam = await leadStats(ctx.app.deps.database, brand.id, 30, now, 'Europe/Amsterdam');
      expect(utc.perDay.find((d) => d.count)?.date).toBe('2026-11-20');
      expect(amsterdam.perDay.find((d) => d.count)?.date).toBe('2026-11-21');
      expect(amsterdam.perDay.at(-1)).toEqual({ date: '2026-11-21', count: 1 });
    });

    it('brands get Europe/Amsterdam in the Netherlands and UTC elsewhere, or the zone given', async () => {
      const { createBrand } = await import('../../src/accounts/brands.js');
      const database = ctx.app.deps.database;
      expect((await createBrand(database, { language: 'en', name: 'NL', country: 'NL' })).timeZone).toBe(
        'Europe/Amsterdam',
      );
      expect((await createBrand(database, { language: 'en', name: 'BE', country: 'BE' })).timeZone).toBe(
        'UTC',
      );
      expect(
        (
          await createBrand(database, {
            language: 'en',
            name: 'Z',
            country: 'BE',
            timeZone: 'europe/brussels',
          })
        ).timeZone,
      ).toBe('Europe/Brussels');
      await expect(
        createBrand(database, { language: 'en', name: 'X', timeZone: 'Nowhere' }),
      ).rejects.toMatchObject({
        errors: [{ field: 'timeZone' }],
      });
    });
  });

  describe('display names', () => {
    it('each person sets their own name on Settings > Users; it names them as assignee', async () => {
      const form = await fitter.get('/dashboard/settings/users');
      expect(form.body).toContain('action="/dashboard/settings/users/me/name"');
      expect(form.body).toContain('value="Fred Fitter"');
      const long = await fitter.post('/dashboard/settings/users/me/name', { ownName: 'x'.repeat(101) });
      expect(long.statusCode).toBe(422);
      expect(textOf(long.body)).toContain('Your name must be at most 100 characters.');
      const saved = await fitter.post('/dashboard/settings/users/me/name', {
        ownName: '  Frederik   Fitter ',
      });
      expect(saved.statusCode).toBe(303);
      const id = await newLead('Named visit', 'scheduled');
      await fitter.post(`/dashboard/leads/${id}/visit`, {
        scheduledDate: '2026-12-01',
        scheduledTime: '09:00',
        durationMinutes: '60',
        assigneeId: fitterId,
      });
      expect((await read(id)).assignee).toEqual({ id: fitterId, name: 'Frederik Fitter' });
      // Empty: the email stands in again.
      await fitter.post('/dashboard/settings/users/me/name', { ownName: '' });
      expect((await read(id)).assignee).toEqual({ id: fitterId, name: 'fitter@acme.example' });
      await fitter.post('/dashboard/settings/users/me/name', { ownName: 'Fred Fitter' });
    });

    it('an admin adding a person with a password can give their name', async () => {
      await admin.get('/dashboard/settings/users');
      const res = await admin.post('/dashboard/settings/users', {
        email: `named-${dialect}@acme.example`,
        name: 'Nina Named',
        role: 'member',
        password: 'a good long password for nina',
      });
      expect(res.statusCode, res.body).toBe(303);
      const row = await ctx.app.deps.database.db
        .selectFrom('users')
        .select('name')
        .where('email', '=', `named-${dialect}@acme.example`)
        .executeTakeFirstOrThrow();
      expect(row.name).toBe('Nina Named');
      expect(textOf((await admin.get('/dashboard/settings/users')).body)).toContain(
        `named-${dialect}@acme.example Nina Named`,
      );
    });

    it('an invited person gives their name when they accept', async () => {
      await admin.get('/dashboard/settings/users');
      const invited = await admin.post('/dashboard/settings/users', {
        email: `invited-${dialect}@acme.example`,
        role: 'member',
        password: '',
      });
      // The link is shown once, on the page the post redirects to.
      const shown = await admin.get(String(invited.headers.location));
      const url = /value="(http[^"]+\/invite\?token=[^"]+)"/.exec(shown.body)![1]!;
      const { Browser: FreshBrowser } = await import('./helpers.js');
      const browser = new FreshBrowser(ctx.app);
      const path = new URL(url).pathname + new URL(url).search;
      const page = await browser.get(path);
      expect(page.body).toContain('<label for="field-name">Your name');
      const accepted = await browser.post('/invite', {
        token: new URL(url).searchParams.get('token')!,
        name: 'Ivo Invited',
        password: 'another good long password',
        passwordConfirmation: 'another good long password',
      });
      expect(accepted.statusCode, accepted.body).toBe(303);
      const row = await ctx.app.deps.database.db
        .selectFrom('users')
        .select('name')
        .where('email', '=', `invited-${dialect}@acme.example`)
        .executeTakeFirstOrThrow();
      expect(row.name).toBe('Ivo Invited');
    });
  });
});

describe.each(dialects())('first-run setup asks for a name on %s', (dialect) => {
  const ctx = useTestContext(dialect);

  it('stores the owner’s display name, and the new brand’s zone follows its country', async () => {
    const { createSetupLink } = await import('../../src/accounts/setup.js');
    const { Browser: FreshBrowser } = await import('./helpers.js');
    const url = (await createSetupLink(ctx.app.deps.database, 'http://localhost'))!;
    const token = new URL(url).searchParams.get('token')!;
    const browser = new FreshBrowser(ctx.app);
    const form = await browser.get(`/setup?token=${token}`);
    expect(form.body).toContain('<label for="field-name">Your name');
    const done = await browser.post('/setup', {
      token,
      brandName: 'Jansen Installaties',
      country: 'NL',
      name: 'Jan Jansen',
      email: 'jan@jansen.example',
      password: 'a good long password',
      passwordConfirmation: 'a good long password',
    });
    expect(done.statusCode, done.body).toBe(303);
    const row = await ctx.app.deps.database.db
      .selectFrom('users as u')
      .innerJoin('brands as b', 'b.id', 'u.brand_id')
      .select(['u.name', 'b.time_zone'])
      .where('u.email', '=', 'jan@jansen.example')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ name: 'Jan Jansen', time_zone: 'Europe/Amsterdam' });
  });
});
