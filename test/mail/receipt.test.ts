// The auto-reply receipt: a form with autoReply mails the customer what they sent, over real SMTP (smtp-server on
// 127.0.0.1), sent by the real mail worker. Nothing for forms without it, leads without an email, or spam.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formPoster } from '../api.js';
import { addUser } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext, waitFor } from '../helpers.js';
import { type SmtpReceiver, startSmtp, testMail } from './smtp.js';

const ORIGIN = 'https://www.loodgieter.example';
// The required address fields, for posts that are about something else.
const ADDRESS = { street: 'Prinsengracht', streetNumber: '1', postalCode: '1016 GV', city: 'Amsterdam' };

describe.each(dialects())('the auto-reply receipt on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;
  let replying: string;
  let silent: string;
  const owner = 'owner@loodgieter.example';

  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createTestContext(dialect, {
      mail: testMail(smtp.url()),
      publicUrl: 'https://leads.loodgieter.example',
    });
    await addUser(ctx.app, ctx.brandId, owner, 'owner');
    const newForm = async (fields: Record<string, unknown>) => {
      const res = await ctx.api.post('/v1/forms', { name: 'Website', allowedOrigins: [ORIGIN], ...fields });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    replying = await newForm({ autoReply: true });
    silent = await newForm({ autoReply: false });
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  /** Posts to a form as a browser on ORIGIN; every lead has the same address. */
  const site = formPoster(() => ctx.app, ORIGIN);
  const outbox = (recipient: string) =>
    ctx.app.deps.database.db
      .selectFrom('email_outbox')
      .select(['kind', 'recipient', 'subject', 'status'])
      .where('recipient', '=', recipient)
      .orderBy('created_at')
      .execute();

  it('mails the customer what they sent, escaped, and the office gets its own mail', async () => {
    const email = 'sanne@devries.example';
    const res = await site.form(replying, {
      ...ADDRESS,
      title: 'Leaking tap <b>kitchen</b>',
      description: 'Drips all night.\nSince Monday & worse now.',
      customerName: 'Sanne <i>de Vries</i>',
      email,
      phone: '06 1234 5678',
      street: 'Keizersgracht',
      streetNumber: '12',
      postalCode: '1015 CJ',
      city: 'Amsterdam',
    });
    expect(res.statusCode, res.body).toBe(303);
    await waitFor(() => smtp.to(email)[0], 'the receipt');
    await waitFor(() => smtp.to(owner)[0], 'the office mail');
    const [receipt] = smtp.to(email);
    expect(smtp.to(email)).toHaveLength(1);
    const mail = receipt!.parsed;
    // Nothing the poster typed is in the subject: only the brand's name.
    expect(mail.subject).toBe('Your request to Acme Plumbing has been received');
    expect(mail.text).toContain('Dear Sanne <i>de Vries</i>,');
    expect(mail.text).toContain('Drips all night.\nSince Monday & worse now.');
    expect(mail.text).toContain('Keizersgracht 12, 1015 CJ Amsterdam');
    expect(mail.text).toContain('06 12345678');
    const html = String(mail.html);
    expect(html).toContain('Leaking tap &lt;b&gt;kitchen&lt;/b&gt;');
    expect(html).toContain('Dear Sanne &lt;i&gt;de Vries&lt;/i&gt;,');
    expect(html).not.toContain('<b>kitchen');
    expect(html).not.toContain('<i>de Vries');
    // Nothing from the office side: no dashboard link, no customer or lead ids.
    for (const body of [mail.text ?? '', html]) {
      expect(body).not.toContain('/dashboard');
      expect(body).not.toMatch(/cus_|wrk_|adr_/);
    }
    await waitFor(async () => (await outbox(email))[0]?.status === 'sent', 'the row marked sent');
    expect(await outbox(email)).toEqual([
      { kind: 'receipt', recipient: email, subject: mail.subject, status: 'sent' },
    ]);
  });

  it('repeats only what this customer sent, not what an earlier lead stored for them', async () => {
    const email = 'piet@bakker.example';
    await site.form(replying, {
      ...ADDRESS,
      title: 'First job',
      customerName: 'Piet Bakker',
      email,
      phone: '0687654321',
    });
    await waitFor(() => smtp.to(email)[0], 'first receipt');
    await site.form(replying, { ...ADDRESS, title: 'Second job', customerName: 'P. Bakker', email });
    await waitFor(() => smtp.to(email)[1], 'second receipt');
    const second = smtp.to(email).find((m) => m.parsed.text?.includes('Second job'));
    expect(second, 'second receipt').toBeDefined();
    // The customer record has the name and phone from the first lead; the receipt must not reveal them.
    expect(second!.parsed.text).toContain('Dear P. Bakker,');
    expect(second!.parsed.text).not.toContain('Piet Bakker');
    expect(second!.parsed.text).not.toContain('+31687654321');
    expect(second!.parsed.text).not.toContain('06 87654321');
  });

  it('sends one address at most 3 receipts a day per brand, whatever its case; the leads are all kept', async () => {
    const target = 'stranger@victim.example';
    const receiptsTo = async (address: string) =>
      (
        await ctx.app.deps.database.db
          .selectFrom('email_outbox')
          .select(['recipient', 'subject'])
          .where('kind', '=', 'receipt')
          .where((eb) => eb(eb.fn('lower', ['recipient']), '=', address))
          .execute()
      ).length;
    const leadsBefore = await ctx.app.deps.database.db
      .selectFrom('leads')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow();
    const spelled = [target, 'Stranger@Victim.example', target, 'STRANGER@victim.example', target];
    for (const [i, email] of spelled.entries()) {
      const res = await site.form(replying, {
        ...ADDRESS,
        title: `Your account is locked, log in at https://phish.example/${i}`,
        customerName: 'Support desk',
        email,
      });
      expect(res.statusCode, res.body).toBe(303);
    }
    expect(await receiptsTo(target)).toBe(3);
    const leadsAfter = await ctx.app.deps.database.db
      .selectFrom('leads')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(leadsAfter.n) - Number(leadsBefore.n)).toBe(5);
    // The poster's words are never in a subject.
    const subjects = await ctx.app.deps.database.db
      .selectFrom('email_outbox')
      .select('subject')
      .where('kind', '=', 'receipt')
      .execute();
    expect(subjects.filter((r) => r.subject.includes('phish'))).toEqual([]);
    // Counted in the database, per brand and address: no address is stored in the count, and another brand
    // counts its own.
    const counts = await ctx.app.deps.database.db.selectFrom('receipt_counts').selectAll().execute();
    expect(JSON.stringify(counts)).not.toContain('victim');
    const otherForm = await ctx.api.post(
      '/v1/forms',
      { name: 'Other site', allowedOrigins: [ORIGIN], autoReply: true },
      { key: ctx.keys.other },
    );
    expect(otherForm.statusCode, otherForm.body).toBe(201);
    const other = await site.form(otherForm.json().id, {
      ...ADDRESS,
      title: 'Other brand',
      customerName: 'Support desk',
      email: target,
    });
    expect(other.statusCode, other.body).toBe(303);
    expect(await receiptsTo(target)).toBe(4);
  });

  it('sends no receipt for a form without auto-reply, a lead without email, or spam', async () => {
    const quiet = 'quiet@example.nl';
    const spammer = 'bot@spam.example';
    expect(
      (await site.form(silent, { ...ADDRESS, title: 'No receipt here', customerName: 'Q', email: quiet }))
        .statusCode,
    ).toBe(303);
    expect(
      (await site.form(replying, { ...ADDRESS, title: 'Phone only', customerName: 'R', phone: '0612345000' }))
        .statusCode,
    ).toBe(303);
    expect(
      (
        await site.form(replying, {
          ...ADDRESS,
          title: 'Cheap pills',
          customerName: 'Bot',
          email: spammer,
          _gotcha: 'http://spam.example',
        })
      ).statusCode,
    ).toBe(303);
    // The office mail for the first two leads proves the worker ran past them.
    await waitFor(
      () => smtp.received.filter((m) => m.to.includes(owner)).length >= 5,
      'office mails for the five real leads',
    );
    expect(await outbox(quiet)).toEqual([]);
    expect(await outbox(spammer)).toEqual([]);
    expect(smtp.to(quiet)).toEqual([]);
    expect(smtp.to(spammer)).toEqual([]);
    // Nor the office: no mail of any kind names the spam lead.
    const aboutSpam = await ctx.app.deps.database.db
      .selectFrom('email_outbox')
      .select('id')
      .where('subject', 'like', '%Cheap pills%')
      .execute();
    expect(aboutSpam).toEqual([]);
    expect(smtp.received.filter((m) => m.parsed.subject?.includes('Cheap pills'))).toEqual([]);
    const receipts = await ctx.app.deps.database.db
      .selectFrom('email_outbox')
      .select('recipient')
      .where('kind', '=', 'receipt')
      .where((eb) => eb(eb.fn('lower', ['recipient']), '!=', 'stranger@victim.example'))
      .execute();
    expect(receipts.map((r) => r.recipient).sort()).toEqual([
      'piet@bakker.example',
      'piet@bakker.example',
      'sanne@devries.example',
    ]);
  });
});
