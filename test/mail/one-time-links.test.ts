// No live secret at rest (issue 29): a password reset's and an invitation's one-time link are made when the mail
// worker sends the mail, so the database, read as files (SQLite: the .sqlite and its -wal) or dumped (pg_dump of
// the test's schema), holds neither the token nor the link while the mail is queued nor after it is sent. The mail
// a real SMTP server receives still carries a link that works. Invitations are emailed in the brand's language.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { buildApp } from '../../src/app.js';
import { queueSendTimeEmail } from '../../src/mail/outbox.js';
import { addUser, Browser, signedIn, textOf } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext, waitFor } from '../helpers.js';
import { type SmtpReceiver, startSmtp, testMail } from './smtp.js';

const PUBLIC_URL = 'https://leads.acme.example';
const NEW_PASSWORD = 'lantern harbour quietly';
const RESET_LINK = /https:\/\/leads\.acme\.example\/reset-password\?token=([A-Za-z0-9_-]{43})/;
const INVITE_LINK = /https:\/\/leads\.acme\.example\/invite\?token=([A-Za-z0-9_-]{43})/;
/** What any stored copy of a link would hold, whatever its token. */
const LINK_PATHS = ['reset-password?token=', 'invite?token='];

const run = promisify(execFile);

describe.each(dialects())('one-time links are made when sent, on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;
  let dir: string;
  let file: string;
  let owner: Browser;
  let address = 0;

  beforeAll(async () => {
    // Nothing listens at first: each test decides when its mail may go.
    smtp = await startSmtp({ listening: false });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'one-time-links-'));
    file = path.join(dir, 'lead-intake.sqlite');
    ctx = await createTestContext(dialect, {
      mail: testMail(smtp.url()),
      publicUrl: PUBLIC_URL,
      ...(dialect === 'sqlite' ? { database: { dialect: 'sqlite' as const, file } } : {}),
    });
    await addUser(ctx.app, ctx.brandId, 'owner@acme.example', 'owner');
    owner = await signedIn(ctx.app, 'owner@acme.example');
    await owner.get('/dashboard/settings/users');
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const db = () => ctx.app.deps.database.db;

  /** Everything the database holds, as bytes: SQLite's files as they are on disk, or PostgreSQL's schema dumped. */
  async function databaseBytes(): Promise<Buffer> {
    const database = ctx.app.deps.config.database;
    if (database.dialect === 'sqlite') {
      const files = [file, `${file}-wal`].filter((f) => fs.existsSync(f));
      expect(files).toContain(`${file}-wal`);
      return Buffer.concat(files.map((f) => fs.readFileSync(f)));
    }
    const { stdout } = await run('pg_dump', ['--dbname', database.url, '--schema', database.schema], {
      encoding: 'buffer',
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout;
  }

  /** Fails when the database holds any of `secrets` or a link of either kind. */
  async function expectNotStored(secrets: string[], when: string) {
    const bytes = await databaseBytes();
    // The dump or the files do hold the data around the mail: a search that finds nothing means something.
    expect(bytes.includes(Buffer.from('owner@acme.example')), `the data is in what was read ${when}`).toBe(
      true,
    );
    for (const value of [...secrets, ...LINK_PATHS]) {
      expect(bytes.includes(Buffer.from(value)), `${value} in the database ${when}`).toBe(false);
    }
  }

  const outboxTo = (recipient: string) =>
    db()
      .selectFrom('email_outbox')
      .select(['kind', 'status', 'attempt', 'text', 'html', 'subject'])
      .where('recipient', '=', recipient)
      .execute();
  const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email));

  /** Lets the queued mail to `recipient` be tried once with nobody listening, then lets it through. */
  async function deliverAfterAFailure(recipient: string) {
    await waitFor(async () => (await outboxTo(recipient))[0]?.attempt, `a failed attempt to ${recipient}`);
    await smtp.listen();
    const [mail] = await waitFor(
      () => mailsTo(recipient).length && mailsTo(recipient),
      `a mail to ${recipient}`,
    );
    await waitFor(async () => (await outboxTo(recipient))[0]?.status === 'sent', `the mail recorded as sent`);
    await smtp.stop();
    return mail!.parsed;
  }

  it('a password reset link is in no copy of the database, queued or sent, and the mailed link works', async () => {
    await addUser(ctx.app, ctx.brandId, 'forgetful@acme.example', 'member');
    const browser = new Browser(ctx.app, { remoteAddress: `10.61.0.${++address}` });
    await browser.get('/forgot-password');
    expect((await browser.post('/forgot-password', { email: 'forgetful@acme.example' })).statusCode).toBe(
      303,
    );

    // Queued: the outbox keeps what the dashboard lists, not the mail; the reset has no token yet.
    const [queued] = await outboxTo('forgetful@acme.example');
    expect(queued).toMatchObject({ kind: 'password_reset', text: '', html: '' });
    expect(queued!.subject).toBe('Reset your lead-intake password');
    await expectNotStored([], 'while the mail is queued');

    const mail = await deliverAfterAFailure('forgetful@acme.example');
    const token = RESET_LINK.exec(mail.text ?? '')![1]!;
    expect(mail.subject).toBe('Reset your lead-intake password');
    expect(mail.html).toContain(`href="${PUBLIC_URL}/reset-password?token=${token}"`);
    expect(mail.headers.get('content-language')).toBe('en');
    const [sent] = await outboxTo('forgetful@acme.example');
    expect(sent).toMatchObject({ status: 'sent', text: '', html: '' });
    await expectNotStored([token], 'after the mail is sent');

    // The link works: a new password, once.
    const form = await browser.get(`/reset-password?token=${token}`);
    expect(form.statusCode).toBe(200);
    const done = await browser.post('/reset-password', {
      token,
      password: NEW_PASSWORD,
      passwordConfirmation: NEW_PASSWORD,
    });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/sign-in?notice=password-reset');
    expect((await signedIn(ctx.app, 'forgetful@acme.example', NEW_PASSWORD)).cookies.has('li_session')).toBe(
      true,
    );
    expect((await browser.get(`/reset-password?token=${token}`)).statusCode).toBe(404);
    await expectNotStored([token], 'after the link was used');
  });

  it('a link asked for on one instance, mailed by another, works on the first: they share only the database', async () => {
    // Its own connection to the same database, and no mail worker: this app's worker writes and sends the mail.
    const first = await buildApp(ctx.app.deps.config, {
      migrate: false,
      mailWorker: false,
      logger: false,
      defaultMetrics: false,
    });
    await first.ready();
    try {
      expect(first.deps.database).not.toBe(ctx.app.deps.database);
      await addUser(ctx.app, ctx.brandId, 'elsewhere@acme.example', 'member');
      const browser = new Browser(first, { remoteAddress: `10.61.2.${++address}` });
      await browser.get('/forgot-password');
      expect((await browser.post('/forgot-password', { email: 'elsewhere@acme.example' })).statusCode).toBe(
        303,
      );
      const mail = await deliverAfterAFailure('elsewhere@acme.example');
      const token = RESET_LINK.exec(mail.text ?? '')![1]!;
      expect((await browser.get(`/reset-password?token=${token}`)).statusCode).toBe(200);
      const done = await browser.post('/reset-password', {
        token,
        password: NEW_PASSWORD,
        passwordConfirmation: NEW_PASSWORD,
      });
      expect(done.statusCode).toBe(303);
    } finally {
      await first.close();
    }
  });

  it('a reset mail still queued when a newer link is asked for is dropped, not sent with a dead link', async () => {
    await addUser(ctx.app, ctx.brandId, 'twice@acme.example', 'member');
    const browser = new Browser(ctx.app, { remoteAddress: `10.61.0.${++address}` });
    await browser.get('/forgot-password');
    await browser.post('/forgot-password', { email: 'twice@acme.example' });
    await waitFor(async () => (await outboxTo('twice@acme.example'))[0]?.attempt, 'a failed attempt');
    await browser.post('/forgot-password', { email: 'twice@acme.example' });
    await waitFor(async () => (await outboxTo('twice@acme.example')).length === 1, 'the first mail dropped');
    const mail = await deliverAfterAFailure('twice@acme.example');
    expect(mailsTo('twice@acme.example')).toHaveLength(1);
    const token = RESET_LINK.exec(mail.text ?? '')![1]!;
    expect((await browser.get(`/reset-password?token=${token}`)).statusCode).toBe(200);
  });

  it('an invitation is emailed (the dashboard says so), its links are never stored, and the mailed one works', async () => {
    const posted = await owner.post('/dashboard/settings/users', {
      email: 'New.Fitter@acme.example',
      role: 'member',
    });
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toMatch(/\?invited=inv_[0-9a-z]{26}&emailed=1$/);
    const page = await owner.get(posted.headers.location as string);
    expect(textOf(page.body)).toContain('Invitation emailed to New.Fitter@acme.example.');
    // The link shown once to the admin (built from the address the dashboard was reached at).
    const adminToken = /\/invite\?token=([A-Za-z0-9_-]{43})/.exec(page.body)![1]!;
    // Reloaded: the link is gone, the note that it was emailed stays.
    const reloaded = textOf((await owner.get(posted.headers.location as string)).body);
    expect(reloaded).toContain('Invitation emailed to New.Fitter@acme.example.');
    expect(reloaded).toContain('Its link was shown once');

    const [queued] = await outboxTo('New.Fitter@acme.example');
    expect(queued).toMatchObject({
      kind: 'invitation',
      text: '',
      html: '',
      subject: 'You are invited to Acme Plumbing on lead-intake',
    });
    await expectNotStored([adminToken], 'while the invitation mail is queued');

    const mail = await deliverAfterAFailure('New.Fitter@acme.example');
    expect(mail.subject).toBe('You are invited to Acme Plumbing on lead-intake');
    expect(mail.headers.get('content-language')).toBe('en');
    expect(mail.text).toContain(
      'owner@acme.example invited you to Acme Plumbing on lead-intake, as a member.',
    );
    expect(mail.text).toContain('Your account will be New.Fitter@acme.example.');
    expect(mail.text).toContain('The link works once, for 7 days.');
    const token = INVITE_LINK.exec(mail.text ?? '')![1]!;
    expect(token).not.toBe(adminToken);
    expect(mail.html).toContain(`href="${PUBLIC_URL}/invite?token=${token}"`);
    await expectNotStored([adminToken, token], 'after the invitation mail is sent');

    const invited = new Browser(ctx.app, { remoteAddress: `10.61.1.${++address}` });
    const form = await invited.get(`/invite?token=${token}`);
    expect(form.statusCode).toBe(200);
    expect(textOf(form.body)).toContain('You were invited as New.Fitter@acme.example');
    const done = await invited.post('/invite', {
      token,
      name: 'Nieuwe Monteur',
      password: NEW_PASSWORD,
      passwordConfirmation: NEW_PASSWORD,
    });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/dashboard/leads');
    expect((await invited.get('/dashboard/leads')).statusCode).toBe(200);
    // One invitation, one account: the link shown to the admin died with it.
    expect((await new Browser(ctx.app).get(`/invite?token=${adminToken}`)).statusCode).toBe(404);
    expect((await new Browser(ctx.app).get(`/invite?token=${token}`)).statusCode).toBe(404);
  });

  it('the invitation mail speaks the brand’s language, whatever the inviter’s', async () => {
    const brand = await createBrand(ctx.app.deps.database, {
      language: 'nl',
      name: 'Loodgieter Jansen',
      country: 'NL',
    });
    // addUser gives the admin English: the mail still follows the brand.
    await addUser(ctx.app, brand.id, 'baas@jansen.example', 'owner');
    const boss = await signedIn(ctx.app, 'baas@jansen.example');
    await boss.get('/dashboard/settings/users');
    const posted = await boss.post('/dashboard/settings/users', {
      email: 'gezel@jansen.example',
      role: 'owner',
    });
    expect(posted.statusCode).toBe(303);
    const mail = await deliverAfterAFailure('gezel@jansen.example');
    expect(mail.subject).toBe('Uitnodiging voor Loodgieter Jansen op lead-intake');
    expect(mail.headers.get('content-language')).toBe('nl');
    expect(mail.text).toContain(
      'baas@jansen.example heeft je uitgenodigd voor Loodgieter Jansen op lead-intake, als beheerder.',
    );
    expect(mail.text).toContain('De link werkt één keer en is 7 dagen geldig.');
    expect(mail.html).toMatch(/^<!doctype html>\s*<html lang="nl">/i);
  });

  it('a mail of a kind this instance cannot write is a failed attempt, retried, and never sent empty', async () => {
    await ctx.app.deps.database.write((tx) =>
      queueSendTimeEmail(tx, {
        brandId: ctx.brandId,
        kind: 'from_a_newer_version',
        recipient: 'unwritten@acme.example',
        subject: 'Something new',
        ref: 'xyz_1',
      }),
    );
    await smtp.listen();
    try {
      const [row] = await waitFor(async () => {
        const rows = await db()
          .selectFrom('email_outbox')
          .select(['status', 'attempt', 'last_error'])
          .where('recipient', '=', 'unwritten@acme.example')
          .execute();
        return rows[0]!.attempt >= 2 && rows;
      }, 'two failed attempts');
      expect(row).toMatchObject({
        status: 'pending',
        last_error:
          'the mail could not be written: this instance has no renderer for mails of kind from_a_newer_version',
      });
      expect(mailsTo('unwritten@acme.example')).toEqual([]);
    } finally {
      await smtp.stop();
    }
  });

  it('an invitation withdrawn before its mail went is not mailed', async () => {
    const posted = await owner.post('/dashboard/settings/users', {
      email: 'withdrawn@acme.example',
      role: 'member',
    });
    const id = /invited=(inv_[0-9a-z]{26})/.exec(posted.headers.location as string)![1]!;
    await waitFor(async () => (await outboxTo('withdrawn@acme.example'))[0]?.attempt, 'a failed attempt');
    await owner.get('/dashboard/settings/users');
    expect((await owner.post(`/dashboard/settings/users/invites/${id}/withdraw`)).statusCode).toBe(303);
    await smtp.listen();
    try {
      await waitFor(async () => (await outboxTo('withdrawn@acme.example')).length === 0, 'the mail dropped');
    } finally {
      await smtp.stop();
    }
    expect(mailsTo('withdrawn@acme.example')).toEqual([]);
  });
});
