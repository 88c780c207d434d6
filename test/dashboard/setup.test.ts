// First run: one-time setup links, the setup form, and /setup disappearing afterwards.
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completeSetup, createSetupLink } from '../../src/accounts/setup.js';
import { buildApp } from '../../src/app.js';
import { expectToContain } from '../expect-text.js';
import { createTestContext, dialects, type TestContext, testConfig } from '../helpers.js';
import { Browser, textOf } from './helpers.js';

const OWNER = { email: 'owner@example.com', password: 'a good long password' };

function tokenOf(url: string): string {
  return new URL(url).searchParams.get('token')!;
}

describe.each(dialects())('first-run setup on %s', (dialect) => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createTestContext(dialect);
  });
  afterEach(async () => ctx?.close());

  const setupForm = (token: string, fields: Record<string, string> = {}) => ({
    token,
    brandName: 'Jansen Installaties',
    country: 'be',
    email: OWNER.email,
    password: OWNER.password,
    passwordConfirmation: OWNER.password,
    ...fields,
  });

  it('sends a visitor to /setup, which asks for the logged link; a missing or wrong token is refused', async () => {
    const browser = new Browser(ctx.app);
    const root = await browser.get('/');
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/setup');
    for (const url of ['/setup', '/setup?token=wrong', `/setup?token=${'A'.repeat(43)}`]) {
      const res = await browser.get(url);
      expect(res.statusCode).toBe(403);
      expect(textOf(res.body)).toContain('Open the setup link');
    }
    const signIn = await browser.get('/sign-in');
    expect(textOf(signIn.body)).toContain('No account exists yet');
  });

  it('creates the brand and its owner, signs them in, and kills every link: /setup is a 404 after', async () => {
    // Two instances started: each logged its own link.
    const first = (await createSetupLink(ctx.app.deps.database, 'http://127.0.0.1:3000'))!;
    const second = (await createSetupLink(ctx.app.deps.database, 'http://127.0.0.1:3000'))!;
    expect(first).toMatch(/^http:\/\/127\.0\.0\.1:3000\/setup\?token=[A-Za-z0-9_-]{43}$/);
    expect(tokenOf(first)).not.toBe(tokenOf(second));

    const browser = new Browser(ctx.app);
    const form = await browser.get(`/setup?token=${tokenOf(first)}`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('Create company and account');

    const done = await browser.post('/setup', setupForm(tokenOf(first)));
    expect(done.statusCode).toBe(303);
    // Setup leads to "Get started", the website form first (issue 30), not to API keys.
    expect(done.headers.location).toBe('/dashboard/start?done=welcome');
    const welcome = await browser.get('/dashboard/start?done=welcome');
    expect(welcome.statusCode).toBe(200);
    expectToContain(textOf(welcome.body), [
      'Jansen Installaties is set up.',
      'Get started',
      'Set up your website form',
      '0 of 4 steps done.',
    ]);

    const brand = await ctx.app.deps.database.db
      .selectFrom('brands')
      .selectAll()
      .where('name', '=', 'Jansen Installaties')
      .executeTakeFirstOrThrow();
    expect(brand.default_country).toBe('BE');
    const users = await ctx.app.deps.database.db.selectFrom('users').selectAll().execute();
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ email: OWNER.email, role: 'owner', brand_id: brand.id });
    expect(await ctx.app.deps.database.db.selectFrom('setup_tokens').selectAll().execute()).toEqual([]);

    const stranger = new Browser(ctx.app);
    for (const url of [first, second]) {
      const res = await stranger.get(new URL(url).pathname + new URL(url).search);
      expect(res.statusCode).toBe(404);
    }
    expect((await stranger.get('/setup')).statusCode).toBe(404);
    await stranger.get('/sign-in');
    const replay = await stranger.post(
      '/setup',
      setupForm(tokenOf(second), { email: 'intruder@example.com' }),
    );
    expect(replay.statusCode).toBe(404);
    expect(await ctx.app.deps.database.db.selectFrom('users').selectAll().execute()).toHaveLength(1);
    expect((await stranger.get('/')).headers.location).toBe('/sign-in');
    expect(await createSetupLink(ctx.app.deps.database, 'http://x')).toBeNull();
  });

  it('stores only a hash of the token', async () => {
    const url = (await createSetupLink(ctx.app.deps.database, 'http://x'))!;
    const rows = await ctx.app.deps.database.db.selectFrom('setup_tokens').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(createHash('sha256').update(tokenOf(url)).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(tokenOf(url));
  });

  it('bad input is a 422 naming each field; nothing is stored and the link still works', async () => {
    const token = tokenOf((await createSetupLink(ctx.app.deps.database, 'http://x'))!);
    const browser = new Browser(ctx.app);
    await browser.get(`/setup?token=${token}`);
    const res = await browser.post(
      '/setup',
      setupForm(token, {
        brandName: ' ',
        country: 'Atlantis',
        email: 'not-an-email',
        password: 'short',
        passwordConfirmation: 'other',
      }),
    );
    expect(res.statusCode).toBe(422);
    const text = textOf(res.body);
    expectToContain(text, [
      'There are 5 problems',
      'Company name is required',
      'Country must be an ISO 3166-1 alpha-2 country code',
      'Email must be a valid email address',
      'Password must be at least 10 characters',
      'Password again does not match the password',
    ]);
    expect(res.body).not.toContain('value="short"');
    const mismatch = await browser.post(
      '/setup',
      setupForm(token, { passwordConfirmation: 'something else' }),
    );
    expect(mismatch.statusCode).toBe(422);
    expect(textOf(mismatch.body)).toContain('There is a problem Password again does not match the password');
    expect(await ctx.app.deps.database.db.selectFrom('users').selectAll().execute()).toEqual([]);
    expect((await browser.post('/setup', setupForm(token))).statusCode).toBe(303);
  });

  it('refuses a common or guessable password beside the field, keeps the other values, stores nothing', async () => {
    const token = tokenOf((await createSetupLink(ctx.app.deps.database, 'http://x'))!);
    const browser = new Browser(ctx.app);
    const form = await browser.get(`/setup?token=${token}`);
    expect(textOf(form.body)).toContain(
      'At least 10 characters. A few uncommon words work well; common passwords are refused.',
    );
    const db = ctx.app.deps.database.db;
    const brandsBefore = await db.selectFrom('brands').selectAll().execute();
    const cases = [
      ['aaaaaaaaaa', 'Repeated characters like "aaa" are easy to guess.'],
      ['password123456', 'This is similar to a commonly used password.'],
      // Built from the company name being created.
      ['acme-plumbing-2026', 'It contains your email address or your company name.'],
    ];
    for (const [password, why] of cases) {
      const res = await browser.post(
        '/setup',
        setupForm(token, {
          brandName: 'Acme Plumbing',
          password: password!,
          passwordConfirmation: password!,
        }),
      );
      expect(res.statusCode).toBe(422);
      // Beside the password field, and in the summary at the top.
      expect(res.body).toContain(
        `<p class="error" id="field-password-error">Password is too easy to guess. ${why!.replaceAll('"', '&quot;')} Add more words that are less common.</p>`,
      );
      expect(textOf(res.body)).toContain(`There is a problem Password is too easy to guess. ${why}`);
      expect(res.body).toContain('aria-invalid="true"');
      // The other values are kept; the password is not sent back.
      expect(res.body).toContain('value="Acme Plumbing"');
      expect(res.body).toContain(`value="${OWNER.email}"`);
      expect(res.body).not.toContain(password);
    }
    expect(await db.selectFrom('users').selectAll().execute()).toEqual([]);
    expect(await db.selectFrom('brands').selectAll().execute()).toEqual(brandsBefore);
    // The link still works with a good password.
    expect((await browser.post('/setup', setupForm(token))).statusCode).toBe(303);
  });

  it('needs the form token: a forged setup post is refused', async () => {
    const token = tokenOf((await createSetupLink(ctx.app.deps.database, 'http://x'))!);
    const browser = new Browser(ctx.app);
    await browser.get(`/setup?token=${token}`);
    const res = await browser.post('/setup', { ...setupForm(token), _csrf: undefined });
    expect(res.statusCode).toBe(403);
    expect(await ctx.app.deps.database.db.selectFrom('users').selectAll().execute()).toEqual([]);
  });

  it('of two setups racing with two links, exactly one creates an owner', async () => {
    const database = ctx.app.deps.database;
    const db = database.db;
    const links = [
      (await createSetupLink(database, 'http://x'))!,
      (await createSetupLink(database, 'http://x'))!,
    ];
    const results = await Promise.allSettled(
      links.map((link, i) =>
        completeSetup(database, {
          token: tokenOf(link),
          brandName: `Brand ${i}`,
          country: 'NL',
          email: `owner${i}@example.com`,
          password: OWNER.password,
          passwordConfirmation: OWNER.password,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await db.selectFrom('users').selectAll().execute()).toHaveLength(1);
  });

  it('logs one setup link when the server starts listening, pointing at the port it really got', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await buildApp(testConfig(dialect, { port: 0, logLevel: 'info' }), {
      database: ctx.app.deps.database,
      migrate: false,
      logger: { stream },
      defaultMetrics: false,
    });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as AddressInfo).port;
      let url: string | undefined;
      for (let i = 0; i < 200 && !url; i++) {
        url = lines.map((l) => (JSON.parse(l) as { setupUrl?: string }).setupUrl).find(Boolean);
        if (!url) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/setup\\?token=`));
      const res = await fetch(url!);
      expect(res.status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
