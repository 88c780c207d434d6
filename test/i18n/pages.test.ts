// Every page people read, in each language, holds no word of the other language: a string written in code
// instead of a catalog shows up here as an English word on a Dutch page (or the reverse). The words each
// language's catalog uses and the other's does not are the tell; words of the data on the page are left out.
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import { createForm } from '../../src/forms/forms.js';
import { CATALOGS, type Locale } from '../../src/shared/i18n/index.js';
import { apiClient } from '../api.js';
import { addUser, Browser, signedIn, textOf } from '../dashboard/helpers.js';
import { dialects, dropSchema, testConfig, validLead } from '../helpers.js';

function literalText(elements: MessageFormatElement[], out: string[] = []): string[] {
  for (const element of elements) {
    if (element.type === TYPE.literal) out.push(element.value);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      for (const option of Object.values(element.options)) literalText(option.value, out);
    }
    if (element.type === TYPE.tag) literalText(element.children, out);
  }
  return out;
}

const wordsOf = (text: string): string[] => text.toLowerCase().match(/\p{L}[\p{L}'’]*/gu) ?? [];

function catalogWords(locale: Locale): Set<string> {
  const out = new Set<string>();
  for (const message of Object.values(CATALOGS[locale])) {
    for (const text of literalText(parse(message as string))) for (const w of wordsOf(text)) out.add(w);
  }
  return out;
}

// Words both languages write the same, which a catalog may still hold in one language only.
const SHARED = new Set(['utc', 'api', 'csv', 'ical', 'url', 'e', 'mail', 'ok', 'id', 'https', 'http', 'www']);

function onlyIn(locale: Locale): Set<string> {
  const other = catalogWords(locale === 'nl' ? 'en' : 'nl');
  return new Set([...catalogWords(locale)].filter((w) => w.length >= 3 && !other.has(w) && !SHARED.has(w)));
}

/** Time zone names (Europe/Amsterdam, America/Swift_Current) are identifiers, whatever language they look like. */
const ZONE_WORDS = new Set(
  Intl.supportedValuesOf('timeZone').flatMap((zone) => wordsOf(zone.replace(/_/g, ' '))),
);

/**
 * Ids, keys' prefixes and tokens on a page (`frm_01m98drtfq1vjxxs4hfb851and`): random letters between digits,
 * which the word scan would read as words ("and") one run in a few thousand. Eight or more characters of letters,
 * digits, `_` and `-` with a digit among them; no word of either language looks like that.
 */
const TOKEN = /[A-Za-z0-9_-]*[0-9][A-Za-z0-9_-]*/g;

function withoutTokens(text: string): string {
  return text.replace(TOKEN, (token) => (token.length >= 8 ? ' ' : token));
}

/**
 * What a reader sees and hears in prose: the text and the titles, labels, placeholders and alternative texts,
 * without code (`<code>`, `<pre>`, a snippet's `<textarea>`: scope names, event names, commands are the same in
 * every language), without ids and tokens, and without time zone names.
 */
function readable(html: string): string {
  const prose = html.replace(/<(code|pre|textarea|kbd|samp)\b[^>]*>[\s\S]*?<\/\1>/g, ' ');
  const attributes = [...prose.matchAll(/\s(?:title|aria-label|placeholder|alt)="([^"]*)"/g)].map(
    (m) => m[1],
  );
  return wordsOf(withoutTokens(`${textOf(prose)} ${attributes.join(' ')}`))
    .filter((w) => !ZONE_WORDS.has(w))
    .join(' ');
}

describe.each(dialects())('pages in each language on %s', (dialect) => {
  let app: App;
  const pages: Record<Locale, string[]> = { nl: [], en: [] };
  const data = new Set<string>();
  const remember = (...values: string[]) => {
    for (const value of values) for (const w of wordsOf(value)) data.add(w);
  };

  beforeAll(async () => {
    app = await buildApp(testConfig(dialect), { logger: false, defaultMetrics: false });
    await app.ready();
    const database = app.deps.database;
    for (const locale of ['nl', 'en'] as const) {
      const name = locale === 'nl' ? 'Loodgieterij Bakker' : 'Baker Plumbing';
      const brand = await createBrand(database, { name, country: 'NL', language: locale });
      const email = `office-${locale}@example.com`;
      const user = await addUser(app, brand.id, email, 'owner');
      await database.db.updateTable('users').set({ language: locale }).where('id', '=', user.id).execute();
      const { key } = await createApiKey(database, { brandId: brand.id, name: 'site', scopes: ['full'] });
      const lead = validLead({ customerName: 'Sanne Visser', title: 'Kraan lekt', phone: '+31612345678' });
      remember(
        name,
        email,
        'office',
        'example',
        'com',
        'site',
        String(lead.customerName),
        String(lead.title),
      );
      remember(String(lead.street), String(lead.city), String(lead.email), String(lead.postalCode));
      const created = (await apiClient(app, key).post('/v1/leads', lead)).json() as { id: string };
      const form = await createForm(database, brand.id, {
        name: 'Website',
        allowedOrigins: ['https://www.example.nl'],
      });
      remember('Website');
      const browser = await signedIn(app, email);
      const customerId = String(
        ((await apiClient(app, key).get(`/v1/leads/${created.id}`)).json() as { customerId: string })
          .customerId,
      );
      const urls = [
        '/dashboard/leads',
        '/dashboard/work-items',
        '/dashboard/planning',
        '/dashboard/my-visits',
        '/dashboard/spam',
        '/dashboard/leads/new',
        `/dashboard/leads/${created.id}`,
        `/dashboard/leads/${created.id}/edit`,
        `/dashboard/customers/${customerId}`,
        '/dashboard/customers',
        '/dashboard/customers?q=Sanne',
        '/dashboard/customers?q=Zwartjes',
        '/dashboard/search',
        '/dashboard/search?q=Sanne',
        '/dashboard/search?q=Zwartjes',
        '/dashboard/search?q=ab',
        '/dashboard/leads?status=request%2Cquoted%2Ccancelled',
        '/dashboard/settings/api-keys',
        '/dashboard/settings/webhooks',
        '/dashboard/settings/forms',
        '/dashboard/settings/forms/new',
        `/dashboard/settings/forms/${form.id}`,
        '/dashboard/settings/users',
        '/dashboard/settings/brand',
        '/dashboard/settings/account',
        '/dashboard/start',
        '/dashboard/no-such-page',
      ];
      for (const url of urls) {
        const res = await browser.get(url);
        expect([200, 404], url).toContain(res.statusCode);
        expect(res.headers['content-language'], url).toBe(locale);
        expect(res.body, url).toContain(`<html lang="${locale}">`);
        pages[locale].push(`${url}\n${readable(res.body)}`);
      }
      // A 422 of the New lead page: the error summary and the field errors.
      const invalid = await browser.post('/dashboard/leads/new', { source: 'phone', email: 'not-an-email' });
      expect(invalid.statusCode).toBe(422);
      pages[locale].push(`new lead 422\n${readable(invalid.body)}`);
      // Before sign-in the browser's language counts; the hosted form speaks the form's.
      const visitor = new Browser(app, {
        headers: { 'accept-language': locale === 'nl' ? 'nl-NL,nl;q=0.9,en;q=0.5' : 'en-GB,en;q=0.9' },
      });
      for (const url of ['/sign-in', '/forgot-password', '/reset-password?token=x', '/invite?token=x']) {
        const res = await visitor.get(url);
        expect(res.headers['content-language'], url).toBe(locale);
        pages[locale].push(`${url}\n${readable(res.body)}`);
      }
      const hosted = await visitor.get(`/f/${form.id}`);
      expect(hosted.statusCode).toBe(200);
      expect(hosted.headers['content-language']).toBe(locale);
      pages[locale].push(`/f/${form.id}\n${readable(hosted.body)}`);
    }
  }, 120_000);

  afterAll(async () => {
    await dropSchema(app);
    await app.close();
  });

  for (const locale of ['nl', 'en'] as const) {
    it(`${locale === 'nl' ? 'Dutch' : 'English'} pages hold no word only the other language's catalog uses`, () => {
      const foreign = onlyIn(locale === 'nl' ? 'en' : 'nl');
      const found: string[] = [];
      for (const page of pages[locale]) {
        const [url, ...text] = page.split('\n');
        const words = [...new Set(wordsOf(text.join(' ')))].filter((w) => foreign.has(w) && !data.has(w));
        if (words.length) found.push(`${url}: ${words.join(', ')}`);
      }
      expect(found).toEqual([]);
    });
  }

  it('reads no words out of ids and tokens, and still reads the words around them', () => {
    const words = wordsOf(
      withoutTokens('Formulier frm_01m98drtfq1vjxxs4hfb851and, sleutel lik_ab3dthe9 and 2026 1015 CJ'),
    );
    expect(words).toEqual(['formulier', 'sleutel', 'and', 'cj']);
  });

  it('the scan would see a leftover: an English word of the catalog is known as English only', () => {
    expect(onlyIn('en').has('customer') || onlyIn('en').has('leads')).toBe(true);
    expect(onlyIn('nl').has('aanvragen')).toBe(true);
  });
});
