// Sign-in, sessions (cookie flags, rotation, expiry, sign-out), throttling and CSRF.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, findSession, SESSION_IDLE_MS, SESSION_MAX_MS } from '../../src/accounts/sessions.js';
import { type App, buildApp } from '../../src/app.js';
import { createTestContext, dialects, type TestContext, testConfig } from '../helpers.js';
import { addUser, Browser, PASSWORD, signedIn, textOf } from './helpers.js';

const GENERIC = 'Email or password is wrong.';

describe.each(dialects())('sign-in and sessions on %s', (dialect) => {
  let ctx: TestContext;
  let owner: Awaited<ReturnType<typeof addUser>>;
  let address = 0;
  /** Each test signs in from its own client address, so per-address throttling never couples tests. */
  const fresh = () => new Browser(ctx.app, { remoteAddress: `10.1.0.${++address}` });

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    owner = await addUser(ctx.app, ctx.brandId, 'owner@acme.example');
  });
  afterAll(async () => ctx?.close());

  /** Another app on the same database: a second instance behind the load balancer. */
  async function secondInstance(overrides: Parameters<typeof testConfig>[1] = {}): Promise<App> {
    const app = await buildApp(testConfig(dialect, overrides), {
      database: ctx.app.deps.database,
      migrate: false,
      logger: false,
      defaultMetrics: false,
    });
    await app.ready();
    return app;
  }

  it('signs in with the right password: a new HttpOnly, SameSite=Lax session cookie, not Secure over HTTP', async () => {
    const browser = fresh();
    const form = await browser.get('/sign-in');
    expect(form.statusCode).toBe(200);
    expect(form.body).toMatch(/<label for="field-email">Email/);
    const res = await browser.post('/sign-in', { email: ' Owner@ACME.example ', password: PASSWORD });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/leads');
    const cookie = [res.headers['set-cookie']].flat().find((c) => c?.startsWith('li_session='))!;
    expect(cookie).toMatch(
      /^li_session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    expect(cookie).not.toMatch(/Secure/);
    const page = await browser.get('/dashboard/leads');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('owner@acme.example');
    // Only the hash of the token is in the database.
    const token = browser.cookies.get('li_session')!;
    const rows = await ctx.app.deps.database.db.selectFrom('sessions').select('id').execute();
    expect(rows.map((r) => r.id)).not.toContain(token);
  });

  it('marks the cookies Secure when the request came over HTTPS through a trusted proxy', async () => {
    const app = await secondInstance({ trustProxy: 1 });
    try {
      const https = new Browser(app, {
        headers: { 'x-forwarded-proto': 'https' },
        remoteAddress: '10.2.0.1',
      });
      const form = await https.get('/sign-in');
      expect(form.headers['set-cookie']).toMatch(/^li_form=.*; HttpOnly; Secure; SameSite=Lax$/);
      const res = await https.post('/sign-in', { email: owner.email, password: PASSWORD });
      expect([res.headers['set-cookie']].flat().find((c) => c?.startsWith('li_session='))).toMatch(
        /; HttpOnly; Secure; SameSite=Lax$/,
      );
    } finally {
      await app.close();
    }
    // Without trustProxy a client cannot claim HTTPS.
    const plain = new Browser(ctx.app, {
      headers: { 'x-forwarded-proto': 'https' },
      remoteAddress: '10.2.0.2',
    });
    await plain.get('/sign-in');
    const res = await plain.post('/sign-in', { email: owner.email, password: PASSWORD });
    expect(String(res.headers['set-cookie'])).not.toMatch(/Secure/);
  });

  it('a wrong password and an unknown email get the same status and the same generic message', async () => {
    const browser = fresh();
    await browser.get('/sign-in');
    const wrong = await browser.post('/sign-in', { email: owner.email, password: 'wrong password' });
    const unknown = await browser.post('/sign-in', { email: 'nobody@acme.example', password: PASSWORD });
    const empty = await browser.post('/sign-in', { email: '', password: '' });
    for (const res of [wrong, unknown, empty]) {
      expect(res.statusCode).toBe(401);
      expect(textOf(res.body)).toContain(GENERIC);
      expect(res.headers['set-cookie'] ?? '').not.toMatch(/li_session=/);
    }
    // The email typed is kept; the password never comes back.
    expect(wrong.body).toContain(`value="${owner.email}"`);
    expect(wrong.body).not.toContain('wrong password');
  });

  it('rotates the session on sign-in: a token the browser already had is ended, not reused', async () => {
    const first = await signedIn(ctx.app, owner.email, PASSWORD, { remoteAddress: '10.3.0.1' });
    const planted = first.cookies.get('li_session')!;
    const browser = fresh();
    await browser.get('/sign-in');
    browser.cookies.set('li_session', planted);
    const res = await browser.post('/sign-in', { email: owner.email, password: PASSWORD });
    expect(res.statusCode).toBe(303);
    const issued = browser.cookies.get('li_session')!;
    expect(issued).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(issued).not.toBe(planted);
    expect(await findSession(ctx.app.deps.database, planted)).toBeNull();
    expect((await first.get('/dashboard/leads')).statusCode).toBe(302);
    expect((await browser.get('/dashboard/leads')).statusCode).toBe(200);
  });

  it('signs out: the session ends on the server and the cookie is cleared', async () => {
    const browser = await signedIn(ctx.app, owner.email, PASSWORD, { remoteAddress: '10.3.0.2' });
    const token = browser.cookies.get('li_session')!;
    await browser.get('/dashboard/leads');
    const res = await browser.post('/sign-out');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/sign-in?notice=signed-out');
    expect(String(res.headers['set-cookie'])).toMatch(/li_session=; Max-Age=0/);
    expect(browser.cookies.has('li_session')).toBe(false);
    expect(await findSession(ctx.app.deps.database, token)).toBeNull();
    // The old token, replayed, opens nothing.
    const replay = await ctx.app.inject({ url: '/dashboard/leads', cookies: { li_session: token } });
    expect(replay.statusCode).toBe(302);
    expect(textOf((await browser.get('/sign-in?notice=signed-out')).body)).toContain('You are signed out.');
  });

  it('refuses and deletes an expired session', async () => {
    const browser = await signedIn(ctx.app, owner.email, PASSWORD, { remoteAddress: '10.3.0.3' });
    const token = browser.cookies.get('li_session')!;
    await ctx.app.deps.database.db
      .updateTable('sessions')
      .set({ expires_at: Date.now() - 1 })
      .execute();
    const res = await browser.get('/dashboard/leads');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/sign-in?next=%2Fdashboard%2Fleads');
    const row = await ctx.app.deps.database.db
      .selectFrom('sessions')
      .select('id')
      .where('id', '=', createHash('sha256').update(token).digest('hex'))
      .executeTakeFirst();
    expect(row).toBeUndefined();
    // The next sign-in sweeps every other expired session away.
    await signedIn(ctx.app, owner.email, PASSWORD, { remoteAddress: '10.3.0.4' });
    const left = await ctx.app.deps.database.db.selectFrom('sessions').select('expires_at').execute();
    expect(left).toHaveLength(1);
    expect(left[0]!.expires_at).toBeGreaterThan(Date.now());
  });

  it('extends a session while it is used, never beyond 30 days after sign-in', async () => {
    const database = ctx.app.deps.database;
    const db = database.db;
    const start = Date.now();
    const session = await createSession(database, owner.id, start);
    expect(session.expiresAt).toBe(start + SESSION_IDLE_MS);
    const later = start + 3 * 24 * 3600_000;
    expect((await findSession(database, session.token, later))?.expiresAt).toBe(later + SESSION_IDLE_MS);
    const nearEnd = start + SESSION_MAX_MS - 60_000;
    await db
      .updateTable('sessions')
      .set({ expires_at: nearEnd + 1 })
      .where('user_id', '=', owner.id)
      .execute();
    expect((await findSession(database, session.token, nearEnd))?.expiresAt).toBe(start + SESSION_MAX_MS);
    expect(await findSession(database, session.token, start + SESSION_MAX_MS)).toBeNull();
  });

  it('sends signed-out visitors to sign-in and back to the page they wanted, never to another site', async () => {
    const browser = fresh();
    const res = await browser.get('/dashboard/work-items?status=planned');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/sign-in?next=%2Fdashboard%2Fwork-items%3Fstatus%3Dplanned');
    await browser.get(res.headers.location as string);
    expect(browser.lastPage).toContain('name="next" value="/dashboard/work-items?status=planned"');
    const back = await browser.post('/sign-in', {
      email: owner.email,
      password: PASSWORD,
      next: '/dashboard/work-items?status=planned',
    });
    expect(back.headers.location).toBe('/dashboard/work-items?status=planned');
    for (const next of ['https://evil.example/', '//evil.example', '/dashboard//evil.example', '/sign-out']) {
      const other = fresh();
      await other.get('/sign-in');
      const signIn = await other.post('/sign-in', { email: owner.email, password: PASSWORD, next });
      expect(signIn.headers.location).toBe('/dashboard/leads');
    }
  });

  const THROTTLED =
    /Too many failed attempts for this account from your network; try again in \d+ seconds?\./;
  const failures = (subject: string) =>
    ctx.app.deps.database.db
      .selectFrom('sign_in_failures')
      .select('at')
      .where('subject', '=', subject)
      .execute();
  /** Moves every recorded failure back in time, as if `ms` had passed. */
  const later = (ms: number) =>
    ctx.app.deps.database.db
      .updateTable('sign_in_failures')
      .set((eb) => ({ at: eb('at', '-', ms) }))
      .execute();

  it('delays an account from one address after 5 failures: 429 with Retry-After and the sign-in page', async () => {
    const user = await addUser(ctx.app, ctx.brandId, 'throttled@acme.example', 'member');
    const attacker = new Browser(ctx.app, { remoteAddress: '10.8.0.1' });
    await attacker.get('/sign-in');
    for (let i = 0; i < 5; i++) {
      expect(
        (await attacker.post('/sign-in', { email: user.email, password: `guess ${i}` })).statusCode,
      ).toBe(401);
    }
    const res = await attacker.post('/sign-in', { email: user.email, password: PASSWORD });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(textOf(res.body)).toContain(
      'Too many failed attempts for this account from your network; try again in 1 second.',
    );
    expect(res.body).toContain(`value="${user.email}"`);
    expect(res.headers['set-cookie'] ?? '').not.toMatch(/li_session=/);
    // Another instance sees the same failures: they live in the database.
    const other = await secondInstance();
    try {
      const elsewhere = new Browser(other, { remoteAddress: '10.8.0.1' });
      await elsewhere.get('/sign-in');
      expect((await elsewhere.post('/sign-in', { email: user.email, password: PASSWORD })).statusCode).toBe(
        429,
      );
    } finally {
      await other.close();
    }
    // Once the delay has passed, the right password works, and clears that pair's failures.
    await later(1000);
    expect((await attacker.post('/sign-in', { email: user.email, password: PASSWORD })).statusCode).toBe(303);
    expect(await failures(`pair:10.8.0.1|${user.email}`)).toEqual([]);
  });

  it('never locks the owner out from another address, and does not delay other accounts from the attacker’s', async () => {
    const victim = await addUser(ctx.app, ctx.brandId, 'victim@acme.example');
    const colleague = await addUser(ctx.app, ctx.brandId, 'colleague@acme.example', 'member');
    const attacker = new Browser(ctx.app, { remoteAddress: '10.8.1.1' });
    await attacker.get('/sign-in');
    for (let i = 0; i < 5; i++)
      await attacker.post('/sign-in', { email: victim.email, password: `guess ${i}` });
    // A persistent attacker: 10 more failures, each after waiting out its delay, make the delay 15 minutes.
    await ctx.app.deps.database.db
      .insertInto('sign_in_failures')
      .values(
        Array.from({ length: 10 }, () => ({ subject: `pair:10.8.1.1|${victim.email}`, at: Date.now() })),
      )
      .execute();
    const refused = await attacker.post('/sign-in', { email: victim.email, password: PASSWORD });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(900);
    expect(textOf(refused.body)).toMatch(THROTTLED);
    // The owner at home, or a second instance: another address, signed in at once.
    const owner = new Browser(ctx.app, { remoteAddress: '10.8.1.2' });
    await owner.get('/sign-in');
    expect((await owner.post('/sign-in', { email: victim.email, password: PASSWORD })).statusCode).toBe(303);
    // Another account from the attacker's address has no failures of its own.
    const neighbour = new Browser(ctx.app, { remoteAddress: '10.8.1.1' });
    await neighbour.get('/sign-in');
    expect(
      (await neighbour.post('/sign-in', { email: colleague.email, password: PASSWORD })).statusCode,
    ).toBe(303);
    // The owner's sign-in elsewhere does not clear the attacker's pair.
    expect((await attacker.post('/sign-in', { email: victim.email, password: PASSWORD })).statusCode).toBe(
      429,
    );
  });

  it('throttles unknown emails the same way, so throttling reveals nothing', async () => {
    const browser = fresh();
    await browser.get('/sign-in');
    for (let i = 0; i < 5; i++) {
      expect(
        (await browser.post('/sign-in', { email: 'ghost@acme.example', password: 'x' })).statusCode,
      ).toBe(401);
    }
    const res = await browser.post('/sign-in', { email: 'ghost@acme.example', password: 'x' });
    expect(res.statusCode).toBe(429);
    expect(textOf(res.body)).toMatch(THROTTLED);
  });

  it('an address failing on many accounts: delays start at the first failure, but a correct password still works', async () => {
    // 20 earlier failures from this address on other accounts (password spraying).
    await ctx.app.deps.database.db
      .insertInto('sign_in_failures')
      .values(Array.from({ length: 20 }, () => ({ subject: 'address:10.9.9.9', at: Date.now() })))
      .execute();
    const sprayer = new Browser(ctx.app, { remoteAddress: '10.9.9.9' });
    await sprayer.get('/sign-in');
    const member = await addUser(ctx.app, ctx.brandId, 'sprayed@acme.example', 'member');
    expect(
      (await sprayer.post('/sign-in', { email: member.email, password: 'Summer2026!' })).statusCode,
    ).toBe(401);
    const again = await sprayer.post('/sign-in', { email: member.email, password: 'Winter2026!' });
    expect(again.statusCode).toBe(429);
    expect(again.headers['retry-after']).toBe('1');
    // Someone else at that address whose account has no failures from it signs in.
    const office = new Browser(ctx.app, { remoteAddress: '10.9.9.9' });
    await office.get('/sign-in');
    expect((await office.post('/sign-in', { email: owner.email, password: PASSWORD })).statusCode).toBe(303);
  });
});

describe.each(dialects())('CSRF protection on %s', (dialect) => {
  let ctx: TestContext;
  let browser: Browser;
  const keyCount = async () =>
    (
      await ctx.app.deps.database.db
        .selectFrom('api_keys')
        .select('id')
        .where('name', '=', 'Forged')
        .execute()
    ).length;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    await addUser(ctx.app, ctx.brandId, 'owner@acme.example');
    browser = await signedIn(ctx.app, 'owner@acme.example');
    await browser.get('/dashboard/settings/api-keys');
  });
  afterAll(async () => ctx?.close());

  const createKey = (fields: Record<string, string | undefined>, headers: Record<string, string> = {}) =>
    browser.post('/dashboard/settings/api-keys', { name: 'Forged', scopes: 'full', ...fields }, headers);

  it('refuses a signed-in post without the token, with a wrong one, or with another session’s: 403, nothing done', async () => {
    const other = await signedIn(ctx.app, 'owner@acme.example');
    await other.get('/dashboard/leads');
    for (const token of [undefined, '', 'x'.repeat(43), other.csrf]) {
      const res = await createKey({ _csrf: token });
      expect(res.statusCode).toBe(403);
      expect(textOf(res.body)).toContain('This form has expired');
    }
    expect(await keyCount()).toBe(0);
  });

  it('refuses a cross-site post even with the token (Origin or Sec-Fetch-Site)', async () => {
    const forged: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of forged) {
      expect((await createKey({}, headers)).statusCode).toBe(403);
    }
    expect(await keyCount()).toBe(0);
  });

  it('accepts the token from this site', async () => {
    const res = await createKey({}, { origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' });
    expect(res.statusCode).toBe(303);
    expect(await keyCount()).toBe(1);
  });

  it('protects the forms used before sign-in with a cookie-bound token', async () => {
    const visitor = new Browser(ctx.app, { remoteAddress: '10.5.0.1' });
    await visitor.get('/sign-in');
    const token = visitor.csrf;
    expect(visitor.cookies.get('li_form')).toBe(token);
    const noToken = await visitor.post('/sign-in', {
      _csrf: undefined,
      email: 'owner@acme.example',
      password: PASSWORD,
    });
    expect(noToken.statusCode).toBe(403);
    visitor.cookies.delete('li_form');
    const noCookie = await visitor.post('/sign-in', {
      _csrf: token,
      email: 'owner@acme.example',
      password: PASSWORD,
    });
    expect(noCookie.statusCode).toBe(403);
    visitor.cookies.set('li_form', 'y'.repeat(43));
    const mismatch = await visitor.post('/sign-in', {
      _csrf: token,
      email: 'owner@acme.example',
      password: PASSWORD,
    });
    expect(mismatch.statusCode).toBe(403);
  });

  it('signs out only with the token', async () => {
    const res = await browser.post('/sign-out', { _csrf: undefined });
    expect(res.statusCode).toBe(403);
    expect((await browser.get('/dashboard/leads')).statusCode).toBe(200);
  });

  it('accepts only form bodies on dashboard posts: JSON is a 415 page', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/dashboard/settings/api-keys',
      headers: {
        'content-type': 'application/json',
        cookie: `li_session=${browser.cookies.get('li_session')}`,
      },
      payload: JSON.stringify({ name: 'Forged', scopes: 'full', _csrf: browser.csrf }),
    });
    expect(res.statusCode).toBe(415);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const multipart = await ctx.app.inject({
      method: 'POST',
      url: '/sign-in',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x--',
    });
    expect(multipart.statusCode).toBe(415);
  });
});
