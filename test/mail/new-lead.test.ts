// "New lead" mails end to end: the real mail worker sending over SMTP to a real SMTP server on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { addUser } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext, validLead, waitFor } from '../helpers.js';
import { useTestContext } from '../test-context.js';
import { type SmtpReceiver, startSmtp, testMail } from './smtp.js';

const PUBLIC_URL = 'https://leads.acme.example';

describe.each(dialects())('new-lead emails on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;
  const owner = 'owner@acme.example';
  const coOwner = 'co-owner@acme.example';
  const member = 'member@acme.example';
  const quietOwner = 'quiet-owner@acme.example';
  const otherOwner = 'owner@other.example';

  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createTestContext(dialect, { mail: testMail(smtp.url()), publicUrl: PUBLIC_URL });
    await addUser(ctx.app, ctx.brandId, owner, 'owner');
    await addUser(ctx.app, ctx.brandId, coOwner, 'owner');
    await addUser(ctx.app, ctx.brandId, member, 'member');
    const quiet = await addUser(ctx.app, ctx.brandId, quietOwner, 'owner');
    await ctx.app.deps.database.db
      .updateTable('users')
      .set({ new_lead_mail: 'none' })
      .where('id', '=', quiet.id)
      .execute();
    await addUser(ctx.app, ctx.otherBrandId, otherOwner, 'owner');
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  const db = () => ctx.app.deps.database.db;
  const outboxOf = (subject: string) =>
    db().selectFrom('email_outbox').selectAll().where('subject', '=', subject).orderBy('recipient').execute();
  const mailsAbout = (subject: string) => smtp.received.filter((m) => m.parsed.subject === subject);

  it('mails each user of the brand who has it on: title, customer, phone, email, address, priority, link', async () => {
    const lead = await ctx.createLead({
      title: 'Boiler <script>alert("x")</script> & leak',
      customerName: 'Jan <b>Jansen</b>',
      companyName: 'Jansen & Zn',
      phone: '+31 6 1234 5678',
      email: 'jan@jansen.example',
      street: 'Keizersgracht',
      streetNumber: '123',
      streetNumberAddition: 'A',
      postalCode: '1015 CJ',
      city: 'Amsterdam',
      priority: 'urgent',
    });
    const subject = 'New lead: Boiler <script>alert("x")</script> & leak';
    await waitFor(() => mailsAbout(subject).length >= 2, 'two mails');
    // Give a wrong third mail the chance to arrive before counting.
    await waitFor(async () => (await outboxOf(subject)).every((r) => r.status === 'sent'), 'sent rows');
    const mails = mailsAbout(subject);
    expect(mails.map((m) => m.to).sort()).toEqual([[coOwner], [owner]]);
    expect(smtp.to(member).length + smtp.to(quietOwner).length + smtp.to(otherOwner).length).toBe(0);

    const [mail] = smtp.to(owner);
    const { parsed } = mail!;
    expect(parsed.from?.value).toEqual([{ name: 'Acme Plumbing', address: 'leads@acme.example' }]);
    expect(mail!.user).toBe('mailer');
    const link = `${PUBLIC_URL}/dashboard/leads/${lead.id}`;
    const text = parsed.text ?? '';
    for (const expected of [
      'New lead for Acme Plumbing',
      'Boiler <script>alert("x")</script> & leak',
      'Jan <b>Jansen</b> (Jansen & Zn)',
      '06 12345678',
      'jan@jansen.example',
      'Keizersgracht 123 A, 1015 CJ Amsterdam',
      'Urgent',
      link,
    ]) {
      expect(text).toContain(expected);
    }
    const html = String(parsed.html);
    expect(html).toContain('Boiler &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; leak');
    expect(html).toContain('Jan &lt;b&gt;Jansen&lt;/b&gt; (Jansen &amp; Zn)');
    expect(html).toContain('Keizersgracht 123 A, 1015 CJ Amsterdam');
    expect(html).toContain(`href="${link}"`);
    expect(html).not.toMatch(/<script|<b>|<img/i);
    // No key, secret or other brand's anything.
    for (const key of Object.values(ctx.keys)) {
      expect(text).not.toContain(key);
      expect(html).not.toContain(key);
    }
    expect(`${text}${html}`).not.toContain('lik_');

    const rows = await outboxOf(subject);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ brand_id: ctx.brandId, kind: 'new_lead', status: 'sent', attempt: 1 });
      expect(row.id).toMatch(/^eml_[0-9a-z]{26}$/);
      expect(row.sent_at).toBeGreaterThanOrEqual(row.created_at);
      expect(row.last_error).toBeNull();
    }
  });

  it("mails another brand's users only, and queues nothing where nobody has it on", async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/leads',
      headers: { 'x-api-key': ctx.keys.other, 'content-type': 'application/json' },
      payload: validLead({ title: 'For the other brand' }),
    });
    expect(res.statusCode).toBe(201);
    // The other brand's owner has it on: one mail, to them only.
    await waitFor(() => smtp.to(otherOwner).length === 1, 'the other brand owner mail');
    await db().updateTable('users').set({ new_lead_mail: 'none' }).where('email', '=', otherOwner).execute();
    const again = await ctx.app.inject({
      method: 'POST',
      url: '/v1/leads',
      headers: { 'x-api-key': ctx.keys.other, 'content-type': 'application/json' },
      payload: validLead({ title: 'Nobody listens' }),
    });
    expect(again.statusCode).toBe(201);
    expect(await outboxOf('New lead: Nobody listens')).toEqual([]);
  });

  it('retries while the mail server is not listening, and delivers once it is', async () => {
    await smtp.stop();
    try {
      await ctx.createLead({ title: 'Server down' });
      const subject = 'New lead: Server down';
      const failing = await waitFor(async () => {
        const rows = await outboxOf(subject);
        return rows.length === 2 && rows.every((r) => r.attempt >= 2) && rows;
      }, 'two failed attempts each');
      for (const row of failing) {
        expect(row.status).toBe('pending');
        expect(row.last_error).toMatch(/ECONNREFUSED|ECONNECTION|ESOCKET/);
      }
    } finally {
      await smtp.listen();
    }
    await waitFor(
      async () => (await outboxOf('New lead: Server down')).every((r) => r.status === 'sent'),
      'sent',
    );
    expect(
      mailsAbout('New lead: Server down')
        .map((m) => m.to[0])
        .sort(),
    ).toEqual([coOwner, owner]);
  });

  it('retries a temporary refusal (451), and delivers once the server accepts', async () => {
    const refusedBefore = smtp.refusals;
    smtp.answer = 'try-later';
    const subject = 'New lead: Try later';
    try {
      await ctx.createLead({ title: 'Try later' });
      await waitFor(() => smtp.refusals - refusedBefore >= 4, 'four refusals');
      const rows = await outboxOf(subject);
      expect(rows.every((r) => r.status === 'pending')).toBe(true);
      await waitFor(async () => (await outboxOf(subject)).every((r) => r.last_error?.includes('451')), '451');
    } finally {
      smtp.answer = 'accept';
    }
    await waitFor(async () => (await outboxOf(subject)).every((r) => r.status === 'sent'), 'sent');
    expect(
      mailsAbout(subject)
        .map((m) => m.to[0])
        .sort(),
    ).toEqual([coOwner, owner]);
    for (const row of await outboxOf(subject)) {
      expect(row.attempt).toBeGreaterThanOrEqual(3);
      expect(row.last_error).toBeNull();
    }
  });

  it('gives up at once on a permanent refusal (550), and says why', async () => {
    smtp.answer = 'refuse';
    const subject = 'New lead: Refused';
    try {
      await ctx.createLead({ title: 'Refused' });
      const rows = await waitFor(async () => {
        const found = await outboxOf(subject);
        return found.length === 2 && found.every((r) => r.status === 'failed') && found;
      }, 'failed rows');
      for (const row of rows) {
        expect(row.attempt).toBe(1);
        expect(row.last_error).toMatch(/550/);
        expect(row.sent_at).toBeNull();
      }
    } finally {
      smtp.answer = 'accept';
    }
    expect(mailsAbout(subject)).toEqual([]);
  });

  it('two instances on one database send each mail exactly once', async () => {
    const second: App = await buildApp(ctx.app.deps.config, {
      database: ctx.app.deps.database,
      migrate: false,
      logger: false,
      defaultMetrics: false,
    });
    await second.ready();
    try {
      expect(second.mailWorker).not.toBeNull();
      const titles = Array.from({ length: 16 }, (_, i) => `Race ${i}`);
      const posts = titles.map((title, i) =>
        (i % 2 ? second : ctx.app).inject({
          method: 'POST',
          url: '/v1/leads',
          headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
          payload: JSON.stringify(validLead({ title })),
        }),
      );
      expect((await Promise.all(posts)).map((r) => r.statusCode)).toEqual(posts.map(() => 201));
      const subjects = titles.map((t) => `New lead: ${t}`);
      await waitFor(async () => {
        const rows = await db()
          .selectFrom('email_outbox')
          .select('status')
          .where('subject', 'in', subjects)
          .execute();
        return rows.length === 32 && rows.every((r) => r.status === 'sent');
      }, 'all 32 mails sent');
      const got = smtp.received
        .filter((m) => subjects.includes(m.parsed.subject ?? ''))
        .map((m) => `${m.to.join()} ${m.parsed.subject}`);
      expect(got).toHaveLength(32);
      expect(new Set(got).size).toBe(32);
      const attempts = await db()
        .selectFrom('email_outbox')
        .select('attempt')
        .where('subject', 'in', subjects)
        .execute();
      expect(attempts.every((r) => r.attempt === 1)).toBe(true);
    } finally {
      await second.close();
    }
  });
});

describe.each(dialects())('email off on %s', (dialect) => {
  const ctx = useTestContext(dialect);
  beforeAll(async () => {
    await addUser(ctx.app, ctx.brandId, 'owner@acme.example', 'owner');
  });

  it('queues nothing and runs no mail worker without SMTP_URL and MAIL_FROM', async () => {
    expect(ctx.app.deps.config.mail).toBeNull();
    expect(ctx.app.deps.database.mail).toBeNull();
    expect(ctx.app.mailWorker).toBeNull();
    await ctx.createLead({ title: 'Nobody is mailed' });
    const rows = await ctx.app.deps.database.db.selectFrom('email_outbox').selectAll().execute();
    expect(rows).toEqual([]);
  });
});
