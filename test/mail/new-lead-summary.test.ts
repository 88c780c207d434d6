// The daily new-lead summary, through the real mail worker to a real SMTP server, on a fixed clock: at 08:00 in the
// brand's time zone (Europe/Amsterdam) on both sides of a daylight-saving change (clocks back on 25 October 2026,
// forward on 28 March 2027), one mail per user who chose it, listing the leads since the previous 08:00 (a window of
// 25 and of 23 hours); none before 08:00, none twice (two instances), none when there were no leads; spam, erased
// leads and the leads a user typed in themselves left out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { renderNewLeadSummary } from '../../src/leads/new-lead-summary.js';
import { addUser } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext, waitFor } from '../helpers.js';
import { type ReceivedMail, type SmtpReceiver, startSmtp, testMail } from './smtp.js';

const PUBLIC_URL = 'https://leads.acme.example';
const at = (iso: string) => Date.parse(iso);

describe.each(dialects())('the daily new-lead summary on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;
  let second: App;
  // The app's clock: the tests move it.
  let now = at('2026-10-20T12:00:00Z');
  const clock = () => now;
  const daily = 'daily@acme.example';
  const dagelijks = 'dagelijks@acme.example';
  const everyOwner = 'every@acme.example';
  const quietDaily = 'daily@other.example';
  const ids = { daily: '', dagelijks: '', every: '', quiet: '' };

  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createTestContext(dialect, { mail: testMail(smtp.url()), publicUrl: PUBLIC_URL }, { clock });
    const db = ctx.app.deps.database.db;
    ids.daily = (await addUser(ctx.app, ctx.brandId, daily, 'owner')).id;
    ids.dagelijks = (await addUser(ctx.app, ctx.brandId, dagelijks, 'member')).id;
    ids.every = (await addUser(ctx.app, ctx.brandId, everyOwner, 'owner')).id;
    ids.quiet = (await addUser(ctx.app, ctx.otherBrandId, quietDaily, 'owner')).id;
    await db.updateTable('users').set({ language: 'nl' }).where('id', '=', ids.dagelijks).execute();
    // They chose the summary after 08:00 on 24 October: the first one due is that of the 25th.
    await db
      .updateTable('users')
      .set({ new_lead_mail: 'daily', new_lead_mail_at: at('2026-10-24T10:00:00Z') })
      .where('id', 'in', [ids.daily, ids.dagelijks, ids.quiet])
      .execute();
    second = await buildApp(ctx.app.deps.config, {
      database: ctx.app.deps.database,
      migrate: false,
      logger: false,
      defaultMetrics: false,
      clock,
    });
    await second.ready();
  });
  afterAll(async () => {
    await second?.close();
    await ctx?.close();
    await smtp?.close();
  });

  const db = () => ctx.app.deps.database.db;
  /** A lead received at `iso` (API leads are stamped with the real time: moved onto the test's clock). */
  const leadAt = async (title: string, iso: string, fields: Record<string, unknown> = {}) => {
    const id = String((await ctx.createLead({ title, description: `About ${title}`, ...fields })).id);
    await db()
      .updateTable('leads')
      .set({ received_at: at(iso) })
      .where('id', '=', id)
      .execute();
    return id;
  };
  const summaries = () =>
    smtp.received.filter((m) => m.parsed.subject?.match(/new leads? for|nieuwe aanvra/));
  const summaryTo = (address: string) => summaries().filter((m) => m.to.includes(address));
  /** Both instances look for due summaries at once; waits until what they queued is sent. */
  const runBoth = async () => {
    const queued = await Promise.all([ctx.app.newLeadSummaries!.run(), second.newLeadSummaries!.run()]);
    await waitFor(async () => {
      const rows = await db()
        .selectFrom('email_outbox')
        .select('status')
        .where('kind', '=', 'new_lead_summary')
        .execute();
      return rows.every((r) => r.status === 'sent');
    }, 'the summaries to be sent');
    return queued[0] + queued[1];
  };
  const text = (mail: ReceivedMail | undefined) => mail?.parsed.text ?? '';

  it('at 08:00 after clocks went back (25 October 2026): the 25 hours since 08:00 the day before', async () => {
    expect(ctx.app.newLeadSummaries).not.toBeNull();
    // 08:00 CEST on the 24th is 06:00Z; 08:00 CET on the 25th is 07:00Z.
    await leadAt('Before the window', '2026-10-24T05:59:59Z');
    const first = await leadAt('First in the window', '2026-10-24T06:00:00Z');
    await leadAt('In the extra hour', '2026-10-25T01:30:00Z');
    await leadAt('Last in the window', '2026-10-25T06:59:59Z');
    await leadAt('After the window', '2026-10-25T07:00:00Z');
    const spam = await leadAt('Spam in the window', '2026-10-24T12:00:00Z');
    await db().updateTable('leads').set({ spam: 1 }).where('id', '=', spam).execute();
    const typed = await leadAt('Typed in by daily', '2026-10-24T13:00:00Z');
    await db().updateTable('leads').set({ source_user_id: ids.daily }).where('id', '=', typed).execute();
    const erased = await leadAt('Erased in the window', '2026-10-24T14:00:00Z');
    await db()
      .updateTable('leads')
      .set({ erased_at: at('2026-10-24T15:00:00Z') })
      .where('id', '=', erased)
      .execute();

    // 07:59 CET, and 08:00 CEST (what a fixed summer offset would take for 08:00): not yet.
    for (const iso of ['2026-10-25T06:00:00Z', '2026-10-25T06:59:59Z']) {
      now = at(iso);
      expect(await runBoth()).toBe(0);
    }
    expect(summaries()).toEqual([]);
    expect(await db().selectFrom('new_lead_summaries').selectAll().execute()).toEqual([]);

    now = at('2026-10-25T07:00:00Z');
    // (The instances' own minute timers may queue them first: counted by what arrives.)
    await runBoth();
    await waitFor(() => summaries().length === 2, 'two summaries');
    const [mail] = summaryTo(daily);
    expect(mail?.parsed.subject).toBe('3 new leads for Acme Plumbing since Sat, 24 Oct 2026, 08:00');
    const body = text(mail);
    expect(body).toContain('3 new leads from Sat, 24 Oct 2026, 08:00 to Sun, 25 Oct 2026, 08:00');
    expect(body).toMatch(/1\. First in the window\n\nAbout First in the window\n/);
    expect(body).toContain('2. In the extra hour');
    expect(body).toContain('3. Last in the window');
    expect(body).toContain(`${PUBLIC_URL}/dashboard/leads/${first}`);
    expect(body).toContain(`${PUBLIC_URL}/dashboard/settings/account#new-lead-mail`);
    for (const left of [
      'Before the window',
      'After the window',
      'Spam in',
      'Typed in by daily',
      'Erased in',
    ]) {
      expect(body).not.toContain(left);
    }
    expect(String(mail?.parsed.html)).toContain('About First in the window');
    expect(mail?.parsed.from?.value).toEqual([{ name: 'Acme Plumbing', address: 'leads@acme.example' }]);

    // In Dutch for the Dutch member, who also sees the lead the other user typed in.
    const [nl] = summaryTo(dagelijks);
    expect(nl?.parsed.subject).toMatch(/^4 nieuwe aanvragen voor Acme Plumbing sinds za 24 okt 2026/);
    expect(text(nl)).toContain('Typed in by daily');
    expect(text(nl)).toContain('Je krijgt dit overzicht omdat je hebt gekozen voor een dagelijks overzicht');

    // Not the user who gets every lead.
    expect(summaryTo(everyOwner)).toEqual([]);
    const claimed = await db()
      .selectFrom('new_lead_summaries')
      .select(['user_id', 'day', 'window_start', 'window_end'])
      .orderBy('user_id')
      .execute();
    expect(claimed.map((r) => r.user_id).sort()).toEqual([ids.dagelijks, ids.daily].sort());
    for (const row of claimed) {
      expect(row.day).toBe('2026-10-25');
      expect(Number(row.window_end) - Number(row.window_start)).toBe(25 * 60 * 60 * 1000);
    }

    // Later that day, and on both instances again: never a second one. The other brand's day (UTC) has come too:
    // no leads there, so no mail, and the day is done.
    now = at('2026-10-25T16:00:00Z');
    expect(await runBoth()).toBe(0);
    expect(summaries()).toHaveLength(2);
    expect(summaryTo(quietDaily)).toEqual([]);
    const quiet = await db()
      .selectFrom('new_lead_summaries')
      .select(['day', 'window_start', 'window_end'])
      .where('user_id', '=', ids.quiet)
      .execute();
    expect(quiet.map((r) => [r.day, Number(r.window_start), Number(r.window_end)])).toEqual([
      ['2026-10-25', at('2026-10-24T08:00:00Z'), at('2026-10-25T08:00:00Z')],
    ]);
  });

  it('at 08:00 after clocks went forward (28 March 2027): the 23 hours since 08:00 the day before', async () => {
    await db()
      .updateTable('users')
      .set({ new_lead_mail_at: at('2027-03-27T12:00:00Z') })
      .where('new_lead_mail', '=', 'daily')
      .execute();
    // 08:00 CET on the 27th is 07:00Z; 08:00 CEST on the 28th is 06:00Z.
    await leadAt('Spring before', '2027-03-27T06:59:59Z');
    await leadAt('Spring first', '2027-03-27T07:00:00Z');
    await leadAt('Spring last', '2027-03-28T05:59:59Z');
    await leadAt('Spring after', '2027-03-28T06:00:00Z');
    const before = summaries().length;

    now = at('2027-03-28T05:59:59Z');
    expect(await runBoth()).toBe(0);
    expect(summaries()).toHaveLength(before);

    now = at('2027-03-28T06:00:00Z');
    await runBoth();
    await waitFor(() => summaries().length === before + 2, 'two more summaries');
    const mail = summaryTo(daily).at(-1);
    expect(mail?.parsed.subject).toBe('2 new leads for Acme Plumbing since Sat, 27 Mar 2027, 08:00');
    expect(text(mail)).toContain('from Sat, 27 Mar 2027, 08:00 to Sun, 28 Mar 2027, 08:00');
    expect(text(mail)).toContain('1. Spring first');
    expect(text(mail)).toContain('2. Spring last');
    expect(text(mail)).not.toContain('Spring before');
    expect(text(mail)).not.toContain('Spring after');
    const row = await db()
      .selectFrom('new_lead_summaries')
      .select(['id', 'window_start', 'window_end'])
      .where('user_id', '=', ids.daily)
      .where('day', '=', '2027-03-28')
      .executeTakeFirstOrThrow();
    expect(Number(row.window_end) - Number(row.window_start)).toBe(23 * 60 * 60 * 1000);

    // Written when sent: a lead erased or marked spam since is left out, and with none left nothing is sent.
    await db()
      .updateTable('leads')
      .set({ spam: 1 })
      .where('title', 'in', ['Spring first', 'Spring last'])
      .execute();
    expect(await ctx.app.deps.database.write((tx) => renderNewLeadSummary(tx, row.id))).toBeNull();
  });

  it('sends nothing to a user who no longer wants it, nor when they choose it after 08:00', async () => {
    await db().updateTable('users').set({ new_lead_mail: 'none' }).where('id', '=', ids.dagelijks).execute();
    await db()
      .updateTable('users')
      .set({ new_lead_mail_at: at('2027-03-29T09:00:00Z') })
      .where('id', '=', ids.daily)
      .execute();
    await leadAt('Monday lead', '2027-03-29T10:00:00Z');
    const before = summaries().length;
    now = at('2027-03-29T10:00:00Z');
    expect(await runBoth()).toBe(0);
    expect(summaries()).toHaveLength(before);
    // The next morning it comes.
    now = at('2027-03-30T06:00:00Z');
    await runBoth();
    await waitFor(() => summaries().length === before + 1, 'the next morning');
    expect(summaryTo(daily).at(-1)?.parsed.subject).toBe(
      '1 new lead for Acme Plumbing since Mon, 29 Mar 2027, 08:00',
    );
  });

  it('is queued by an instance as it starts (and each minute after), without anyone asking', async () => {
    await leadAt('Tuesday lead', '2027-03-30T10:00:00Z');
    const before = summaryTo(daily).length;
    now = at('2027-03-31T06:30:00Z');
    const third = await buildApp(ctx.app.deps.config, {
      database: ctx.app.deps.database,
      migrate: false,
      logger: false,
      defaultMetrics: false,
      clock,
    });
    try {
      await third.ready();
      await waitFor(() => summaryTo(daily).length === before + 1, 'the summary queued on start');
      expect(text(summaryTo(daily).at(-1))).toContain('1. Tuesday lead');
    } finally {
      await third.close();
    }
  });
});
