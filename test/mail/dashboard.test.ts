// The new-lead email each person chooses on Settings > Your account (every lead, a daily summary, none), for
// themselves only (a CSRF-checked form post, then a redirect); Settings > Users shows everyone's choice and whether
// email is on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, type Browser, signedIn, textOf } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext, waitFor } from '../helpers.js';
import { useTestContext } from '../test-context.js';
import { type SmtpReceiver, startSmtp, testMail } from './smtp.js';

const ACCOUNT = '/dashboard/settings/account';
const CHOOSE = '/dashboard/settings/account/new-lead-mail';

describe.each(dialects())('choosing the new-lead email on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;
  let owner: Browser;
  let member: Browser;

  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createTestContext(dialect, { mail: testMail(smtp.url()) });
    await addUser(ctx.app, ctx.brandId, 'owner@acme.example', 'owner');
    await addUser(ctx.app, ctx.brandId, 'member@acme.example', 'member');
    owner = await signedIn(ctx.app, 'owner@acme.example');
    member = await signedIn(ctx.app, 'member@acme.example');
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  const setting = async (email: string) =>
    await ctx.app.deps.database.db
      .selectFrom('users')
      .select(['new_lead_mail', 'new_lead_mail_at'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
  const choiceOf = async (email: string) => (await setting(email)).new_lead_mail;

  /** Creates a lead and waits until its mails are sent; returns who got one. */
  const leadMailedTo = async (title: string) => {
    await ctx.createLead({ title });
    const subject = `New lead: ${title}`;
    await waitFor(async () => {
      const rows = await ctx.app.deps.database.db
        .selectFrom('email_outbox')
        .select('status')
        .where('subject', '=', subject)
        .execute();
      return rows.length > 0 && rows.every((r) => r.status === 'sent');
    }, 'the mails to be sent');
    return smtp.received
      .filter((m) => m.parsed.subject === subject)
      .flatMap((m) => m.to)
      .sort();
  };

  it("shows everyone's choice on Settings > Users, every lead for owners and none for members; a link on one's own row", async () => {
    const page = await owner.get('/dashboard/settings/users');
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('New-lead email');
    expect(text).toMatch(/owner@acme\.example \(you\) Admin .* Every lead Change your new-lead email/);
    expect(text).toMatch(/member@acme\.example Member .* None(?! Change)/);
    expect(page.body.match(/href="\/dashboard\/settings\/account#new-lead-mail"/g)).toHaveLength(1);
    expect(text).toContain('Email is on . Mails come from Acme Plumbing <leads@acme.example> .');
    expect(page.body).not.toContain(`action="${CHOOSE}"`);

    const own = textOf((await member.get('/dashboard/settings/users')).body);
    expect(own).toMatch(/member@acme\.example \(you\) Member .* None Change your new-lead email/);
  });

  it('shows the three choices on the account page, the current one checked', async () => {
    const page = await member.get(ACCOUNT);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`action="${CHOOSE}"`);
    expect(page.body).toContain('id="new-lead-mail"');
    const text = textOf(page.body);
    expect(text).toContain('New-lead email');
    expect(text).toContain('Leads you type in yourself are never mailed to you.');
    expect(text).toContain('A mail for every new lead');
    expect(text).toContain('A daily summary at 08:00 (Europe/Amsterdam)');
    expect(page.body).toContain(
      '<input type="radio" id="newLeadMail-none" name="newLeadMail" value="none" checked>',
    );
    expect(page.body).toContain(
      '<input type="radio" id="newLeadMail-every" name="newLeadMail" value="every">',
    );
    expect(page.body).toContain('<label for="newLeadMail-daily">');
    expect(text).not.toContain('Email is off on this server');
  });

  it('refuses a choice without the form token (CSRF) and changes nothing', async () => {
    await member.get(ACCOUNT);
    const missing = await member.post(CHOOSE, { newLeadMail: 'every', _csrf: undefined });
    expect(missing.statusCode).toBe(403);
    const wrong = await member.post(CHOOSE, { newLeadMail: 'every', _csrf: 'x'.repeat(43) });
    expect(wrong.statusCode).toBe(403);
    const foreign = await member.post(CHOOSE, { newLeadMail: 'every' }, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    expect(await choiceOf('member@acme.example')).toBe('none');
  });

  it('lets a member choose every lead (post, redirect, get), and new leads then mail them', async () => {
    await member.get(ACCOUNT);
    const before = Date.now();
    const res = await member.post(CHOOSE, { newLeadMail: 'every' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${ACCOUNT}?done=new-lead-mail-saved`);
    const page = await member.get(res.headers.location as string);
    expect(textOf(page.body)).toContain('Your choice of new-lead email is saved.');
    expect(page.body).toContain('value="every" checked');
    const stored = await setting('member@acme.example');
    expect(stored.new_lead_mail).toBe('every');
    expect(Number(stored.new_lead_mail_at)).toBeGreaterThanOrEqual(before);
    expect(await choiceOf('owner@acme.example')).toBe('every');
    expect(await leadMailedTo('Member wants these')).toEqual(['member@acme.example', 'owner@acme.example']);
  });

  it('lets an owner choose the daily summary, for themselves only: no more mail per lead', async () => {
    await owner.get(ACCOUNT);
    const res = await owner.post(CHOOSE, { newLeadMail: 'daily' });
    expect(res.statusCode).toBe(303);
    expect(await choiceOf('owner@acme.example')).toBe('daily');
    expect(await choiceOf('member@acme.example')).toBe('every');
    expect(textOf((await owner.get('/dashboard/settings/users')).body)).toMatch(
      /owner@acme\.example \(you\) Admin .* Daily summary Change/,
    );
    expect(await leadMailedTo('Owner reads it tomorrow')).toEqual(['member@acme.example']);
  });

  it('lets a member choose none', async () => {
    await member.get(ACCOUNT);
    expect((await member.post(CHOOSE, { newLeadMail: 'none' })).statusCode).toBe(303);
    expect(await choiceOf('member@acme.example')).toBe('none');
    await ctx.createLead({ title: 'Nobody per lead' });
    const rows = await ctx.app.deps.database.db
      .selectFrom('email_outbox')
      .select('recipient')
      .where('subject', '=', 'New lead: Nobody per lead')
      .execute();
    expect(rows).toEqual([]);
  });

  it('refuses anything but every, daily or none, beside the choices', async () => {
    await member.get(ACCOUNT);
    for (const value of ['maybe', 'on', '']) {
      const res = await member.post(CHOOSE, { newLeadMail: value });
      expect(res.statusCode).toBe(422);
      expect(res.body).toContain('id="newLeadMail-error"');
      expect(textOf(res.body)).toContain('Choose every lead, a daily summary or none.');
    }
    expect(await choiceOf('member@acme.example')).toBe('none');
  });

  it('needs a signed-in person', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: CHOOSE,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'newLeadMail=every',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/sign-in');
  });
});

describe.each(dialects())('Settings > Users with email off on %s', (dialect) => {
  const ctx = useTestContext(dialect);
  beforeAll(async () => {
    await addUser(ctx.app, ctx.brandId, 'owner@acme.example', 'owner');
  });

  it('says email is off and how it is turned on', async () => {
    const owner = await signedIn(ctx.app, 'owner@acme.example');
    const text = textOf((await owner.get('/dashboard/settings/users')).body);
    expect(text).toContain('Email is off : nothing is mailed.');
    expect(text).toContain('SMTP_URL');
    expect(text).toContain('MAIL_FROM');
    expect(text).not.toContain('Mails that could not be sent');
  });

  it('keeps the choice on the account page, and says nothing is mailed while email is off', async () => {
    const owner = await signedIn(ctx.app, 'owner@acme.example');
    const page = await owner.get(ACCOUNT);
    expect(textOf(page.body)).toContain('Email is off on this server');
    expect(page.body).toContain('value="every" checked');
  });
});
