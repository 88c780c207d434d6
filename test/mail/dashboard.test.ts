// Settings > Users: each person's "Email me new leads", switched by that person only (a CSRF-checked form post,
// then a redirect), and whether email is on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, type Browser, signedIn, textOf } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext, waitFor } from '../helpers.js';
import { useTestContext } from '../test-context.js';
import { type SmtpReceiver, startSmtp, testMail } from './smtp.js';

const TOGGLE = '/dashboard/settings/users/me/new-lead-emails';

describe.each(dialects())('"Email me new leads" on %s', (dialect) => {
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
    (
      await ctx.app.deps.database.db
        .selectFrom('users')
        .select('notify_new_leads')
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
    ).notify_new_leads;

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

  it("shows everyone's setting, on for owners and off for members; a button only on one's own row", async () => {
    const page = await owner.get('/dashboard/settings/users');
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('Email me new leads');
    expect(text).toMatch(/owner@acme\.example \(you\) Admin .* On Turn off new-lead emails for you/);
    expect(text).toMatch(/member@acme\.example Member .* Off(?! Turn on)/);
    expect(page.body.match(new RegExp(`action="${TOGGLE}"`, 'g'))).toHaveLength(1);
    expect(text).toContain('Email is on . Mails come from Acme Plumbing <leads@acme.example> .');

    const own = textOf((await member.get('/dashboard/settings/users')).body);
    expect(own).toMatch(/member@acme\.example \(you\) Member .* Off Turn on new-lead emails for you/);
  });

  it('refuses a switch without the form token (CSRF) and changes nothing', async () => {
    const missing = await member.post(TOGGLE, { notify: 'on', _csrf: undefined });
    expect(missing.statusCode).toBe(403);
    const wrong = await member.post(TOGGLE, { notify: 'on', _csrf: 'x'.repeat(43) });
    expect(wrong.statusCode).toBe(403);
    const foreign = await member.post(TOGGLE, { notify: 'on' }, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    expect(await setting('member@acme.example')).toBe(0);
  });

  it('lets a member turn it on (post, redirect, get), and new leads then mail them', async () => {
    await member.get('/dashboard/settings/users');
    const res = await member.post(TOGGLE, { notify: 'on' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/settings/users?done=new-lead-emails-on');
    const page = textOf((await member.get(res.headers.location as string)).body);
    expect(page).toContain('You get an email for each new lead.');
    expect(page).toMatch(/member@acme\.example \(you\) Member .* On Turn off/);
    expect(await setting('member@acme.example')).toBe(1);
    expect(await setting('owner@acme.example')).toBe(1);
    expect(await leadMailedTo('Member wants these')).toEqual(['member@acme.example', 'owner@acme.example']);
  });

  it('lets an owner turn it off, for themselves only', async () => {
    await owner.get('/dashboard/settings/users');
    const res = await owner.post(TOGGLE, { notify: 'off' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/settings/users?done=new-lead-emails-off');
    expect(textOf((await owner.get(res.headers.location as string)).body)).toContain(
      'You no longer get an email for new leads.',
    );
    expect(await setting('owner@acme.example')).toBe(0);
    expect(await setting('member@acme.example')).toBe(1);
    expect(await leadMailedTo('Owner is on holiday')).toEqual(['member@acme.example']);
  });

  it('refuses a value that is neither on nor off', async () => {
    await member.get('/dashboard/settings/users');
    const res = await member.post(TOGGLE, { notify: 'maybe' });
    expect(res.statusCode).toBe(400);
    expect(await setting('member@acme.example')).toBe(1);
  });

  it('needs a signed-in person', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: TOGGLE,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'notify=on',
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
});
