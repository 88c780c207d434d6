// Settings > Your account: every signed-in person changes their own password (current one, new one twice, the
// strength rule); other sessions end, this one stays; wrong current passwords are counted and throttled.
import { describe, expect, it } from 'vitest';
import { dialects } from '../helpers.js';
import { useTestContext } from '../test-context.js';
import { addUser, Browser, PASSWORD, signedIn, textOf } from './helpers.js';

const PAGE = '/dashboard/settings/account';
const CHANGE = '/dashboard/settings/account/password';
const NEW_PASSWORD = 'lantern harbour quietly';

describe.each(dialects())('changing your own password on %s', (dialect) => {
  const ctx = useTestContext(dialect);

  const hashOf = async (email: string) =>
    (
      await ctx.app.deps.database.db
        .selectFrom('users')
        .select('password_hash')
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
    ).password_hash;
  const canSignIn = async (email: string, password: string) => {
    const browser = new Browser(ctx.app, { remoteAddress: '10.9.9.9' });
    await browser.get('/sign-in');
    return (await browser.post('/sign-in', { email, password })).statusCode === 303;
  };
  const change = (browser: Browser, fields: Record<string, string | undefined>) =>
    browser.post(CHANGE, {
      currentPassword: PASSWORD,
      password: NEW_PASSWORD,
      passwordConfirmation: NEW_PASSWORD,
      ...fields,
    });

  it('is open to members and admins, from the header, with the three labelled fields', async () => {
    await addUser(ctx.app, ctx.brandId, 'look@acme.example', 'member');
    const member = await signedIn(ctx.app, 'look@acme.example');
    const res = await member.get(PAGE);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<a class="who" href="${PAGE}"`);
    expect(textOf(res.body)).toContain('You are signed in as look@acme.example , a member of Acme Plumbing.');
    expect(res.body).toContain('<label for="field-currentPassword">Current password</label>');
    expect(res.body).toContain('autocomplete="current-password"');
    expect(res.body).toContain('<label for="field-password">New password</label>');
    expect(res.body).toContain('<label for="field-passwordConfirmation">New password again</label>');
    expect(res.body).toContain(`action="${CHANGE}"`);
    expect((await new Browser(ctx.app).get(PAGE)).statusCode).toBe(302);
  });

  it('refuses a wrong current password beside the field, and counts it', async () => {
    await addUser(ctx.app, ctx.brandId, 'wrong@acme.example', 'member');
    const browser = await signedIn(ctx.app, 'wrong@acme.example');
    await browser.get(PAGE);
    const before = await hashOf('wrong@acme.example');
    const res = await change(browser, { currentPassword: 'not my password at all' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain(
      '<p class="error" id="field-currentPassword-error">Current password is wrong.</p>',
    );
    expect(textOf(res.body)).toContain('There is a problem Current password is wrong.');
    expect(res.body).not.toContain('not my password at all');
    expect(await hashOf('wrong@acme.example')).toBe(before);
    const userId = (
      await ctx.app.deps.database.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'wrong@acme.example')
        .executeTakeFirstOrThrow()
    ).id;
    const counted = await ctx.app.deps.database.db
      .selectFrom('sign_in_failures')
      .select('subject')
      .where('subject', '=', `change-password:${userId}`)
      .execute();
    expect(counted).toHaveLength(1);
    const empty = await change(browser, { currentPassword: '' });
    expect(textOf(empty.body)).toContain('Current password is required.');
  });

  it('refuses a weak new password (the rule of setup: common, or built from the email or company) and a mismatch', async () => {
    await addUser(ctx.app, ctx.brandId, 'weak@acme.example', 'owner');
    const browser = await signedIn(ctx.app, 'weak@acme.example');
    await browser.get(PAGE);
    const before = await hashOf('weak@acme.example');
    for (const [password, why] of [
      ['short', 'must be at least 10 characters'],
      ['password123456', 'is too easy to guess. This is similar to a commonly used password.'],
      ['AcmePlumbing2026', 'is too easy to guess. It contains your email address or your company name.'],
      ['weak@acme.example1', 'is too easy to guess.'],
    ] as const) {
      const res = await change(browser, { password, passwordConfirmation: password });
      expect(res.statusCode).toBe(422);
      expect(textOf(res.body)).toContain(`New password ${why}`);
      expect(res.body).not.toContain(`value="${password}"`);
    }
    const mismatch = await change(browser, { passwordConfirmation: `${NEW_PASSWORD}!` });
    expect(mismatch.statusCode).toBe(422);
    expect(mismatch.body).toContain(
      '<p class="error" id="field-passwordConfirmation-error">New password again does not match the new password.</p>',
    );
    expect(await hashOf('weak@acme.example')).toBe(before);
  });

  it('refuses a post without the right form token or from another site (CSRF) and changes nothing', async () => {
    await addUser(ctx.app, ctx.brandId, 'csrf@acme.example', 'member');
    const browser = await signedIn(ctx.app, 'csrf@acme.example');
    await browser.get(PAGE);
    const before = await hashOf('csrf@acme.example');
    expect((await change(browser, { _csrf: undefined })).statusCode).toBe(403);
    expect((await change(browser, { _csrf: 'x'.repeat(43) })).statusCode).toBe(403);
    const foreign = await browser.post(
      CHANGE,
      { currentPassword: PASSWORD, password: NEW_PASSWORD, passwordConfirmation: NEW_PASSWORD },
      { origin: 'https://evil.example' },
    );
    expect(foreign.statusCode).toBe(403);
    expect(await hashOf('csrf@acme.example')).toBe(before);
    expect(await canSignIn('csrf@acme.example', PASSWORD)).toBe(true);
    // The same post with the token goes through.
    expect((await change(browser, {})).statusCode).toBe(303);
    expect(await hashOf('csrf@acme.example')).not.toBe(before);
  });

  it('changes it (post, redirect, get): other sessions end, this one stays; only the new password signs in', async () => {
    await addUser(ctx.app, ctx.brandId, 'mover@acme.example', 'member');
    const here = await signedIn(ctx.app, 'mover@acme.example');
    const phone = await signedIn(ctx.app, 'mover@acme.example');
    const laptop = await signedIn(ctx.app, 'mover@acme.example');
    await addUser(ctx.app, ctx.brandId, 'bystander@acme.example', 'member');
    const bystander = await signedIn(ctx.app, 'bystander@acme.example');
    await here.get(PAGE);

    const res = await change(here, {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${PAGE}?done=password-changed`);
    const after = await here.get(res.headers.location as string);
    expect(after.statusCode).toBe(200);
    expect(textOf(after.body)).toContain('Your password is changed. You are signed out everywhere else');

    expect((await here.get('/dashboard/leads')).statusCode).toBe(200);
    for (const other of [phone, laptop]) {
      const page = await other.get('/dashboard/leads');
      expect(page.statusCode).toBe(302);
      expect(page.headers.location).toMatch(/^\/sign-in/);
    }
    expect((await bystander.get('/dashboard/leads')).statusCode).toBe(200);
    expect(await canSignIn('mover@acme.example', PASSWORD)).toBe(false);
    expect(await canSignIn('mover@acme.example', NEW_PASSWORD)).toBe(true);
  });

  it('after five wrong current passwords, waits before checking again, even the right one', async () => {
    await addUser(ctx.app, ctx.brandId, 'guess@acme.example', 'member');
    const browser = await signedIn(ctx.app, 'guess@acme.example');
    await browser.get(PAGE);
    for (let i = 0; i < 5; i++) {
      expect((await change(browser, { currentPassword: `guess number ${i}` })).statusCode).toBe(422);
    }
    const userId = (
      await ctx.app.deps.database.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'guess@acme.example')
        .executeTakeFirstOrThrow()
    ).id;
    // More failures just now: the wait (doubling from 1 s) is minutes long, so no clock decides this test.
    await ctx.app.deps.database.db
      .insertInto('sign_in_failures')
      .values(Array.from({ length: 7 }, () => ({ subject: `change-password:${userId}`, at: Date.now() })))
      .execute();
    const before = await hashOf('guess@acme.example');
    const throttled = await change(browser, {});
    expect(throttled.statusCode).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(60);
    expect(textOf(throttled.body)).toContain('Too many wrong current passwords; try again in');
    expect(await hashOf('guess@acme.example')).toBe(before);

    // Once the failures are old enough, the right password works and clears the count.
    await ctx.app.deps.database.db
      .updateTable('sign_in_failures')
      .set({ at: Date.now() - 60 * 60 * 1000 })
      .where('subject', '=', `change-password:${userId}`)
      .execute();
    expect((await change(browser, {})).statusCode).toBe(303);
    const left = await ctx.app.deps.database.db
      .selectFrom('sign_in_failures')
      .select('subject')
      .where('subject', '=', `change-password:${userId}`)
      .execute();
    expect(left).toEqual([]);
  });
});

describe.each(dialects())('choosing your own new-lead email on %s', (dialect) => {
  const ctx = useTestContext(dialect);
  const CHOOSE = '/dashboard/settings/account/new-lead-mail';
  const choiceOf = async (email: string) =>
    (
      await ctx.app.deps.database.db
        .selectFrom('users')
        .select('new_lead_mail')
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
    ).new_lead_mail;

  it('shows admins every lead and members none checked, and saves each person their own choice only', async () => {
    await addUser(ctx.app, ctx.brandId, 'choice-admin@acme.example', 'owner');
    await addUser(ctx.app, ctx.brandId, 'choice-member@acme.example', 'member');
    const admin = await signedIn(ctx.app, 'choice-admin@acme.example');
    const member = await signedIn(ctx.app, 'choice-member@acme.example');
    expect((await admin.get(PAGE)).body).toContain('name="newLeadMail" value="every" checked');
    const page = await member.get(PAGE);
    expect(page.body).toContain('name="newLeadMail" value="none" checked');
    expect(page.body).toContain(`<form method="post" action="${CHOOSE}" novalidate>`);
    // Email is off here: the page says so, and the choice is kept for when it is on.
    expect(textOf(page.body)).toContain('Email is off on this server');

    const res = await member.post(CHOOSE, { newLeadMail: 'daily' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${PAGE}?done=new-lead-mail-saved`);
    const after = await member.get(`${PAGE}?done=new-lead-mail-saved`);
    expect(after.body).toContain('name="newLeadMail" value="daily" checked');
    expect(textOf(after.body)).toContain('Your choice of new-lead email is saved.');
    expect(await choiceOf('choice-member@acme.example')).toBe('daily');
    expect(await choiceOf('choice-admin@acme.example')).toBe('every');

    const bad = await member.post(CHOOSE, { newLeadMail: 'hourly' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('<p class="error" id="newLeadMail-error">');
    expect(await choiceOf('choice-member@acme.example')).toBe('daily');
  });
});
