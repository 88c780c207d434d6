// Accounts and webhooks in Dutch: the pages before sign-in follow Accept-Language and the switch, setup and
// invitations choose a language, Your account and Settings > Brand change the user's and the brand's, a common
// Dutch password is refused in Dutch, and the webhooks pages speak the user's language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { createInvite } from '../../src/accounts/invites.js';
import { createSetupLink } from '../../src/accounts/setup.js';
import { expectToContain } from '../expect-text.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { addUser, Browser, signedIn, textOf } from './helpers.js';

const DUTCH = { 'accept-language': 'nl-NL,nl;q=0.9,en;q=0.8' };
const ENGLISH = { 'accept-language': 'en-US,en;q=0.9,nl;q=0.5' };
const STRONG = 'lantaarn haven stilletjes';

/** English words that would give away an untranslated page (whole words, in the text a reader sees). */
const ENGLISH_LEFTOVERS = /\b(Sign in|Password|Email|Your|the|and|Create|Save|Settings)\b/;

function tokenOf(url: string): string {
  return new URL(url).searchParams.get('token')!;
}

describe.each(dialects())('accounts and webhooks in Dutch on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => ctx?.close());

  const db = () => ctx.app.deps.database.db;
  const languageOf = async (email: string) =>
    (await db().selectFrom('users').select('language').where('email', '=', email).executeTakeFirstOrThrow())
      .language;

  it('sets up in Dutch: the page follows Accept-Language, and the new brand and owner speak Dutch', async () => {
    const link = (await createSetupLink(ctx.app.deps.database, 'http://127.0.0.1:3000'))!;
    const browser = new Browser(ctx.app, { headers: DUTCH });
    const form = await browser.get(`/setup?token=${tokenOf(link)}`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('<html lang="nl">');
    expect(form.headers['content-language']).toBe('nl');
    expect(textOf(form.body)).toContain('Welkom bij lead-intake');
    // The language select defaults to the page's language.
    expect(form.body).toContain('<option value="nl" lang="nl" selected>Nederlands</option>');
    expect(form.body).toContain(`hreflang="en"`);

    // A refused password says why in Dutch.
    const weak = await browser.post('/setup', {
      token: tokenOf(link),
      brandName: 'Bakker Loodgieters',
      country: 'NL',
      language: 'nl',
      email: 'eigenaar@bakker.example',
      password: 'zonneschijn1',
      passwordConfirmation: 'zonneschijn1',
    });
    expect(weak.statusCode).toBe(422);
    expect(weak.body).toContain('<html lang="nl">');
    expect(textOf(weak.body)).toContain('Wachtwoord is te makkelijk te raden.');
    expect(textOf(weak.body)).toContain('Er is een probleem');

    const done = await browser.post('/setup', {
      token: tokenOf(link),
      brandName: 'Bakker Loodgieters',
      country: 'NL',
      language: 'nl',
      email: 'eigenaar@bakker.example',
      password: STRONG,
      passwordConfirmation: STRONG,
    });
    expect(done.statusCode).toBe(303);
    const brand = await db()
      .selectFrom('brands')
      .selectAll()
      .where('name', '=', 'Bakker Loodgieters')
      .executeTakeFirstOrThrow();
    expect(brand.language).toBe('nl');
    expect(await languageOf('eigenaar@bakker.example')).toBe('nl');
    expect(done.headers.location).toBe('/dashboard/start?done=welcome');
    const welcome = await browser.get('/dashboard/start?done=welcome');
    expect(welcome.body).toContain('<html lang="nl">');
    expect(textOf(welcome.body)).toContain('Bakker Loodgieters staat klaar.');
    expect(textOf(welcome.body)).toContain('Zet je websiteformulier klaar');
  });

  it('shows sign-in in Dutch or English by Accept-Language, and ?lang= switches and is remembered', async () => {
    const dutch = await new Browser(ctx.app, { headers: DUTCH }).get('/sign-in');
    expect(dutch.body).toContain('<html lang="nl">');
    expect(dutch.headers['content-language']).toBe('nl');
    expect(textOf(dutch.body)).toContain('Inloggen');
    expect(textOf(dutch.body)).toContain('Wachtwoord');
    expect(textOf(dutch.body)).not.toMatch(ENGLISH_LEFTOVERS);
    expect(dutch.body).toContain('<a href="/sign-in?lang=en" hreflang="en" lang="en">English</a>');

    const english = await new Browser(ctx.app, { headers: ENGLISH }).get('/sign-in');
    expect(english.body).toContain('<html lang="en">');
    expect(english.headers['content-language']).toBe('en');
    expect(textOf(english.body)).toContain('Sign in');
    expect(english.body).toContain('<a href="/sign-in?lang=nl" hreflang="nl" lang="nl">Nederlands</a>');

    const switcher = new Browser(ctx.app, { headers: ENGLISH });
    const switched = await switcher.get('/sign-in?lang=nl');
    expect(switched.body).toContain('<html lang="nl">');
    expect(switched.body).toContain('hreflang="en"');
    // The choice is kept: the next page, and a failed sign-in, stay Dutch.
    expect((await switcher.get('/forgot-password')).body).toContain('<html lang="nl">');
    await switcher.get('/sign-in');
    const wrong = await switcher.post('/sign-in', {
      email: 'niemand@example.com',
      password: 'fout fout fout',
    });
    expect(wrong.statusCode).toBe(401);
    expect(textOf(wrong.body)).toContain('E-mailadres of wachtwoord klopt niet.');

    // Dead links say so in Dutch too.
    const visitor = new Browser(ctx.app, { headers: DUTCH });
    const reset = await visitor.get(`/reset-password?token=${'A'.repeat(43)}`);
    expect(reset.statusCode).toBe(404);
    expect(reset.body).toContain('<html lang="nl">');
    expect(textOf(reset.body)).toContain('Deze link om je wachtwoord te herstellen is niet geldig');
    const invite = await visitor.get(`/invite?token=${'A'.repeat(43)}`);
    expect(invite.statusCode).toBe(404);
    expect(textOf(invite.body)).toContain('Deze uitnodigingslink is niet geldig');
    const forgot = await visitor.get('/forgot-password');
    expect(textOf(forgot.body)).toContain('Wachtwoord vergeten?');
    expect(textOf(forgot.body)).not.toMatch(ENGLISH_LEFTOVERS);
  });

  it('changes a user’s language on Your account; the next page is Dutch', async () => {
    await addUser(ctx.app, ctx.brandId, 'kantoor@acme.example', 'member');
    const browser = await signedIn(ctx.app, 'kantoor@acme.example');
    const english = await browser.get('/dashboard/settings/account');
    expect(english.body).toContain('<html lang="en">');
    expect(english.body).toContain('<option value="en" lang="en" selected>English</option>');

    const bad = await browser.post('/dashboard/settings/account/language', { language: 'de' });
    expect(bad.statusCode).toBe(422);
    expect(textOf(bad.body)).toContain('Language: choose Nederlands or English.');

    const saved = await browser.post('/dashboard/settings/account/language', { language: 'nl' });
    expect(saved.statusCode).toBe(303);
    expect(await languageOf('kantoor@acme.example')).toBe('nl');
    const page = await browser.get(saved.headers.location as string);
    expect(page.body).toContain('<html lang="nl">');
    expect(page.headers['content-language']).toBe('nl');
    expectToContain(textOf(page.body), [
      'Je taal is opgeslagen.',
      'Wachtwoord wijzigen',
      'medewerker van Acme Plumbing',
    ]);

    // Changing the password in Dutch: a common Dutch password is refused in Dutch.
    const weak = await browser.post('/dashboard/settings/account/password', {
      currentPassword: 'correct horse battery',
      password: 'goedemorgen1',
      passwordConfirmation: 'goedemorgen1',
    });
    expect(weak.statusCode).toBe(422);
    expect(textOf(weak.body)).toContain('Nieuw wachtwoord is te makkelijk te raden.');
    expect(textOf(weak.body)).not.toContain('too easy');

    const users = await browser.get('/dashboard/settings/users');
    expectToContain(textOf(users.body), [
      'Gebruikers',
      'Medewerker',
      'Mail over nieuwe aanvragen',
      'Geen Wijzig je mail over nieuwe aanvragen',
    ]);
  });

  it('changes the brand’s language on Settings > Brand; new invitations default to it', async () => {
    const brand = await createBrand(ctx.app.deps.database, {
      name: 'Visser Dakwerken',
      country: 'NL',
      language: 'en',
    });
    await addUser(ctx.app, brand.id, 'baas@visser.example', 'owner');
    const admin = await signedIn(ctx.app, 'baas@visser.example');
    const page = await admin.get('/dashboard/settings/brand');
    expect(page.body).toContain('<option value="en" lang="en" selected>English</option>');

    const bad = await admin.post('/dashboard/settings/brand', { language: 'fr' });
    expect(bad.statusCode).toBe(422);
    const saved = await admin.post('/dashboard/settings/brand', { language: 'nl' });
    expect(saved.statusCode).toBe(303);
    const row = await db()
      .selectFrom('brands')
      .select(['language', 'time_zone'])
      .where('id', '=', brand.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ language: 'nl', time_zone: 'Europe/Amsterdam' });
    // The admin keeps their own language.
    expect((await admin.get('/dashboard/settings/brand')).body).toContain('<html lang="en">');

    // The invitation page follows the visitor's language; its select starts at the brand's.
    const invite = await createInvite(ctx.app.deps.database, {
      brandId: brand.id,
      email: 'monteur@visser.example',
      role: 'member',
      invitedBy: 'baas@visser.example',
    });
    const visitor = new Browser(ctx.app, { headers: ENGLISH });
    const join = await visitor.get(`/invite?token=${invite.token}`);
    expect(join.body).toContain('<html lang="en">');
    expect(join.body).toContain('<option value="nl" lang="nl" selected>Nederlands</option>');
    const accepted = await visitor.post('/invite', {
      token: invite.token,
      name: 'Piet',
      language: 'nl',
      password: STRONG,
      passwordConfirmation: STRONG,
    });
    expect(accepted.statusCode).toBe(303);
    expect(await languageOf('monteur@visser.example')).toBe('nl');
  });

  it('shows the webhooks pages in Dutch, with Dutch field errors', async () => {
    const brand = await createBrand(ctx.app.deps.database, {
      name: 'De Vries Installatie',
      country: 'NL',
      language: 'nl',
    });
    const owner = await addUser(ctx.app, brand.id, 'beheer@devries.example', 'owner');
    await db().updateTable('users').set({ language: 'nl' }).where('id', '=', owner.id).execute();
    const admin = await signedIn(ctx.app, 'beheer@devries.example');
    const page = await admin.get('/dashboard/settings/webhooks');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="nl">');
    const text = textOf(page.body);
    expectToContain(text, [
      'Endpoint toevoegen',
      'Er komt een aanvraag binnen (via de API of het dashboard).',
      'Nog geen endpoints.',
    ]);
    expect(text).not.toMatch(/Add an endpoint|No endpoints yet|Description/);

    const refused = await admin.post('/dashboard/settings/webhooks', { url: 'geen url', description: '' });
    expect(refused.statusCode).toBe(422);
    expectToContain(textOf(refused.body), [
      'Er zijn 2 problemen',
      'URL moet een volledige URL zijn',
      'Gebeurtenissen: kies er minstens één.',
    ]);
  });
});
