// A lead's page in the dashboard: internal notes, the timeline of who did what, the Cancelled and All views,
// the confirmation step for final states with a cancellation's reason, and the stale-tab message.
import { beforeAll, describe, expect, it } from 'vitest';
import { leadStats } from '../../src/leads/stats.js';
import { formPoster } from '../api.js';
import { dialects } from '../helpers.js';
import { useTestContext } from '../test-context.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

/** Titles of the rows in a list page, in order. */
function titles(html: string): string[] {
  return [...html.matchAll(/<td data-label="Job" class="cell-title"><a href="[^"]+">([^<]*)<\/a>/g)].map(
    (m) => m[1]!,
  );
}

/** The texts of the notes on a lead's page, in the order shown. */
function noteTexts(html: string): string[] {
  return [...html.matchAll(/<p class="note-text prose">([\s\S]*?)<\/p>/g)].map((m) => m[1]!);
}

describe.each(dialects())('lead notes and history in the dashboard on %s', (dialect) => {
  const ctx = useTestContext(dialect);
  let browser: Browser;
  let userId: string;

  beforeAll(async () => {
    userId = (await addUser(ctx.app, ctx.brandId, 'sanne@acme.example')).id;
    browser = await signedIn(ctx.app, 'sanne@acme.example');
  });

  const newLead = async (title: string) => (await ctx.createLead({ title })).id as string;

  describe('notes', () => {
    it('adds a note by the signed-in user, shown with author and time, and in the API', async () => {
      const id = await newLead('Leaking tap');
      await browser.get(`/dashboard/leads/${id}`);
      const res = await browser.post(`/dashboard/leads/${id}/notes`, {
        text: '  Gate code 1234.\nDog is friendly.  ',
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`/dashboard/leads/${id}?noted=1#notes`);
      const page = await browser.get(res.headers.location as string);
      expect(textOf(page.body)).toContain('Note added.');
      // Line breaks are kept: the text sits in a pre-wrap block as written (trimmed).
      expect(noteTexts(page.body)).toEqual(['Gate code 1234.\nDog is friendly.']);
      expect(textOf(page.body)).toMatch(
        /Note · \w{3}, \d{1,2} \w{3} \d{4}, \d\d:\d\d · by sanne@acme\.example/,
      );
      const listed = (await ctx.api.get(`/v1/leads/${id}/notes`)).json();
      expect(listed.data).toEqual([
        {
          id: expect.stringMatching(/^not_/),
          text: 'Gate code 1234.\nDog is friendly.',
          author: { type: 'user', id: userId, name: 'sanne@acme.example' },
          createdAt: expect.any(String),
        },
      ]);
      const events = (await ctx.api.get('/v1/events?type=note.created&limit=100')).json().data;
      expect(events.some((e: { data: { leadId: string } }) => e.data.leadId === id)).toBe(true);
    });

    it('shows notes newest first and escapes them', async () => {
      const id = await newLead('Escaped notes');
      await browser.get(`/dashboard/leads/${id}`);
      for (const text of ['first', '<script>alert("x")</script> & <b>bold</b>', 'third']) {
        expect((await browser.post(`/dashboard/leads/${id}/notes`, { text })).statusCode).toBe(303);
      }
      const page = await browser.get(`/dashboard/leads/${id}`);
      expect(noteTexts(page.body)).toEqual([
        'third',
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;',
        'first',
      ]);
      expect(page.body).not.toContain('<script>alert');
      expect(page.body).not.toContain('<b>bold');
    });

    it('refuses an empty or over-long note beside the field, keeping what was typed', async () => {
      const id = await newLead('Bad notes');
      await browser.get(`/dashboard/leads/${id}`);
      const blank = await browser.post(`/dashboard/leads/${id}/notes`, { text: '   \n  ' });
      expect(blank.statusCode).toBe(422);
      expect(blank.body).toMatch(
        /<p class="error" id="field-text-error">Write something before adding the note\.<\/p>/,
      );
      expect(blank.body).toContain('aria-invalid="true"');
      const long = `Start ${'x'.repeat(5000)}`;
      const tooLong = await browser.post(`/dashboard/leads/${id}/notes`, { text: long });
      expect(tooLong.statusCode).toBe(422);
      expect(textOf(tooLong.body)).toContain('A note can be at most 5,000 characters; this one has 5,006.');
      // What was typed is back in the field.
      expect(tooLong.body).toContain(`>\n${long}</textarea>`);
      expect((await ctx.api.get(`/v1/leads/${id}/notes`)).json().data).toEqual([]);
    });

    it('needs the form token, and a lead of the brand', async () => {
      const id = await newLead('Token needed');
      await browser.get(`/dashboard/leads/${id}`);
      const forged = await browser.post(`/dashboard/leads/${id}/notes`, { text: 'forged', _csrf: undefined });
      expect(forged.statusCode).toBe(403);
      const other = (await ctx.createLead({ title: 'Theirs' }, ctx.keys.other)).id as string;
      expect((await browser.post(`/dashboard/leads/${other}/notes`, { text: 'intrusion' })).statusCode).toBe(
        404,
      );
      expect((await ctx.api.get(`/v1/leads/${id}/notes`)).json().data).toEqual([]);
      const theirs = await ctx.api.get(`/v1/leads/${other}/notes`, { key: ctx.keys.other });
      expect(theirs.json().data).toEqual([]);
    });

    it('takes notes on cancelled leads and completed jobs', async () => {
      const id = await newLead('Closed but noted');
      await ctx.setStatus(id, 'cancelled');
      await browser.get(`/dashboard/leads/${id}`);
      expect(
        (await browser.post(`/dashboard/leads/${id}/notes`, { text: 'They may call back' })).statusCode,
      ).toBe(303);
      expect(noteTexts((await browser.get(`/dashboard/leads/${id}`)).body)).toEqual(['They may call back']);
    });
  });

  describe('the timeline', () => {
    it('merges state changes, notes and activity newest first, each naming who; filters show one kind', async () => {
      const id = await newLead('Timeline job');
      await ctx.setStatus(id, 'quoted');
      await browser.get(`/dashboard/leads/${id}`);
      await browser.post(`/dashboard/leads/${id}/notes`, { text: 'Quote sent by mail' });
      await browser.get(`/dashboard/leads/${id}`);
      const scheduled = await browser.post(`/dashboard/leads/${id}/status`, {
        status: 'scheduled',
        from: 'quoted',
        scheduledDate: '2030-01-07',
        scheduledTime: '09:00',
        durationMinutes: '60',
        assigneeId: '',
      });
      expect(scheduled.statusCode, scheduled.body).toBe(303);
      const page = await browser.get(`/dashboard/leads/${id}`);
      const items = [...page.body.matchAll(/<li class="feed-(\w+)"[^>]*>([\s\S]*?)<\/li>/g)].map(
        (m) => `${m[1]}: ${textOf(m[2]!).replace(/\w{3}, \d{1,2} \w{3} \d{4}, \d\d:\d\d/, 'TIME')}`,
      );
      expect(items).toEqual([
        'change: Scheduled · TIME · by sanne@acme.example',
        'note: Note · TIME · by sanne@acme.example Quote sent by mail',
        'change: Quoted · TIME · by key key full',
        'change: Request · TIME · by key key full',
      ]);
      const notesOnly = await browser.get(`/dashboard/leads/${id}?show=notes`);
      expect(notesOnly.body).toContain('feed-note');
      expect(notesOnly.body).not.toContain('feed-change');
      expect(notesOnly.body).toMatch(
        /<a href="\/dashboard\/leads\/[^"?]+\?show=notes#notes" aria-current="true">Notes<\/a>/,
      );
      const changesOnly = await browser.get(`/dashboard/leads/${id}?show=changes`);
      expect(changesOnly.body).toContain('feed-change');
      expect(changesOnly.body).not.toContain('feed-note');
    });

    it('names who made each change in the API and in events: the key, the form, the signed-in user', async () => {
      const id = await newLead('Actors');
      await browser.get(`/dashboard/leads/${id}`);
      await browser.post(`/dashboard/leads/${id}/status`, { status: 'quoted', from: 'request' });
      const lead = (await ctx.api.get(`/v1/leads/${id}`)).json();
      expect(lead.statusHistory.map((h: { actor: unknown }) => h.actor)).toEqual([
        { type: 'key', id: ctx.keyIds.full, name: 'key full' },
        { type: 'user', id: userId, name: 'sanne@acme.example' },
      ]);
      const events = (await ctx.api.get('/v1/events?type=lead.status_changed&limit=100')).json().data;
      const event = events.find((e: { data: { lead: { id: string } } }) => e.data.lead.id === id);
      expect(event.data.lead.statusHistory.at(-1).actor).toEqual({
        type: 'user',
        id: userId,
        name: 'sanne@acme.example',
      });

      const form = await ctx.api.post('/v1/forms', {
        name: 'Contact page',
        allowedOrigins: ['https://www.acme.example'],
      });
      const formId = form.json().id as string;
      const posted = await formPoster(ctx.app, 'https://www.acme.example').json(formId, {
        title: 'From the site',
        customerName: 'Web Visitor',
        email: 'visitor@example.com',
        street: 'Main',
        postalCode: '1015 CJ',
        city: 'Amsterdam',
      });
      expect(posted.statusCode, posted.body).toBe(201);
      const fromForm = (await ctx.api.get(`/v1/leads/${posted.json().id}`)).json();
      expect(fromForm.statusHistory).toEqual([
        {
          status: 'request',
          at: fromForm.receivedAt,
          actor: { type: 'form', id: formId, name: 'Contact page' },
          reason: null,
        },
      ]);
      const formPage = await browser.get(`/dashboard/leads/${posted.json().id}`);
      expect(textOf(formPage.body)).toMatch(/Request · [^·]+ · by form Contact page/);
    });
  });

  describe('cancelled and all', () => {
    it('lists cancelled leads and jobs under Cancelled, everything under All, from the overview too', async () => {
      await newLead('Open one');
      const cancelledLead = await newLead('Cancelled lead');
      await ctx.setStatus(cancelledLead, 'cancelled');
      const cancelledJob = await newLead('Cancelled job');
      await ctx.setStatus(cancelledJob, 'scheduled');
      await ctx.setStatus(cancelledJob, 'cancelled');
      const job = await newLead('Scheduled job');
      await ctx.setStatus(job, 'scheduled');
      await ctx.createLead({ title: 'Other brand cancelled' }, ctx.keys.other);

      const cancelled = await browser.get('/dashboard/leads?status=cancelled');
      expect(cancelled.statusCode).toBe(200);
      const shown = titles(cancelled.body);
      expect(shown).toEqual(expect.arrayContaining(['Cancelled job', 'Cancelled lead']));
      expect(shown).not.toContain('Open one');
      expect(shown).not.toContain('Scheduled job');
      expect(cancelled.body).toContain(
        '<a href="/dashboard/leads?status=cancelled" aria-current="page">Cancelled</a>',
      );
      expect(cancelled.body).toContain('<option value="cancelled" selected>');

      const all = titles((await browser.get('/dashboard/leads?status=all')).body);
      expect(all).toEqual(
        expect.arrayContaining(['Open one', 'Cancelled lead', 'Cancelled job', 'Scheduled job']),
      );
      expect(all).not.toContain('Other brand cancelled');
      // The open list is as before: no cancelled or scheduled items.
      const openList = titles((await browser.get('/dashboard/leads')).body);
      expect(openList).toContain('Open one');
      expect(openList).not.toContain('Cancelled lead');
      // Search works in these views too.
      expect(titles((await browser.get('/dashboard/leads?status=cancelled&q=cancelled+job')).body)).toEqual([
        'Cancelled job',
      ]);

      const overview = await browser.get('/dashboard/leads');
      expect(overview.body).toContain(
        '<a class="state-label" href="/dashboard/leads?status=cancelled">Cancelled</a>',
      );
      const counts = Object.fromEntries(
        (await leadStats(ctx.app.deps.database, ctx.brandId)).perStatus.map((x) => [x.status, x.count]),
      );
      expect(counts.cancelled).toBeGreaterThanOrEqual(2);
      expect(overview.body).toContain(
        `<a class="state-count" href="/dashboard/leads?status=cancelled" aria-label="${counts.cancelled} leads cancelled">${counts.cancelled}</a>`,
      );
      expect(overview.body).toContain(
        `<a class="state-count" href="/dashboard/work-items?status=scheduled" aria-label="${counts.scheduled} ${counts.scheduled === 1 ? 'lead' : 'leads'} scheduled">${counts.scheduled}</a>`,
      );
      expect(overview.body).toContain('<a href="/dashboard/leads?status=all">All leads and jobs (');
    });
  });

  describe('final states are confirmed first', () => {
    it('"Mark as completed" asks once, without JavaScript, and changes nothing until confirmed', async () => {
      const id = await newLead('Leaking tap done');
      for (const s of ['scheduled', 'planned', 'in_progress']) await ctx.setStatus(id, s);
      await browser.get(`/dashboard/leads/${id}`);
      const ask = await browser.post(`/dashboard/leads/${id}/status`, {
        status: 'completed',
        from: 'in_progress',
      });
      expect(ask.statusCode).toBe(200);
      expect(textOf(ask.body)).toContain('Mark “Leaking tap done” as completed? This cannot be undone.');
      expect(ask.body).toContain('<button type="submit" name="confirm" value="yes"');
      expect(ask.body).toContain(`<a class="button button-quiet" href="/dashboard/leads/${id}">Back</a>`);
      expect((await ctx.api.get(`/v1/leads/${id}`)).json().status).toBe('in_progress');

      const done = await browser.post(`/dashboard/leads/${id}/status`, {
        status: 'completed',
        from: 'in_progress',
        confirm: 'yes',
      });
      expect(done.statusCode).toBe(303);
      expect((await ctx.api.get(`/v1/leads/${id}`)).json().status).toBe('completed');
    });

    it('cancelling asks a reason (optional, up to 500 characters), kept in the history and the API', async () => {
      const id = await newLead('Changed their mind');
      await browser.get(`/dashboard/leads/${id}`);
      const ask = await browser.post(`/dashboard/leads/${id}/status`, {
        status: 'cancelled',
        from: 'request',
      });
      expect(ask.statusCode).toBe(200);
      expect(textOf(ask.body)).toContain(
        'Cancel “Changed their mind”? It leaves the lists; you can reopen it later as a request.',
      );
      expect(ask.body).toContain('<textarea id="field-reason" name="reason"');

      const long = 'y'.repeat(501);
      const tooLong = await browser.post(`/dashboard/leads/${id}/status`, {
        status: 'cancelled',
        from: 'request',
        confirm: 'yes',
        reason: long,
      });
      expect(tooLong.statusCode).toBe(422);
      expect(textOf(tooLong.body)).toContain('A reason can be at most 500 characters; this one has 501.');
      expect(tooLong.body).toContain(`>\n${long}</textarea>`);
      expect((await ctx.api.get(`/v1/leads/${id}`)).json().status).toBe('request');

      const done = await browser.post(`/dashboard/leads/${id}/status`, {
        status: 'cancelled',
        from: 'request',
        confirm: 'yes',
        reason: '  Found <someone> cheaper\nwill call next year ',
      });
      expect(done.statusCode).toBe(303);
      const lead = (await ctx.api.get(`/v1/leads/${id}`)).json();
      expect(lead.statusHistory.at(-1)).toEqual({
        status: 'cancelled',
        at: expect.any(String),
        actor: { type: 'user', id: userId, name: 'sanne@acme.example' },
        reason: 'Found <someone> cheaper\nwill call next year',
      });
      expect(lead.statusHistory[0].reason).toBeNull();
      const page = await browser.get(`/dashboard/leads/${id}`);
      expect(page.body).toContain(
        '<p class="feed-reason prose">Reason: Found &lt;someone&gt; cheaper\nwill call next year</p>',
      );

      // Without a reason is fine too: null.
      const other = await newLead('No reason given');
      await browser.get(`/dashboard/leads/${other}`);
      await browser.post(`/dashboard/leads/${other}/status`, {
        status: 'cancelled',
        confirm: 'yes',
        reason: '  ',
      });
      expect((await ctx.api.get(`/v1/leads/${other}`)).json().statusHistory.at(-1).reason).toBeNull();
    });
  });

  describe('reopening', () => {
    it('a cancelled job has Reopen (with the CSRF token): a request again, planning cleared, who in the timeline', async () => {
      const id = await newLead('Cancelled by mistake');
      const planned = await ctx.api.patch(`/v1/leads/${id}`, {
        status: 'scheduled',
        scheduledFor: '2030-01-07T08:00:00Z',
        durationMinutes: 60,
        assigneeId: userId,
      });
      expect(planned.statusCode, planned.body).toBe(200);
      await ctx.setStatus(id, 'cancelled');
      const page = await browser.get(`/dashboard/leads/${id}`);
      const text = textOf(page.body);
      expect(text).not.toContain('its state is final');
      expect(text).toContain('Reopening makes it a request again');
      // One form: the token, the state the page showed, and the button; no confirmation step.
      const form = /<form method="post" action="\/dashboard\/leads\/[^"]+\/status">([\s\S]*?)<\/form>/.exec(
        page.body,
      )?.[1];
      expect(form).toContain(`name="_csrf" value="${browser.csrf}"`);
      expect(form).toContain('<input type="hidden" name="from" value="cancelled">');
      expect(form).toContain(
        '<button type="submit" name="status" value="request" class="button button-primary">Reopen</button>',
      );

      // Without the token (a post from another site) nothing happens.
      const forged = await browser.post(`/dashboard/leads/${id}/status`, {
        _csrf: undefined,
        status: 'request',
        from: 'cancelled',
      });
      expect(forged.statusCode).toBe(403);
      expect((await ctx.api.get(`/v1/leads/${id}`)).json().status).toBe('cancelled');

      const res = await browser.post(`/dashboard/leads/${id}/status`, {
        status: 'request',
        from: 'cancelled',
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`/dashboard/leads/${id}?moved=request`);
      const after = await browser.get(res.headers.location as string);
      const afterText = textOf(after.body);
      expect(afterText).toContain('Reopened: it is a request again, with nothing planned.');
      // The newest timeline entry: back to Request, marked Reopened, by the signed-in user.
      expect(afterText).toMatch(
        /Notes and history[\s\S]*?Request Reopened · \w{3}, \d{1,2} \w{3} \d{4}, \d\d:\d\d · by sanne@acme\.example[\s\S]*?Cancelled ·/,
      );
      // A request's buttons now, and no visit.
      expect(after.body).toContain('value="quoted"');
      expect(after.body).not.toContain('id="visit-title"');
      const lead = (await ctx.api.get(`/v1/leads/${id}`)).json();
      expect(lead).toMatchObject({
        status: 'request',
        scheduledFor: null,
        durationMinutes: null,
        assignee: null,
      });
      expect(lead.statusHistory.at(-1)).toMatchObject({
        status: 'request',
        actor: { type: 'user', id: userId, name: 'sanne@acme.example' },
      });
      // The first entry is the request it came in as, not a reopening.
      expect((afterText.match(/Reopened ·/g) ?? []).length).toBe(1);

      // A second tab still showing it cancelled changes nothing.
      const stale = await browser.post(`/dashboard/leads/${id}/status`, {
        status: 'request',
        from: 'cancelled',
      });
      expect(stale.statusCode).toBe(409);
      expect(textOf(stale.body)).toContain('This lead is already Request');
    });

    it('in Dutch: Heropenen, and the notice and timeline say so', async () => {
      const nl = await addUser(ctx.app, ctx.brandId, `piet-${dialect}@acme.example`);
      await ctx.app.deps.database.db
        .updateTable('users')
        .set({ language: 'nl' })
        .where('id', '=', nl.id)
        .execute();
      const dutch = await signedIn(ctx.app, `piet-${dialect}@acme.example`);
      const id = await newLead('Per ongeluk geannuleerd');
      await ctx.setStatus(id, 'cancelled');
      const page = await dutch.get(`/dashboard/leads/${id}`);
      expect(page.body).toContain('value="request" class="button button-primary">Heropenen</button>');
      const res = await dutch.post(`/dashboard/leads/${id}/status`, { status: 'request', from: 'cancelled' });
      const after = textOf((await dutch.get(res.headers.location as string)).body);
      expect(after).toContain('Heropend: het is weer een aanvraag, zonder geplande afspraak.');
      expect(after).toMatch(/Aanvraag Heropend · .* · door piet-/);
    });
  });

  describe('a stale tab', () => {
    it('changes nothing and says which state the lead is in, who made it so and when', async () => {
      const id = await newLead('Stale tab');
      await browser.get(`/dashboard/leads/${id}`);
      // Meanwhile someone else schedules it.
      await ctx.setStatus(id, 'scheduled');
      // The old tab still offers "Mark as quoted".
      const res = await browser.post(`/dashboard/leads/${id}/status`, { status: 'quoted', from: 'request' });
      expect(res.statusCode).toBe(409);
      expect(res.headers['content-type']).toContain('text/html');
      expect(textOf(res.body)).toMatch(
        /This job is already Scheduled \(changed by key key full at \w{3}, \d{1,2} \w{3} \d{4}, \d\d:\d\d \); nothing was changed\./,
      );
      expect(textOf(res.body)).not.toMatch(/status "scheduled"|Allowed from/);
      expect((await ctx.api.get(`/v1/leads/${id}`)).json().statusHistory).toHaveLength(2);
    });

    it('refuses a move the new state would allow too, because it was decided on an old page', async () => {
      const id = await newLead('Moved meanwhile');
      await browser.get(`/dashboard/leads/${id}`);
      const other = await signedIn(ctx.app, 'sanne@acme.example');
      await other.get(`/dashboard/leads/${id}`);
      expect(
        (await other.post(`/dashboard/leads/${id}/status`, { status: 'quoted', from: 'request' })).statusCode,
      ).toBe(303);
      // Scheduling is allowed from quoted as well, but this tab showed the lead as a request.
      const res = await browser.post(`/dashboard/leads/${id}/status`, {
        status: 'scheduled',
        from: 'request',
      });
      expect(res.statusCode).toBe(409);
      expect(textOf(res.body)).toMatch(
        /This lead is already Quoted \(changed by sanne@acme\.example at [^)]+\); nothing was changed\./,
      );
      expect((await ctx.api.get(`/v1/leads/${id}`)).json().status).toBe('quoted');
      // A double submit of the same change says the same, also on the confirmation step.
      const again = await browser.post(`/dashboard/leads/${id}/status`, {
        status: 'quoted',
        from: 'request',
      });
      expect(again.statusCode).toBe(409);
      expect(textOf(again.body)).toContain('This lead is already Quoted');
      const cancel = await browser.post(`/dashboard/leads/${id}/status`, {
        status: 'cancelled',
        from: 'request',
      });
      expect(cancel.statusCode).toBe(409);
      expect(textOf(cancel.body)).toContain('This lead is already Quoted');
    });
  });
});
