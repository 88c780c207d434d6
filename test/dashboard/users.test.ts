// Settings > Users: admins add people (initial password or one-time invitation link) and remove them.
import { beforeAll, describe, expect, it } from 'vitest';
import { findSession } from '../../src/accounts/sessions.js';
import { dialects } from '../helpers.js';
import { useTestContext } from '../test-context.js';
import { addUser, Browser, type Browser as BrowserType, signedIn, textOf } from './helpers.js';

describe.each(dialects())('dashboard users on %s', (dialect) => {
  const ctx = useTestContext(dialect);
  let owner: BrowserType;

  beforeAll(async () => {
    await addUser(ctx.app, ctx.brandId, 'owner@acme.example', 'owner');
    owner = await signedIn(ctx.app, 'owner@acme.example');
    await owner.get('/dashboard/settings/users');
  });

  const inviteToken = (html: string) => /\/invite\?token=([A-Za-z0-9_-]{43})/.exec(html)?.[1];
  /** "Add person" without a password, as a browser does it: 303, then the page that shows the link once. */
  const invite = async (fields: Record<string, string>) => {
    const posted = await owner.post('/dashboard/settings/users', fields);
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toMatch(/^\/dashboard\/settings\/users\?invited=inv_[0-9a-z]{26}$/);
    expect(inviteToken(posted.body)).toBeUndefined();
    return owner.get(posted.headers.location as string);
  };
  const userId = async (email: string) =>
    (
      await ctx.app.deps.database.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', email)
        .executeTakeFirst()
    )?.id;

  it('lists the people of the brand; an admin sees the form to add more', async () => {
    const res = await owner.get('/dashboard/settings/users');
    expect(res.statusCode).toBe(200);
    expect(textOf(res.body)).toContain('owner@acme.example (you) Admin');
    expect(res.body).toContain('<label for="field-email">Email</label>');
    expect(res.body).toContain('<label for="role-member">');
    expect(res.body).toContain(
      '<label for="field-password">Initial password <span class="optional">(optional)</span>',
    );
  });

  it('adds a member with an initial password, who can then sign in', async () => {
    const res = await owner.post('/dashboard/settings/users', {
      email: 'fitter@acme.example',
      role: 'member',
      password: 'fitter password 1',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/settings/users?done=added');
    expect(textOf((await owner.get('/dashboard/settings/users?done=added')).body)).toContain(
      'fitter@acme.example Member',
    );
    const fitter = await signedIn(ctx.app, 'fitter@acme.example', 'fitter password 1');
    expect((await fitter.get('/dashboard/leads')).statusCode).toBe(200);
  });

  it('"Add person" is post, redirect, get: reloading or Back adds nobody again, and the link shows once', async () => {
    const withPassword = await owner.post('/dashboard/settings/users', {
      email: 'twice@acme.example',
      role: 'member',
      password: 'twice lantern harbour',
    });
    expect(withPassword.statusCode).toBe(303);
    const added = withPassword.headers.location as string;
    for (let i = 0; i < 2; i++) {
      const page = await owner.get(added);
      expect(page.statusCode).toBe(200);
      expect(textOf(page.body)).toContain('The person is added.');
    }
    const rows = await ctx.app.deps.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'twice@acme.example')
      .execute();
    expect(rows).toHaveLength(1);

    const posted = await owner.post('/dashboard/settings/users', {
      email: 'once@acme.example',
      role: 'member',
    });
    expect(posted.statusCode).toBe(303);
    const target = posted.headers.location as string;
    const first = await owner.get(target);
    const token = inviteToken(first.body)!;
    expect(token).toBeDefined();
    expect(first.body).toContain('id="invite-link"');
    expect(first.body).toContain('data-copy="invite-link"');
    expect(textOf(first.body)).toContain('Invitation link for once@acme.example');
    const reloaded = await owner.get(target);
    expect(reloaded.statusCode).toBe(200);
    expect(inviteToken(reloaded.body)).toBeUndefined();
    expect(textOf(reloaded.body)).toContain(
      'The invitation for once@acme.example is created. Its link was shown once and is not shown again',
    );
    const invites = await ctx.app.deps.database.db
      .selectFrom('user_invites')
      .select('id')
      .where('email', '=', 'once@acme.example')
      .execute();
    expect(invites).toHaveLength(1);
    // The link shown once still works.
    expect((await new Browser(ctx.app).get(`/invite?token=${token}`)).statusCode).toBe(200);
  });

  it('refuses a bad email, a short password, an unknown role and an email that already has an account: 422', async () => {
    const bad = await owner.post('/dashboard/settings/users', {
      email: 'nope',
      role: 'boss',
      password: 'short',
    });
    expect(bad.statusCode).toBe(422);
    expect(textOf(bad.body)).toContain('Role must be admin or member');
    const badEmail = await owner.post('/dashboard/settings/users', {
      email: 'nope',
      role: 'member',
      password: 'short',
    });
    expect(textOf(badEmail.body)).toContain('Email must be a valid email address');
    expect(textOf(badEmail.body)).toContain('Initial password must be at least 10 characters');
    const common = await owner.post('/dashboard/settings/users', {
      email: 'common@acme.example',
      role: 'member',
      password: 'password123456',
    });
    expect(common.statusCode).toBe(422);
    expect(textOf(common.body)).toContain(
      'Initial password is too easy to guess. This is similar to a commonly used password.',
    );
    expect(await userId('common@acme.example')).toBeUndefined();
    const taken = await owner.post('/dashboard/settings/users', {
      email: 'OWNER@acme.example',
      role: 'member',
    });
    expect(taken.statusCode).toBe(422);
    expect(textOf(taken.body)).toContain('Email already belongs to an account');
    expect(await userId('nope')).toBeUndefined();
  });

  it('invites by a one-time link: the person chooses a password, is signed in, and the link dies', async () => {
    const res = await invite({ email: 'planner@acme.example', role: 'owner' });
    expect(res.statusCode).toBe(200);
    const token = inviteToken(res.body)!;
    expect(token).toBeDefined();
    expect(textOf(res.body)).toContain('You will not see it again');
    expect(textOf(res.body)).toMatch(
      /Open invitations Email Role Invited by Expires .*planner@acme\.example Admin owner@acme\.example/,
    );
    expect(await userId('planner@acme.example')).toBeUndefined();
    expect(
      JSON.stringify(await ctx.app.deps.database.db.selectFrom('user_invites').selectAll().execute()),
    ).not.toContain(token);

    const invited = new Browser(ctx.app, { remoteAddress: '10.7.0.1' });
    const form = await invited.get(`/invite?token=${token}`);
    expect(form.statusCode).toBe(200);
    expect(textOf(form.body)).toContain('Join Acme Plumbing');
    expect(textOf(form.body)).toContain('You were invited as planner@acme.example');
    const short = await invited.post('/invite', { token, password: 'short', passwordConfirmation: 'short' });
    expect(short.statusCode).toBe(422);
    const mismatch = await invited.post('/invite', {
      token,
      password: 'planner password',
      passwordConfirmation: 'planner passw0rd',
    });
    expect(textOf(mismatch.body)).toContain('Password again does not match the password');
    const done = await invited.post('/invite', {
      token,
      password: 'planner password',
      passwordConfirmation: 'planner password',
    });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/dashboard/leads');
    expect(textOf((await invited.get('/dashboard/settings/users')).body)).toContain(
      'planner@acme.example (you) Admin',
    );

    const again = new Browser(ctx.app);
    expect((await again.get(`/invite?token=${token}`)).statusCode).toBe(404);
    await again.get('/sign-in');
    const replay = await again.post('/invite', {
      token,
      password: 'replayed passphrase',
      passwordConfirmation: 'replayed passphrase',
    });
    expect(replay.statusCode).toBe(404);
  });

  it('an invitation refuses a common or guessable password beside the field and creates nothing', async () => {
    const res = await invite({ email: 'dispatch@acme.example', role: 'member' });
    const token = inviteToken(res.body)!;
    const invited = new Browser(ctx.app);
    const form = await invited.get(`/invite?token=${token}`);
    expect(textOf(form.body)).toContain(
      'At least 10 characters. A few uncommon words work well; common passwords are refused.',
    );
    const cases = [
      ['qwertyuiop12', 'This is similar to a commonly used password.'],
      // Built from the brand's name (Acme Plumbing) and from the invited email.
      ['AcmePlumbing2026', 'It contains your email address or your company name.'],
      ['Dispatch2026!', 'It contains your email address or your company name.'],
    ];
    for (const [password, why] of cases) {
      const weak = await invited.post('/invite', { token, password, passwordConfirmation: password });
      expect(weak.statusCode).toBe(422);
      expect(weak.body).toContain(
        `<p class="error" id="field-password-error">Password is too easy to guess. ${why} Add more words that are less common.</p>`,
      );
      expect(textOf(weak.body)).toContain(`There is a problem Password is too easy to guess. ${why}`);
      expect(textOf(weak.body)).toContain('You were invited as dispatch@acme.example');
      expect(weak.body).not.toContain(password);
    }
    expect(await userId('dispatch@acme.example')).toBeUndefined();
    // The link still works with a good password.
    const done = await invited.post('/invite', {
      token,
      password: 'dispatch desk lantern',
      passwordConfirmation: 'dispatch desk lantern',
    });
    expect(done.statusCode).toBe(303);
    expect(await userId('dispatch@acme.example')).toBeDefined();
  });

  it('expired and withdrawn invitations do not work', async () => {
    const first = inviteToken((await invite({ email: 'late@acme.example', role: 'member' })).body)!;
    await ctx.app.deps.database.db
      .updateTable('user_invites')
      .set({ expires_at: Date.now() - 1 })
      .where('email', '=', 'late@acme.example')
      .execute();
    expect((await new Browser(ctx.app).get(`/invite?token=${first}`)).statusCode).toBe(404);

    const second = inviteToken((await invite({ email: 'gone@acme.example', role: 'member' })).body)!;
    const id = (
      await ctx.app.deps.database.db
        .selectFrom('user_invites')
        .select('id')
        .where('email', '=', 'gone@acme.example')
        .executeTakeFirstOrThrow()
    ).id;
    const withdrawn = await owner.post(`/dashboard/settings/users/invites/${id}/withdraw`);
    expect(withdrawn.statusCode).toBe(303);
    expect((await new Browser(ctx.app).get(`/invite?token=${second}`)).statusCode).toBe(404);
    expect((await owner.post(`/dashboard/settings/users/invites/${id}/withdraw`)).statusCode).toBe(404);
  });

  it('inviting an address that has an account with another brand answers exactly as for any other address', async () => {
    await addUser(ctx.app, ctx.otherBrandId, 'elsewhere@other.example', 'owner');
    /** What the admin sees when inviting `email` (answer, page, the invitation page), with what varies made neutral. */
    const seen = async (email: string) => {
      const posted = await owner.post('/dashboard/settings/users', { email, role: 'member' });
      const location = String(posted.headers.location);
      const id = /invited=(inv_[0-9a-z]{26})/.exec(location)?.[1] ?? 'none';
      const page = posted.statusCode === 303 ? await owner.get(location) : posted;
      const token = inviteToken(page.body) ?? 'none';
      const join = await new Browser(ctx.app).get(`/invite?token=${token}`);
      const neutral = (text: string) =>
        text
          .replaceAll(email, 'EMAIL')
          .replaceAll(id, 'ID')
          .replaceAll(token, 'TOKEN')
          .replace(/name="_csrf" value="[^"]+"/g, 'name="_csrf"');
      return {
        answer: { status: posted.statusCode, location: neutral(location), body: neutral(posted.body) },
        // The page up to the open invitations (whose expiry times may fall in different minutes).
        page: neutral(textOf(page.body).split('Open invitations')[0]!),
        join: { status: join.statusCode, body: neutral(join.body) },
        token,
      };
    };
    const fresh = await seen('nobody-yet@other.example');
    const taken = await seen('elsewhere@other.example');
    expect(fresh.answer.status).toBe(303);
    expect(taken.answer).toEqual(fresh.answer);
    expect(taken.page).toEqual(fresh.page);
    expect(taken.join).toEqual(fresh.join);
    expect(taken.join.status).toBe(200);
    const invited = await ctx.app.deps.database.db
      .selectFrom('user_invites')
      .select('email')
      .where('brand_id', '=', ctx.brandId)
      .where('email', 'in', ['nobody-yet@other.example', 'elsewhere@other.example'])
      .orderBy('email')
      .execute();
    expect(invited.map((i) => i.email)).toEqual(['elsewhere@other.example', 'nobody-yet@other.example']);

    // Only whoever uses the link learns that the address has an account (one per address in the service):
    // nothing is made, and the account elsewhere is untouched.
    const holder = new Browser(ctx.app);
    await holder.get(`/invite?token=${taken.token}`);
    const accepted = await holder.post('/invite', {
      token: taken.token,
      password: 'a fresh long passphrase',
      passwordConfirmation: 'a fresh long passphrase',
    });
    expect(accepted.statusCode).toBe(409);
    expect(textOf(accepted.body)).toContain(
      'Someone already has an account with this email. Sign in instead.',
    );
    const accounts = await ctx.app.deps.database.db
      .selectFrom('users')
      .select('brand_id')
      .where('email_normalized', '=', 'elsewhere@other.example')
      .execute();
    expect(accounts).toEqual([{ brand_id: ctx.otherBrandId }]);
    expect((await signedIn(ctx.app, 'elsewhere@other.example')).cookies.has('li_session')).toBe(true);
  });

  it('removes a person after a confirmation step; their sessions end at once', async () => {
    await addUser(ctx.app, ctx.brandId, 'leaver@acme.example', 'member');
    const leaver = await signedIn(ctx.app, 'leaver@acme.example');
    const token = leaver.cookies.get('li_session')!;
    const id = (await userId('leaver@acme.example'))!;
    const confirm = await owner.get(`/dashboard/settings/users/${id}/remove`);
    expect(confirm.statusCode).toBe(200);
    expect(textOf(confirm.body)).toContain('Remove leaver@acme.example? They are signed out at once');
    expect((await leaver.get('/dashboard/leads')).statusCode).toBe(200);
    const done = await owner.post(`/dashboard/settings/users/${id}/remove`);
    expect(done.statusCode).toBe(303);
    expect(await userId('leaver@acme.example')).toBeUndefined();
    expect(await findSession(ctx.app.deps.database, token)).toBeNull();
    expect((await leaver.get('/dashboard/leads')).statusCode).toBe(302);
    expect((await owner.post(`/dashboard/settings/users/${id}/remove`)).statusCode).toBe(404);
  });

  it('an admin cannot remove themselves', async () => {
    const id = (await userId('owner@acme.example'))!;
    expect((await owner.get(`/dashboard/settings/users/${id}/remove`)).statusCode).toBe(409);
    expect((await owner.post(`/dashboard/settings/users/${id}/remove`)).statusCode).toBe(409);
    expect(await userId('owner@acme.example')).toBe(id);
  });

  it('a member sees the people but cannot add, invite or remove anyone: 403', async () => {
    await addUser(ctx.app, ctx.brandId, 'member@acme.example', 'member');
    const member = await signedIn(ctx.app, 'member@acme.example');
    const page = await member.get('/dashboard/settings/users');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('Admins add, change and remove people.');
    expect(page.body).not.toContain('action="/dashboard/settings/users"');
    expect(page.body).not.toContain('/remove"');
    const ownerId = (await userId('owner@acme.example'))!;
    const add = await member.post('/dashboard/settings/users', {
      email: 'sneaky@acme.example',
      role: 'owner',
      password: 'sneaky passphrase',
    });
    expect(add.statusCode).toBe(403);
    expect((await member.get(`/dashboard/settings/users/${ownerId}/remove`)).statusCode).toBe(403);
    expect((await member.post(`/dashboard/settings/users/${ownerId}/remove`)).statusCode).toBe(403);
    expect(await userId('sneaky@acme.example')).toBeUndefined();
    expect(await userId('owner@acme.example')).toBe(ownerId);
  });
});
