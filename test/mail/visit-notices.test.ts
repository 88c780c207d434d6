// Visit notices end to end (contract "Calendars and visit notices"): the real mail worker sending to a real SMTP
// server, the .ics parsed with ical.js. The customer hears of a visit planned, moved and cancelled, with the feed's
// UID and SEQUENCE; the colleague given the visit hears too, unless they did it; two quick changes send one mail of
// the latest; spam, a brand that turned notices off and a customer without email get nothing.
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchLead } from '../../src/leads/planning.js';
import { renderVisitNotice, VISIT_NOTICE_MAIL } from '../../src/leads/visit-notices.js';
import { MailWorker } from '../../src/mail/worker.js';
import { parseCalendar, wallClock } from '../calendar/ical.js';
import { addUser, signedIn, textOf } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext, waitFor } from '../helpers.js';
import { type SmtpReceiver, startSmtp, testMail } from './smtp.js';

const PUBLIC_URL = 'https://leads.acme.example';
const DAY = 24 * 60 * 60 * 1000;
const silent = { info() {}, warn() {}, error() {} } as unknown as ConstructorParameters<
  typeof MailWorker
>[0]['log'];

/** A whole minute some days ahead, at 09:00 UTC. */
function dayAhead(days: number, hour = 9): Date {
  const d = new Date(Date.now() + days * DAY);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), hour));
}

/** The invitation a mail carries as invite.ics, parsed. */
function invitation(mail: ParsedMail) {
  const file = mail.attachments.find(
    (a) => a.filename === 'invite.ics' && a.contentType === 'application/ics',
  );
  expect(file, 'an invite.ics attachment').toBeDefined();
  return parseCalendar(file!.content.toString('utf8'));
}

describe.each(dialects())('visit notices on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;
  let fitter: { id: string; email: string };
  let owner: { id: string; email: string };

  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createTestContext(dialect, { mail: testMail(smtp.url()), publicUrl: PUBLIC_URL });
    owner = await addUser(ctx.app, ctx.brandId, 'owner@acme.example', 'owner');
    fitter = await addUser(ctx.app, ctx.brandId, 'fitter@acme.example', 'member');
    // The fitter reads Dutch; the brand (and so its customers) English.
    await ctx.app.deps.database.db
      .updateTable('users')
      .set({ language: 'nl' })
      .where('id', '=', fitter.id)
      .execute();
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  const db = () => ctx.app.deps.database.db;
  const noticesOf = (leadId: string) =>
    db()
      .selectFrom('email_outbox')
      .selectAll()
      .where('lead_id', '=', leadId)
      .where('kind', '=', VISIT_NOTICE_MAIL)
      .execute();
  /** Mails to `to`, once every queued mail about the lead is done (sent, or dropped unsent). */
  async function settled(leadId: string) {
    await waitFor(
      async () =>
        (
          await db().selectFrom('email_outbox').select('status').where('lead_id', '=', leadId).execute()
        ).every((r) => r.status === 'sent'),
      'the mails about the lead sent',
    );
  }
  const feedSequence = async (leadId: string) =>
    (
      await db()
        .selectFrom('leads')
        .select('visit_sequence')
        .where('id', '=', leadId)
        .executeTakeFirstOrThrow()
    ).visit_sequence;

  it('planned, moved, cancelled: one mail each with the invitation; the colleague told in their language', async () => {
    const customer = 'jan@jansen.example';
    const lead = await ctx.createLead({
      title: 'Boiler service',
      customerName: 'Jan Jansen',
      email: customer,
    });
    const id = lead.id as string;
    const start = dayAhead(6);
    const planned = await ctx.api.patch(`/v1/leads/${id}`, {
      status: 'scheduled',
      scheduledFor: start.toISOString(),
      durationMinutes: 90,
      assigneeId: fitter.id,
    });
    expect(planned.statusCode, planned.body).toBe(200);
    await waitFor(() => smtp.to(customer).length === 1 && smtp.to(fitter.email).length === 1, 'two mails');

    const first = smtp.to(customer)[0]!.parsed;
    expect(first.subject).toMatch(/^Appointment: Boiler service, /);
    const text = first.text ?? '';
    expect(text).toContain('Dear Jan Jansen,');
    // The time in the brand's zone (Amsterdam), and the address.
    expect(text).toContain(wallClock(start, 'Europe/Amsterdam'));
    expect(text).toContain('Keizersgracht 123, 1015 CJ Amsterdam');
    expect(first.headers.get('content-language')).toBe('en');
    const request = invitation(first);
    expect(request.method).toBe('REQUEST');
    expect(request.events).toHaveLength(1);
    expect(request.events[0]!.uid).toBe(`${id}@lead-intake`);
    expect(request.events[0]!.sequence).toBe(await feedSequence(id));
    expect(request.events[0]!.start.getTime()).toBe(start.getTime());
    expect(request.events[0]!.end.getTime()).toBe(start.getTime() + 90 * 60_000);
    // The text/calendar part calendar apps read, with its method.
    expect(
      first.attachments.some(
        (a) => /^text\/calendar/.test(a.contentType) || a.contentType === 'text/calendar',
      ),
    ).toBe(true);

    const colleague = smtp.to(fitter.email)[0]!.parsed;
    expect(colleague.subject).toMatch(/^Bezoek voor jou: Boiler service, /);
    expect(colleague.text).toContain(`${PUBLIC_URL}/dashboard/leads/${id}`);

    // Moved: the customer hears the new time with a higher SEQUENCE; the fitter hears it moved.
    const later = new Date(start.getTime() + 3 * 60 * 60 * 1000);
    expect((await ctx.api.patch(`/v1/leads/${id}`, { scheduledFor: later.toISOString() })).statusCode).toBe(
      200,
    );
    await waitFor(
      () => smtp.to(customer).length === 2 && smtp.to(fitter.email).length === 2,
      'the move mails',
    );
    const moved = smtp.to(customer)[1]!.parsed;
    expect(moved.subject).toMatch(/^Appointment changed: Boiler service, /);
    const update = invitation(moved);
    expect(update.events[0]!.uid).toBe(`${id}@lead-intake`);
    expect(update.events[0]!.start.getTime()).toBe(later.getTime());
    expect(update.events[0]!.sequence).toBeGreaterThan(request.events[0]!.sequence);
    expect(update.events[0]!.sequence).toBe(await feedSequence(id));
    expect(smtp.to(fitter.email)[1]!.parsed.subject).toMatch(/^Je bezoek is verzet: Boiler service/);

    // Cancelled: METHOD:CANCEL of the same event.
    await ctx.setStatus(id, 'cancelled');
    await waitFor(() => smtp.to(customer).length === 3, 'the cancellation');
    const cancelled = smtp.to(customer)[2]!.parsed;
    expect(cancelled.subject).toBe('Appointment cancelled: Boiler service');
    const cancel = invitation(cancelled);
    expect(cancel.method).toBe('CANCEL');
    expect(cancel.events[0]!.uid).toBe(`${id}@lead-intake`);
    expect(cancel.events[0]!.status).toBe('CANCELLED');
    expect(cancel.events[0]!.sequence).toBe(await feedSequence(id));
    await settled(id);
    // Nothing more: three notices for three changes, and no mail to the fitter about the cancellation.
    expect(smtp.to(customer)).toHaveLength(3);
    expect(smtp.to(fitter.email)).toHaveLength(2);

    // The lead's timeline says the customer was told, each time.
    const browser = await signedIn(ctx.app, owner.email);
    const page = textOf((await browser.get(`/dashboard/leads/${id}`)).body);
    expect(page).toContain('Customer told of the visit of');
    expect(page).toContain('Customer told of the changed visit, now');
    expect(page).toContain('is cancelled');
  });

  it('two quick changes send one mail, of the latest; spam gets none', async () => {
    // The app's worker stopped: the changes are made before any mail is sent.
    await ctx.app.mailWorker!.stop();
    const customer = 'quick@example.com';
    const id = (await ctx.createLead({ title: 'Quick', email: customer })).id as string;
    const spamCustomer = 'spam@example.com';
    const spamId = (await ctx.createLead({ title: 'Spammy', email: spamCustomer })).id as string;
    const first = dayAhead(8);
    const second = dayAhead(9, 13);
    for (const [lead, at] of [
      [id, first],
      [spamId, first],
    ] as const) {
      const res = await ctx.api.patch(`/v1/leads/${lead}`, {
        status: 'scheduled',
        scheduledFor: at.toISOString(),
      });
      expect(res.statusCode).toBe(200);
    }
    expect((await ctx.api.patch(`/v1/leads/${id}`, { scheduledFor: second.toISOString() })).statusCode).toBe(
      200,
    );
    // One notice waits for the lead, whatever the number of changes.
    expect(await noticesOf(id)).toHaveLength(1);
    await db().updateTable('leads').set({ spam: 1 }).where('id', '=', spamId).execute();

    const worker = new MailWorker({
      store: ctx.app.deps.database,
      config: ctx.app.deps.config.mail!,
      log: silent,
      renderers: { [VISIT_NOTICE_MAIL]: renderVisitNotice },
    });
    worker.start();
    try {
      await waitFor(() => smtp.to(customer).length === 1, 'the notice');
      await waitFor(async () => (await noticesOf(spamId)).length === 0, 'the spam notice dropped');
      await settled(id);
    } finally {
      await worker.stop();
    }
    const mails = smtp.to(customer);
    expect(mails).toHaveLength(1);
    const event = invitation(mails[0]!.parsed).events[0]!;
    expect(event.start.getTime()).toBe(second.getTime());
    expect(event.sequence).toBe(await feedSequence(id));
    expect(smtp.to(spamCustomer)).toHaveLength(0);
    ctx.app.mailWorker!.start();
  });

  it('a notice the server first refuses is retried and sent once, with one line on the timeline', async () => {
    const customer = 'retry@example.com';
    const id = (await ctx.createLead({ title: 'Retried', email: customer })).id as string;
    smtp.answer = 'try-later';
    try {
      const res = await ctx.api.patch(`/v1/leads/${id}`, {
        status: 'scheduled',
        scheduledFor: dayAhead(12).toISOString(),
      });
      expect(res.statusCode).toBe(200);
      await waitFor(async () => (await noticesOf(id))[0]?.attempt, 'a refused attempt');
    } finally {
      smtp.answer = 'accept';
    }
    await waitFor(() => smtp.to(customer).length === 1, 'the notice');
    await settled(id);
    expect(smtp.to(customer)).toHaveLength(1);
    expect(invitation(smtp.to(customer)[0]!.parsed).method).toBe('REQUEST');
    const lines = await db()
      .selectFrom('lead_activity')
      .select('kind')
      .where('lead_id', '=', id)
      .where('kind', '=', 'visit_notice_sent')
      .execute();
    expect(lines).toHaveLength(1);
  });

  it('the brand can turn notices off; the assignee who planned it themselves is not mailed', async () => {
    const browser = await signedIn(ctx.app, owner.email);
    const page = await browser.get('/dashboard/settings/brand');
    expect(textOf(page.body)).toContain('Email customers when their visit is planned, moved or cancelled');
    expect(page.body).toMatch(/name="visitNotices" value="on"[^>]*checked/);
    const off = await browser.post('/dashboard/settings/brand/visit-notices', { visitNotices: 'off' });
    expect(off.statusCode).toBe(303);
    expect((await browser.get('/dashboard/settings/brand')).body).not.toMatch(
      /name="visitNotices" value="on"[^>]*checked/,
    );

    const customer = 'quiet@example.com';
    const id = (await ctx.createLead({ title: 'Quiet', email: customer })).id as string;
    // The fitter plans their own visit: no mail to them; the brand's notices are off: none to the customer.
    await patchLead(
      ctx.app.deps.database,
      ctx.brandId,
      id,
      { status: 'scheduled', plan: { scheduledFor: dayAhead(10).getTime(), assigneeId: fitter.id } },
      { type: 'user', id: fitter.id, name: 'Fitter' },
    );
    // A visit given to the fitter by someone else in the same brand, as a marker that mail did go out meanwhile.
    const marker = (await ctx.createLead({ title: 'Marker', email: 'marker@example.com' })).id as string;
    await ctx.api.patch(`/v1/leads/${marker}`, {
      status: 'scheduled',
      scheduledFor: dayAhead(11).toISOString(),
      assigneeId: fitter.id,
    });
    await waitFor(() => smtp.received.some((m) => m.parsed.subject?.includes('Marker')), 'the marker mail');
    await settled(id);
    expect(smtp.to(customer)).toHaveLength(0);
    // Nor to the fitter, who did it (the owner's "New lead" mail aside).
    expect(
      smtp.received.filter(
        (m) => m.parsed.subject?.includes('Quiet') && !m.parsed.subject.startsWith('New lead'),
      ),
    ).toHaveLength(0);
    expect(await noticesOf(id)).toHaveLength(0);

    expect(
      (await browser.post('/dashboard/settings/brand/visit-notices', { visitNotices: ['off', 'on'] }))
        .statusCode,
    ).toBe(303);
    expect((await browser.get('/dashboard/settings/brand')).body).toMatch(
      /name="visitNotices" value="on"[^>]*checked/,
    );
  });
});
