// Settings > Brand (contract "The office's week"): name, country, language, time zone, the mails' sender name and
// the default priority, for admins only. The sender name is checked in a real mail's From (smtp-server), the
// default priority on leads made through the API, a website form and the dashboard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formPoster } from '../api.js';
import { createTestContext, dialects, type TestContext, validLead, waitFor } from '../helpers.js';
import { type SmtpReceiver, startSmtp, testMail } from '../mail/smtp.js';
import { addUser, type Browser, phonedInLead, signedIn, textOf } from './helpers.js';

const PAGE = '/dashboard/settings/brand';
const ORIGIN = 'https://www.acme.example';
const OWNER = 'owner@acme.example';
const ADDRESS = { street: 'Prinsengracht', streetNumber: '1', postalCode: '1016 GV', city: 'Amsterdam' };

describe.each(dialects())('Settings > Brand on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;
  let admin: Browser;

  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createTestContext(dialect, { mail: testMail(smtp.url()) });
    await addUser(ctx.app, ctx.brandId, OWNER, 'owner');
    await addUser(ctx.app, ctx.brandId, 'member@acme.example', 'member');
    admin = await signedIn(ctx.app, OWNER);
    await admin.get(PAGE); // its form token
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  const brandRow = () =>
    ctx.app.deps.database.db
      .selectFrom('brands')
      .selectAll()
      .where('id', '=', ctx.brandId)
      .executeTakeFirstOrThrow();

  it('shows every setting, the country named in the reader’s language', async () => {
    const page = await admin.get(PAGE);
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    for (const label of [
      'Company name',
      'Country',
      'Sender name of mails',
      'Default priority',
      'Time zone',
      'Language',
      'Keeping personal data',
    ]) {
      expect(text).toContain(label);
    }
    expect(page.body).toContain('value="Acme Plumbing"');
    expect(page.body).toContain('<option value="NL" selected>Netherlands</option>');
    expect(page.body).toContain('<option value="medium" selected>Medium</option>');
  });

  it('saves each field, and the dashboard uses them at once', async () => {
    const saved = await admin.post(PAGE, {
      name: '  Jansen Installaties ',
      country: 'be',
      mailSenderName: 'Jansen, Loodgieters & Co',
      defaultPriority: 'high',
    });
    expect(saved.statusCode, saved.body).toBe(303);
    expect(saved.headers.location).toBe(`${PAGE}?done=saved`);
    expect((await admin.post(PAGE, { timeZone: 'Europe/Brussels' })).statusCode).toBe(303);
    expect((await admin.post(PAGE, { language: 'nl' })).statusCode).toBe(303);
    expect(await brandRow()).toMatchObject({
      name: 'Jansen Installaties',
      default_country: 'BE',
      mail_sender_name: 'Jansen, Loodgieters & Co',
      default_priority: 'high',
      time_zone: 'Europe/Brussels',
      language: 'nl',
    });
    const page = await admin.get(`${PAGE}?done=saved`);
    expect(textOf(page.body)).toContain('The brand settings are saved.');
    expect(page.body).toContain('<option value="BE" selected>Belgium</option>');
    expect(page.body).toContain('<option value="high" selected>High</option>');
    expect(page.body).toContain('<option value="Europe/Brussels" selected>');
    expect(page.body).toContain('value="Jansen, Loodgieters &amp; Co"');
    // The header names the brand by its new name.
    expect(textOf(page.body)).toContain('Jansen Installaties');

    // Back as they were, for the tests below.
    const back = await admin.post(PAGE, {
      name: 'Acme Plumbing',
      country: 'NL',
      mailSenderName: '',
      defaultPriority: 'medium',
    });
    expect(back.statusCode).toBe(303);
    await admin.post(PAGE, { timeZone: 'Europe/Amsterdam', language: 'en' });
    expect(await brandRow()).toMatchObject({ name: 'Acme Plumbing', mail_sender_name: null });
  });

  it('refuses wrong values with a message per field and stores nothing of that post', async () => {
    const before = await brandRow();
    const cases: [Record<string, string>, string][] = [
      [{ name: '   ', defaultPriority: 'high' }, 'Company name is required.'],
      [{ name: 'x'.repeat(201) }, 'Company name must be at most 200 characters.'],
      [{ country: 'XX', name: 'Renamed' }, 'Country must be an ISO 3166-1 alpha-2 country code'],
      [{ mailSenderName: 'y'.repeat(101) }, 'Sender name of mails must be at most 100 characters.'],
      [{ mailSenderName: 'Evil\r\nBcc: x@example.com' }, 'Sender name of mails must not contain control'],
      [
        { defaultPriority: 'asap', country: 'DE' },
        'Default priority must be one of low, medium, high, urgent.',
      ],
      [{ timeZone: 'Mars/Olympus', mailSenderName: 'Fine' }, 'Time zone must be an IANA time zone name'],
      [{ language: 'fr' }, 'Language'],
    ];
    for (const [fields, message] of cases) {
      const res = await admin.post(PAGE, fields);
      expect(res.statusCode, JSON.stringify(fields)).toBe(422);
      expect(textOf(res.body)).toContain('There is a problem');
      expect(textOf(res.body)).toContain(message);
      expect(res.body).toContain('aria-invalid="true"');
    }
    expect(await brandRow()).toEqual(before);
  });

  it('is for admins only: a member gets the admin-only page and changes nothing', async () => {
    const member = await signedIn(ctx.app, 'member@acme.example');
    const page = await member.get(PAGE);
    expect(page.statusCode).toBe(403);
    expect(page.body).not.toContain('name="mailSenderName"');
    const before = await brandRow();
    const post = await member.post(PAGE, { name: 'Taken over' });
    expect(post.statusCode).toBe(403);
    const nav = await member.get('/dashboard/leads');
    expect(nav.body).not.toContain(`href="${PAGE}"`);
    // Without the form's token the admin's post is refused too.
    const forged = await admin.post(PAGE, { name: 'Forged', _csrf: undefined });
    expect(forged.statusCode).toBe(403);
    expect(await brandRow()).toEqual(before);
  });

  it('puts the sender name in the From of the brand’s mails, else the brand’s name', async () => {
    const newLeadMail = async (title: string) => {
      await ctx.createLead({ title });
      const mail = await waitFor(
        () => smtp.to(OWNER).find((m) => m.parsed.subject?.includes(title)),
        `the new-lead mail about ${title}`,
      );
      return mail.parsed.from?.value;
    };
    expect(await newLeadMail('Dripping tap one')).toEqual([
      { name: 'Acme Plumbing', address: 'leads@acme.example' },
    ]);
    expect((await admin.post(PAGE, { mailSenderName: 'Jansen "Loodgieters", Amsterdam' })).statusCode).toBe(
      303,
    );
    expect(await newLeadMail('Dripping tap two')).toEqual([
      { name: 'Jansen "Loodgieters", Amsterdam', address: 'leads@acme.example' },
    ]);
    // The users page says where mails come from.
    expect(textOf((await admin.get('/dashboard/settings/users')).body)).toContain(
      'Mails come from Jansen "Loodgieters", Amsterdam <leads@acme.example>',
    );
    await admin.post(PAGE, { mailSenderName: '' });
  });

  it('gives new leads without a priority the default one: API, website form and dashboard', async () => {
    expect((await admin.post(PAGE, { defaultPriority: 'urgent' })).statusCode).toBe(303);
    const priorityOf = async (id: string) => (await ctx.api.get(`/v1/leads/${id}`)).json().priority as string;

    const api = await ctx.api.post('/v1/leads', validLead({ title: 'No priority given' }));
    expect(api.statusCode, api.body).toBe(201);
    expect(api.json().priority).toBe('urgent');
    expect(await priorityOf(api.json().id)).toBe('urgent');
    const chosen = await ctx.api.post('/v1/leads', validLead({ title: 'Low given', priority: 'low' }));
    expect(chosen.json().priority).toBe('low');

    const form = await ctx.api.post('/v1/forms', { name: 'Website', allowedOrigins: [ORIGIN] });
    const site = formPoster(() => ctx.app, ORIGIN);
    const posted = await site.form(form.json().id, {
      ...ADDRESS,
      title: 'Form lead',
      customerName: 'Sanne de Vries',
      email: 'sanne@devries.example',
    });
    expect(posted.statusCode, posted.body).toBe(303);
    const list = await ctx.api.get('/v1/leads?q=Form%20lead');
    expect(list.json().data[0].priority).toBe('urgent');
    // A form's own default still wins over the brand's.
    const own = await ctx.api.post('/v1/forms', {
      name: 'Urgent line',
      allowedOrigins: [ORIGIN],
      defaults: { priority: 'low' },
    });
    await site.form(own.json().id, {
      ...ADDRESS,
      title: 'Own default',
      customerName: 'Piet',
      email: 'p@x.example',
    });
    expect((await ctx.api.get('/v1/leads?q=Own%20default')).json().data[0].priority).toBe('low');

    // The dashboard's new-lead form starts at the brand's default.
    const page = await admin.get('/dashboard/leads/new');
    expect(page.body).toMatch(/<option value="urgent" selected>/);
    const { priority: _q, ...typed } = phonedInLead({ title: 'Typed without priority' });
    const typedRes = await admin.post('/dashboard/leads/new', typed);
    expect(typedRes.statusCode, textOf(typedRes.body)).toBe(303);
    const typedId = String(typedRes.headers.location).split('/').pop()!.split('?')[0]!;
    expect(await priorityOf(typedId)).toBe('urgent');
    await admin.post(PAGE, { defaultPriority: 'medium' });
  });
});
