// "Forgot password": with email on, a one-time link (1 hour) is mailed through the outbox to a real SMTP server;
// the answer never tells whether an address has an account; the link sets a new password once and signs the user
// out everywhere. With email off there is no link, and the page points at an admin and the CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSession } from '../../src/accounts/sessions.js';
import { removeUser } from '../../src/accounts/users.js';
import { createTestContext, dialects, type TestContext, waitFor } from '../helpers.js';
import { type SmtpReceiver, startSmtp, testMail } from '../mail/smtp.js';
import { useTestContext } from '../test-context.js';
import { addUser, Browser, PASSWORD, signedIn, textOf } from './helpers.js';

const PUBLIC_URL = 'https://leads.acme.example';
const NEW_PASSWORD = 'lantern harbour quietly';
const LINK = /https:\/\/leads\.acme\.example\/reset-password\?token=([A-Za-z0-9_-]{43})/;
const SENT = 'If that address has an account, we have sent a link to it.';

let address = 0;
/** A browser from its own network address, so the per-address request limit stays out of the way. */
async function visitor(ctx: TestContext): Promise<Browser> {
  address++;
  const browser = new Browser(ctx.app, {
    remoteAddress: `10.44.${Math.floor(address / 250)}.${address % 250}`,
  });
  await browser.get('/forgot-password');
  return browser;
}

describe.each(dialects())('forgot password with email on, on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;

  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createTestContext(dialect, { mail: testMail(smtp.url()), publicUrl: PUBLIC_URL });
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  const db = () => ctx.app.deps.database.db;
  const outboxTo = async (email: string) =>
    db().selectFrom('email_outbox').select(['kind', 'status']).where('recipient', '=', email).execute();
  /** Asks for a link as a browser does (the same answer for every address); returns the browser. */
  const ask = async (email: string, browser?: Browser) => {
    const b = browser ?? (await visitor(ctx));
    const res = await b.post('/forgot-password', { email });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/forgot-password?sent=1');
    const page = await b.get(res.headers.location as string);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain(SENT);
    return b;
  };
  /** Mails whose recipients include `email` (the SMTP client may lower-case the domain). */
  const mailsTo = (email: string) =>
    smtp.received.filter((m) => m.to.some((to) => to.toLowerCase() === email.toLowerCase()));
  /** The token of the nth (1-based) reset mail the SMTP server received for `email`. */
  const mailedToken = async (email: string, nth = 1) => {
    const mails = await waitFor(() => {
      const got = mailsTo(email).filter((m) => m.parsed.subject === 'Reset your lead-intake password');
      return got.length >= nth && got;
    }, `reset mail ${nth} to ${email}`);
    return LINK.exec(mails[nth - 1]!.parsed.text ?? '')![1]!;
  };
  const canSignIn = async (email: string, password: string) => {
    const browser = new Browser(ctx.app, { remoteAddress: '10.99.0.1' });
    await browser.get('/sign-in');
    return (await browser.post('/sign-in', { email, password })).statusCode === 303;
  };

  it('offers "Forgot your password?" on the sign-in page, and a form for the email', async () => {
    const signIn = await new Browser(ctx.app).get('/sign-in');
    expect(signIn.body).toContain('<a href="/forgot-password">Forgot your password?</a>');
    const form = await new Browser(ctx.app).get('/forgot-password');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('<form method="post" action="/forgot-password"');
    expect(form.body).toContain('<label for="field-email">Email</label>');
  });

  it('mails a one-time link (text and HTML) through the outbox; only its hash is stored', async () => {
    await addUser(ctx.app, ctx.brandId, 'Mail@Acme.example', 'member');
    await ask('  mail@ACME.example ');
    const token = await mailedToken('Mail@Acme.example');
    const mail = mailsTo('Mail@Acme.example')[0]!.parsed;
    expect(mail.text).toContain('Someone asked to reset the password of Mail@Acme.example for Acme Plumbing');
    expect(mail.text).toContain('The link works once, for 60 minutes.');
    expect(mail.html).toContain(`href="${PUBLIC_URL}/reset-password?token=${token}"`);
    await waitFor(
      async () => (await outboxTo('Mail@Acme.example'))[0]?.status === 'sent',
      'the outbox to record the mail as sent',
    );
    expect(await outboxTo('Mail@Acme.example')).toEqual([{ kind: 'password_reset', status: 'sent' }]);
    const stored = await db().selectFrom('password_resets').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(token);
    const row = stored.find((r) => r.token_hash?.length === 64)!;
    expect(Number(row.expires_at) - Number(row.created_at)).toBe(60 * 60 * 1000);
  });

  it('answers an unknown address exactly the same, and mails nothing', async () => {
    const outboxBefore = (await db().selectFrom('email_outbox').select('id').execute()).length;
    const known = await visitor(ctx);
    await addUser(ctx.app, ctx.brandId, 'same@acme.example', 'member');
    const knownAnswer = await known.post('/forgot-password', { email: 'same@acme.example' });
    const unknown = await visitor(ctx);
    const unknownAnswer = await unknown.post('/forgot-password', { email: 'nobody@acme.example' });
    expect(unknownAnswer.statusCode).toBe(knownAnswer.statusCode);
    expect(unknownAnswer.headers.location).toBe(knownAnswer.headers.location);
    expect(unknownAnswer.body).toBe(knownAnswer.body);
    const pages = await Promise.all([
      known.get('/forgot-password?sent=1'),
      unknown.get('/forgot-password?sent=1'),
    ]);
    expect(pages[1].body).toBe(pages[0].body);
    expect(await outboxTo('nobody@acme.example')).toEqual([]);
    await mailedToken('same@acme.example');
    expect((await db().selectFrom('email_outbox').select('id').execute()).length).toBe(outboxBefore + 1);
    expect(mailsTo('nobody@acme.example')).toEqual([]);
  });

  it('the link sets a new password once (strength rule, twice), signs out every session, clears failed sign-ins', async () => {
    await addUser(ctx.app, ctx.brandId, 'reset@acme.example', 'member');
    const phone = await signedIn(ctx.app, 'reset@acme.example');
    const laptop = await signedIn(ctx.app, 'reset@acme.example');
    await db()
      .insertInto('sign_in_failures')
      .values(
        Array.from({ length: 12 }, () => ({ subject: 'pair:10.3.3.3|reset@acme.example', at: Date.now() })),
      )
      .execute();
    const browser = await ask('reset@acme.example');
    const token = await mailedToken('reset@acme.example');

    const form = await browser.get(`/reset-password?token=${token}`);
    expect(form.statusCode).toBe(200);
    expect(textOf(form.body)).toContain('Choose a new password For reset@acme.example .');
    expect(form.body).toContain('<label for="field-password">New password</label>');
    expect(form.body).toContain('<label for="field-passwordConfirmation">New password again</label>');

    const weak = await browser.post('/reset-password', {
      token,
      password: 'password123456',
      passwordConfirmation: 'password123456',
    });
    expect(weak.statusCode).toBe(422);
    expect(textOf(weak.body)).toContain('New password is too easy to guess.');
    const fromEmail = await browser.post('/reset-password', {
      token,
      password: 'reset@acme.example',
      passwordConfirmation: 'reset@acme.example',
    });
    expect(fromEmail.statusCode).toBe(422);
    const mismatch = await browser.post('/reset-password', {
      token,
      password: NEW_PASSWORD,
      passwordConfirmation: `${NEW_PASSWORD}!`,
    });
    expect(mismatch.statusCode).toBe(422);
    expect(textOf(mismatch.body)).toContain('New password again does not match the new password.');
    expect(await canSignIn('reset@acme.example', PASSWORD)).toBe(true);
    const stillSignedIn = await signedIn(ctx.app, 'reset@acme.example');

    const noToken = await browser.post('/reset-password', {
      token,
      password: NEW_PASSWORD,
      passwordConfirmation: NEW_PASSWORD,
      _csrf: undefined,
    });
    expect(noToken.statusCode).toBe(403);

    const done = await browser.post('/reset-password', {
      token,
      password: NEW_PASSWORD,
      passwordConfirmation: NEW_PASSWORD,
    });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/sign-in?notice=password-reset');
    expect(textOf((await browser.get(done.headers.location as string)).body)).toContain(
      'Your password is changed and you are signed out everywhere. Sign in with the new password.',
    );
    for (const other of [phone, laptop, stillSignedIn]) {
      expect(await findSession(ctx.app.deps.database, other.cookies.get('li_session'))).toBeNull();
      expect((await other.get('/dashboard/leads')).statusCode).toBe(302);
    }
    const failures = await db()
      .selectFrom('sign_in_failures')
      .select('subject')
      .where('subject', '=', 'pair:10.3.3.3|reset@acme.example')
      .execute();
    expect(failures).toEqual([]);
    expect(await canSignIn('reset@acme.example', PASSWORD)).toBe(false);
    expect(await canSignIn('reset@acme.example', NEW_PASSWORD)).toBe(true);

    // Used: gone.
    expect((await browser.get(`/reset-password?token=${token}`)).statusCode).toBe(404);
    const again = await browser.post('/reset-password', {
      token,
      password: 'another fine passphrase',
      passwordConfirmation: 'another fine passphrase',
    });
    expect(again.statusCode).toBe(404);
    expect(textOf(again.body)).toContain('This password reset link is not valid');
    expect(await canSignIn('reset@acme.example', NEW_PASSWORD)).toBe(true);
  });

  it('an expired link does not work', async () => {
    await addUser(ctx.app, ctx.brandId, 'late@acme.example', 'member');
    const browser = await ask('late@acme.example');
    const token = await mailedToken('late@acme.example');
    await db()
      .updateTable('password_resets')
      .set({ expires_at: Date.now() - 1 })
      .where('user_id', '=', (await userIdOf('late@acme.example'))!)
      .execute();
    expect((await browser.get(`/reset-password?token=${token}`)).statusCode).toBe(404);
    const res = await browser.post('/reset-password', {
      token,
      password: NEW_PASSWORD,
      passwordConfirmation: NEW_PASSWORD,
    });
    expect(res.statusCode).toBe(404);
    expect(await canSignIn('late@acme.example', PASSWORD)).toBe(true);
  });

  it('a link resets only its own account, whatever else the form says', async () => {
    await addUser(ctx.app, ctx.brandId, 'mine@acme.example', 'member');
    await addUser(ctx.app, ctx.otherBrandId, 'theirs@other.example', 'owner');
    const browser = await ask('mine@acme.example');
    const token = await mailedToken('mine@acme.example');
    const res = await browser.post('/reset-password', {
      token,
      email: 'theirs@other.example',
      userId: (await userIdOf('theirs@other.example'))!,
      password: NEW_PASSWORD,
      passwordConfirmation: NEW_PASSWORD,
    });
    expect(res.statusCode).toBe(303);
    expect(await canSignIn('theirs@other.example', PASSWORD)).toBe(true);
    expect(await canSignIn('theirs@other.example', NEW_PASSWORD)).toBe(false);
    expect(await canSignIn('mine@acme.example', NEW_PASSWORD)).toBe(true);
  });

  it('a newer link replaces the older one', async () => {
    await addUser(ctx.app, ctx.brandId, 'twice@acme.example', 'member');
    const browser = await ask('twice@acme.example');
    const first = await mailedToken('twice@acme.example', 1);
    await ask('twice@acme.example', browser);
    const second = await mailedToken('twice@acme.example', 2);
    expect(second).not.toBe(first);
    expect((await browser.get(`/reset-password?token=${first}`)).statusCode).toBe(404);
    expect((await browser.get(`/reset-password?token=${second}`)).statusCode).toBe(200);
  });

  it('a person with an open link can still be removed, and the link dies with them', async () => {
    await addUser(ctx.app, ctx.brandId, 'leaving@acme.example', 'member');
    const browser = await ask('leaving@acme.example');
    const token = await mailedToken('leaving@acme.example');
    const id = (await userIdOf('leaving@acme.example'))!;
    await removeUser(ctx.app.deps.database, ctx.brandId, id, 'usr_someone_else');
    expect(
      await db().selectFrom('password_resets').select('token_hash').where('user_id', '=', id).execute(),
    ).toEqual([]);
    expect((await browser.get(`/reset-password?token=${token}`)).statusCode).toBe(404);
  });

  it('limits requests per address asked for and per network, the same for unknown addresses', async () => {
    for (const email of ['limit@acme.example', 'unknown-limit@acme.example']) {
      if (email.startsWith('limit')) await addUser(ctx.app, ctx.brandId, email, 'member');
      for (let i = 0; i < 3; i++) await ask(email);
      const b = await visitor(ctx);
      const refused = await b.post('/forgot-password', { email });
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(textOf(refused.body)).toContain('Too many links were asked for');
    }
    // Each request replaces the last link: a mail still queued when the next request came is dropped unsent (its
    // link could no longer work), so one to three mails arrive, and the last one's link works.
    await waitFor(
      async () => (await outboxTo('limit@acme.example')).every((m) => m.status === 'sent'),
      'the mails to be sent or dropped',
    );
    const sent = await outboxTo('limit@acme.example');
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.length).toBeLessThanOrEqual(3);
    await waitFor(() => mailsTo('limit@acme.example').length === sent.length, 'the sent mails');
    const last = await mailedToken('limit@acme.example', sent.length);
    expect((await (await visitor(ctx)).get(`/reset-password?token=${last}`)).statusCode).toBe(200);

    const network = await visitor(ctx);
    for (let i = 0; i < 10; i++) await ask(`net${i}@nowhere.example`, network);
    const refused = await network.post('/forgot-password', { email: 'net-last@nowhere.example' });
    expect(refused.statusCode).toBe(429);
  });

  it('refuses a bad email (422) and a post without the form token (403)', async () => {
    const browser = await visitor(ctx);
    const bad = await browser.post('/forgot-password', { email: 'not an email' });
    expect(bad.statusCode).toBe(422);
    expect(textOf(bad.body)).toContain('Email must be a valid email address');
    const forged = await browser.post('/forgot-password', { email: 'mail@acme.example', _csrf: undefined });
    expect(forged.statusCode).toBe(403);
  });

  async function userIdOf(email: string) {
    return (await db().selectFrom('users').select('id').where('email', '=', email).executeTakeFirst())?.id;
  }
});

describe.each(dialects())('forgot password with email off, on %s', (dialect) => {
  const ctx = useTestContext(dialect);

  beforeAll(async () => {
    await addUser(ctx.app, ctx.brandId, 'off@acme.example', 'member');
  });

  it('offers no link on the sign-in page; the page says to ask an admin or use the CLI; nothing is sent', async () => {
    const signIn = await new Browser(ctx.app).get('/sign-in');
    expect(signIn.body).not.toContain('/forgot-password');
    const browser = new Browser(ctx.app);
    const page = await browser.get('/forgot-password');
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('This server does not send email');
    expect(text).toContain('Ask an admin of your company');
    expect(text).toContain('lead-intake users reset-password --email you@example.com');
    expect(page.body).not.toContain('<form method="post" action="/forgot-password"');
    await browser.get('/sign-in');
    const posted = await browser.post('/forgot-password', { email: 'off@acme.example' });
    expect(textOf(posted.body)).toContain('This server does not send email');
    expect(await ctx.app.deps.database.db.selectFrom('email_outbox').select('id').execute()).toEqual([]);
    expect(await ctx.app.deps.database.db.selectFrom('password_resets').select('user_id').execute()).toEqual(
      [],
    );
  });
});
