// What the new-lead mail carries since issue 30, through the real mail worker to a real SMTP server: the description
// of the problem, the names of the files that came with it, Reply-To the customer's email when they gave one, and
// never a mail to the user who typed the lead in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png } from '../attachments/files.js';
import { addUser, type Browser, phonedInLead, signedIn } from '../dashboard/helpers.js';
import { createTestContext, dialects, formRateLimit, type TestContext, waitFor } from '../helpers.js';
import { multipart, type Part } from '../multipart.js';
import { type SmtpReceiver, startSmtp, testMail } from './smtp.js';

const PUBLIC_URL = 'https://leads.acme.example';
const SITE = 'https://www.example.nl';

describe.each(dialects())('the new-lead mail on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;
  let office: Browser;
  const owner = 'owner@acme.example';
  const typist = 'typist@acme.example';
  const dutch = 'nl-owner@acme.example';

  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createTestContext(dialect, {
      mail: testMail(smtp.url()),
      publicUrl: PUBLIC_URL,
      rateLimit: formRateLimit(),
    });
    await addUser(ctx.app, ctx.brandId, owner, 'owner');
    await addUser(ctx.app, ctx.brandId, typist, 'owner');
    const nl = await addUser(ctx.app, ctx.brandId, dutch, 'owner');
    await ctx.app.deps.database.db
      .updateTable('users')
      .set({ language: 'nl' })
      .where('id', '=', nl.id)
      .execute();
    office = await signedIn(ctx.app, typist);
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  const sentAbout = async (subject: string, count: number) => {
    await waitFor(async () => {
      const rows = await ctx.app.deps.database.db
        .selectFrom('email_outbox')
        .select('status')
        .where('kind', '=', 'new_lead')
        .where('subject', 'in', [subject, subject.replace('New lead', 'Nieuwe aanvraag')])
        .execute();
      return rows.length === count && rows.every((r) => r.status === 'sent');
    }, `${count} mails sent`);
    return smtp.received.filter(
      (m) =>
        m.parsed.subject === subject || m.parsed.subject === subject.replace('New lead', 'Nieuwe aanvraag'),
    );
  };

  it('shows the description and the files, with Reply-To the customer (a form post with a photo)', async () => {
    const made = await ctx.api.post('/v1/forms', { name: 'Website', allowedOrigins: [SITE] });
    expect(made.statusCode, made.body).toBe(201);
    const description = 'Water drips from the ceiling\nnear the <b>bathroom</b> lamp';
    const fields: Record<string, string> = {
      customerName: 'Kees Klant',
      email: 'kees@klant.example',
      street: 'Damrak',
      streetNumber: '1',
      postalCode: '1012 LG',
      city: 'Amsterdam',
      title: 'Leaking ceiling',
      description,
    };
    const parts: Part[] = [
      ...Object.entries(fields).map(([field, data]) => ({ field, data })),
      { field: 'photo', filename: 'ceiling stain.png', type: 'image/png', data: await png(16, 16) },
    ];
    const body = multipart(parts);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/f/${made.json().id}`,
      headers: { ...body.headers, origin: SITE },
      payload: body.payload,
    });
    expect(res.statusCode, res.body).toBe(303);

    const mails = await sentAbout('New lead: Leaking ceiling', 3);
    expect(mails.flatMap((m) => m.to).sort()).toEqual([dutch, owner, typist]);
    for (const { parsed } of mails) {
      expect(parsed.replyTo?.value).toEqual([{ address: 'kees@klant.example', name: '' }]);
      expect(parsed.from?.value).toEqual([{ name: 'Acme Plumbing', address: 'leads@acme.example' }]);
    }
    const english = smtp.to(owner).find((m) => m.parsed.subject === 'New lead: Leaking ceiling')!.parsed;
    expect(english.text).toContain(
      'Leaking ceiling\n\nWater drips from the ceiling\nnear the <b>bathroom</b> lamp\n',
    );
    expect(english.text).toMatch(/Photos and files: *ceiling stain\.png/);
    expect(english.text).toContain(`${PUBLIC_URL}/dashboard/settings/account#new-lead-mail`);
    expect(String(english.html)).toContain(
      '<p style="margin:0 0 16px;white-space:pre-line">Water drips from the ceiling\nnear the &lt;b&gt;bathroom&lt;/b&gt; lamp</p>',
    );
    expect(String(english.html)).toContain('ceiling stain.png');
    const nl = smtp.to(dutch).find((m) => m.parsed.subject === 'Nieuwe aanvraag: Leaking ceiling')!.parsed;
    expect(nl.text).toContain('Water drips from the ceiling');
    expect(nl.text).toMatch(/Foto's en bestanden: *ceiling stain\.png/);
    expect(nl.text).toContain(
      'Je krijgt deze mail omdat je hebt gekozen voor een mail bij elke nieuwe aanvraag.',
    );
  });

  it('has no Reply-To when the customer gave no email (replies go to the sender)', async () => {
    await ctx.createLead({ title: 'No email given', email: undefined, phone: '+31612345678' });
    const mails = await sentAbout('New lead: No email given', 3);
    for (const { parsed } of mails) {
      expect(parsed.replyTo).toBeUndefined();
      expect(parsed.headers.has('reply-to')).toBe(false);
    }
    const rows = await ctx.app.deps.database.db
      .selectFrom('email_outbox')
      .select('reply_to')
      .where('subject', '=', 'New lead: No email given')
      .execute();
    expect(rows.map((r) => r.reply_to)).toEqual([null, null]);
  });

  it('never mails the user who typed the lead in; the others get it, with Reply-To when an email was typed', async () => {
    await office.get('/dashboard/leads/new');
    const res = await office.post(
      '/dashboard/leads/new',
      phonedInLead({
        title: 'Typed in by the office',
        email: 'caller@example.com',
        description: 'Called at 9',
      }),
    );
    expect(res.statusCode, res.body).toBe(303);
    const mails = await sentAbout('New lead: Typed in by the office', 2);
    expect(mails.flatMap((m) => m.to).sort()).toEqual([dutch, owner]);
    expect(smtp.to(typist).filter((m) => m.parsed.subject?.includes('Typed in by the office'))).toEqual([]);
    for (const { parsed } of mails) {
      expect(parsed.replyTo?.value).toEqual([{ address: 'caller@example.com', name: '' }]);
      expect(parsed.text).toContain('Called at 9');
    }
    // A lead another user typed still reaches the typist.
    const other = await signedIn(ctx.app, owner);
    await other.get('/dashboard/leads/new');
    expect(
      (await other.post('/dashboard/leads/new', phonedInLead({ title: 'Typed by the owner' }))).statusCode,
    ).toBe(303);
    const second = await sentAbout('New lead: Typed by the owner', 2);
    expect(second.flatMap((m) => m.to).sort()).toEqual([dutch, typist]);
  });
});
