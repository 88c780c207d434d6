// Website forms end to end in real Chromium (Debian's /usr/bin/chromium via playwright-core): the snippet pasted
// into a page served from another origin (a second local HTTP server), posted with JavaScript off (303 to the
// thanks page or to the form's redirectUrl, the 422 page, the 403 page for an origin that is not allowed) and
// with the fetch example (the fields and photos as multipart asking for JSON, CORS, alert on errors), plus the
// hosted page GET /f/{id}. SQLite only,
// like the dashboard's end-to-end test: the dialect-specific paths of a form post are covered in test/http.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import type { App } from '../../src/app.js';
import { jpeg, pdf } from '../attachments/files.js';
import { addUser } from '../dashboard/helpers.js';
import { waitFor } from '../helpers.js';
import { chromiumRuns, launchChromium, requireChromium } from './chromium.js';
import { type E2eServer, signIn, startServer } from './server.js';

const withChromium = chromiumRuns('the website form end-to-end tests');

const CONSENT = 'I agree that Acme Plumbing contacts me about this request.';
const THANKS_TEXT = 'Thank you. We have received your request and will be in touch.';
const FETCH_THANKS_TEXT = 'Thank you, we received your request.';

/** A plain static site on its own port (its own origin): serves the pages put into `pages`, records hits. */
interface StaticSite {
  origin: string;
  pages: Map<string, string>;
  hits: string[];
  close(): Promise<void>;
}

async function startStaticSite(): Promise<StaticSite> {
  const pages = new Map<string, string>();
  const hits: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://site.invalid');
    hits.push(`${req.method} ${url.pathname}`);
    const page = req.method === 'GET' ? pages.get(url.pathname) : undefined;
    if (page === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pages,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A minimal HTML document around the snippet (and whatever the site adds inside the form, or after it). */
function sitePage(snippet: string, options: { insideForm?: string; after?: string } = {}): string {
  let form = snippet;
  if (options.insideForm) {
    const marker = '<button type="submit"';
    expect(snippet.split(marker)).toHaveLength(2);
    form = snippet.replace(marker, `${options.insideForm}\n${marker}`);
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Contact Acme Plumbing</title>
</head>
<body>
<h1>Contact us</h1>
${form}
${options.after ?? ''}
</body>
</html>`;
}

/** The parts of a lead (GET /v1/leads/{id}) these tests read by name; the rest is matched as objects. */
interface Lead {
  id: string;
  extraFields: Record<string, string> | null;
  [field: string]: unknown;
}

/** One request the app served, seen on its HTTP server (so CORS preflights are visible too). */
interface Served {
  method: string;
  url: string;
  origin: string | undefined;
  status: number;
  allowOrigin: string | undefined;
}

describe.skipIf(!withChromium)('website forms in Chromium, posted from another origin', () => {
  let server: E2eServer;
  let app: App;
  let base: string;
  let site: StaticSite;
  let stranger: StaticSite;
  let browser: Browser;
  let noScript: BrowserContext;
  let withScript: BrowserContext;
  /** The office's browser, signed in to the dashboard, allowed to use the clipboard. */
  let office: Page;
  let apiKey: string;
  /** No redirectUrl (303 to /f/{id}/thanks), consent asked. */
  let thanksForm: { id: string; endpoint: string };
  /** redirectUrl on the static site, no consent. */
  let redirectForm: { id: string; endpoint: string };
  const served: Served[] = [];
  const consoleMessages: string[] = [];
  let n = 0;

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  // ---- where the page text comes from ---------------------------------------------------------------------
  // As a site owner gets it: from the form's page in the dashboard (Settings > Forms), by its copy buttons.

  /** Clicks the copy button of the block with this id on the form's dashboard page; returns the clipboard. */
  async function copyFromDashboard(formId: string, block: string): Promise<string> {
    await office.goto(`${base}/dashboard/settings/forms/${formId}`);
    await office.evaluate('navigator.clipboard.writeText("")');
    await office.locator(`button[data-copy="${block}"]`).click();
    await office.locator(`[data-copy-status="${block}"]`).getByText('Copied.').waitFor();
    return office.evaluate<string>('navigator.clipboard.readText()');
  }
  /** The HTML snippet a site owner pastes: the same text the API hands out. */
  async function snippetFor(formId: string): Promise<string> {
    const copied = await copyFromDashboard(formId, 'form-snippet');
    const res = await api('GET', `/v1/forms/${formId}`);
    expect(copied).toBe(res.body.snippet);
    return copied;
  }
  /** The fetch example shown beside the snippet. */
  async function fetchExampleFor(formId: string): Promise<string> {
    const copied = await copyFromDashboard(formId, 'form-fetch-example');
    expect(copied).toContain('fetch(form.action');
    return copied;
  }
  /** The hosted page's address. */
  async function hostedLinkFor(formId: string): Promise<string> {
    const copied = await copyFromDashboard(formId, 'form-hosted-link');
    expect(copied).toBe(`${base}/f/${formId}`);
    return copied;
  }

  // ---- helpers -------------------------------------------------------------------------------------------

  /** What a person types; the email makes the lead findable. */
  const person = () => {
    n++;
    return {
      title: `Boiler makes a banging noise ${n}`,
      customerName: `Sanne de Vries ${n}`,
      email: `sanne.${n}.${Date.now()}@example.com`,
      phone: '06 1234 5678',
      street: 'Keizersgracht',
      streetNumber: String(100 + n),
      postalCode: '1015 CJ',
      city: 'Amsterdam',
    };
  };
  type Person = ReturnType<typeof person>;

  async function fillIn(page: Page, values: Person, consent: boolean) {
    await page.getByLabel('What do you need?').fill(values.title);
    await page.getByLabel('Your name').fill(values.customerName);
    await page.getByLabel('Email').fill(values.email);
    await page.getByLabel('Phone').fill(values.phone);
    await page.getByLabel('Street').fill(values.street);
    await page.getByLabel('House number').fill(values.streetNumber);
    await page.getByLabel('Postal code').fill(values.postalCode);
    await page.getByLabel('City').fill(values.city);
    if (consent) await page.getByLabel(CONSENT).check();
  }

  const send = (page: Page) => page.getByRole('button', { name: 'Send' }).click();

  /** The stored lead (through the API) whose customer has this email, or undefined. */
  async function leadByEmail(email: string): Promise<Lead | undefined> {
    const list = await api('GET', '/v1/leads?limit=100');
    expect(list.status).toBe(200);
    const item = (list.body.data as { id: string; customer: { email: string } }[]).find(
      (l) => l.customer.email === email,
    );
    if (!item) return undefined;
    const one = await api('GET', `/v1/leads/${item.id}`);
    expect(one.status).toBe(200);
    return one.body as unknown as Lead;
  }

  async function newForm(fields: Record<string, unknown>) {
    const res = await api('POST', '/v1/forms', fields);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; endpoint: string };
  }

  async function openPage(context: BrowserContext, url: string): Promise<Page> {
    const page = await context.newPage();
    page.on('console', (message) => consoleMessages.push(message.text()));
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    return page;
  }

  beforeAll(async () => {
    requireChromium();
    // Seen on the HTTP server, not in a Fastify hook: preflights and every plugin's routes alike. Fastify hands
    // its headers to writeHead() rather than setting them on the response, so they are read there.
    const watchResponses = (built: App) =>
      built.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        let allowOrigin: string | undefined;
        const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
        (res as unknown as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args) => {
          for (const arg of args) {
            if (arg && typeof arg === 'object' && !Array.isArray(arg)) {
              const value = (arg as Record<string, unknown>)['access-control-allow-origin'];
              if (typeof value === 'string') allowOrigin = value;
            }
          }
          return writeHead(...args);
        };
        res.once('finish', () => {
          const set = res.getHeader('access-control-allow-origin');
          served.push({
            method: req.method ?? '',
            url: req.url ?? '',
            origin: req.headers.origin,
            status: res.statusCode,
            allowOrigin: allowOrigin ?? (typeof set === 'string' ? set : undefined),
          });
        });
      });
    server = await startServer('forms-e2e', {
      // Every post comes from 127.0.0.1; the default 10 a minute per form would cap this suite.
      env: { RATE_LIMIT_FORM_POSTS_PER_MINUTE: '1000' },
      beforeListen: watchResponses,
    });
    ({ app, base } = server);
    expect(app.server.address()).toMatchObject({ port: Number(new URL(base).port) });

    const brand = await createBrand(app.deps.database, {
      language: 'en',
      name: 'Acme Plumbing',
      country: 'NL',
    });
    apiKey = (await createApiKey(app.deps.database, { brandId: brand.id, name: 'forms', scopes: ['full'] }))
      .key;
    site = await startStaticSite();
    stranger = await startStaticSite();
    expect(site.origin).not.toBe(base);
    expect(stranger.origin).not.toBe(site.origin);
    site.pages.set('/thanks.html', sitePage('<p id="site-thanks">Thanks from our own site.</p>'));

    thanksForm = await newForm({ name: 'Contact', allowedOrigins: [site.origin], consentText: CONSENT });
    redirectForm = await newForm({
      name: 'Quote',
      allowedOrigins: [site.origin],
      redirectUrl: `${site.origin}/thanks.html`,
    });

    browser = await launchChromium();
    noScript = await browser.newContext({ javaScriptEnabled: false });
    withScript = await browser.newContext();
    // A broken feature shows as a wait that ends with the step named, well within the test's own timeout.
    for (const context of [noScript, withScript]) context.setDefaultTimeout(10_000);
    const officeContext = await browser.newContext();
    officeContext.setDefaultTimeout(10_000);
    await officeContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await addUser(app, brand.id, 'office@acme-plumbing.example', 'owner');
    office = await officeContext.newPage();
    await signIn(office, base, 'office@acme-plumbing.example');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
    await stranger?.close();
  });

  describe('the snippet with JavaScript off', () => {
    it('posts from the other origin, lands on the thanks page, and the lead keeps form, phone, extras, attribution, consent', async () => {
      const snippet = await snippetFor(thanksForm.id);
      expect(snippet).toContain(`action="${thanksForm.endpoint}"`);
      site.pages.set(
        '/contact.html',
        sitePage(snippet, {
          insideForm: `<label for="how">How did you hear about us?</label>
<input id="how" name="howDidYouHear">
<input type="hidden" name="utm_source" value="newsletter">`,
        }),
      );
      const page = await openPage(noScript, `${site.origin}/contact.html`);
      const values = person();
      await fillIn(page, values, true);
      await page.getByLabel('How did you hear about us?').fill('A neighbour');
      const before = served.length;
      await send(page);
      // The thank-you page carries the page the post came from (its Referer: the browser's default policy
      // sends only the origin to another site), which is on an allowed origin, and links back to it.
      await page.waitForURL(
        `${base}/f/${thanksForm.id}/thanks?back=${encodeURIComponent(`${site.origin}/`)}`,
      );
      await expect(page.getByRole('status').textContent()).resolves.toBe(THANKS_TEXT);
      await expect(page.locator('h1').textContent()).resolves.toBe('Acme Plumbing');
      await expect(
        page.getByRole('link', { name: 'Back to the page you came from' }).getAttribute('href'),
      ).resolves.toBe(`${site.origin}/`);

      // The post carried the static site's Origin and was answered with the 303.
      expect(served.slice(before).filter((s) => s.url === `/f/${thanksForm.id}`)).toEqual([
        {
          method: 'POST',
          url: `/f/${thanksForm.id}`,
          origin: site.origin,
          status: 303,
          allowOrigin: undefined,
        },
      ]);

      const lead = await leadByEmail(values.email);
      expect(lead).toMatchObject({
        source: 'form',
        sourceFormId: thanksForm.id,
        sourceFormName: 'Contact',
        title: values.title,
        extraFields: { howDidYouHear: 'A neighbour' },
        attribution: { utm_source: 'newsletter' },
        consent: { text: CONSENT },
        customer: { name: values.customerName, email: values.email, phone: '+31612345678' },
        address: {
          street: 'Keizersgracht',
          streetNumber: values.streetNumber,
          postalCode: '1015 CJ',
          city: 'Amsterdam',
          country: 'NL',
        },
      });
      // Every other field of the snippet arrived empty: none of them became an extra field.
      expect(Object.keys(lead?.extraFields ?? {})).toEqual(['howDidYouHear']);
      await page.close();
    });

    it("the exact snippet of a form with redirectUrl lands on that page of the site's own", async () => {
      site.pages.set('/quote.html', sitePage(await snippetFor(redirectForm.id)));
      const page = await openPage(noScript, `${site.origin}/quote.html`);
      const values = person();
      await fillIn(page, values, false);
      await send(page);
      await page.waitForURL(`${site.origin}/thanks.html`);
      await expect(page.locator('#site-thanks').textContent()).resolves.toBe('Thanks from our own site.');
      expect(site.hits).toContain('GET /thanks.html');
      const lead = await leadByEmail(values.email);
      expect(lead).toMatchObject({
        source: 'form',
        sourceFormId: redirectForm.id,
        extraFields: null,
        attribution: null,
        consent: null,
        customer: { phone: '+31612345678' },
      });
      await page.close();
    });

    it('sends chosen photos with the snippet, JavaScript off: they become the lead’s attachments', async () => {
      site.pages.set('/photos.html', sitePage(await snippetFor(redirectForm.id)));
      const page = await openPage(noScript, `${site.origin}/photos.html`);
      const values = person();
      await fillIn(page, values, false);
      const photo = await jpeg(320, 240);
      await page.getByLabel('Photos').setInputFiles([
        { name: 'boiler.jpg', mimeType: 'image/jpeg', buffer: photo },
        { name: 'quote.pdf', mimeType: 'application/pdf', buffer: pdf() },
      ]);
      await send(page);
      await page.waitForURL(`${site.origin}/thanks.html`);
      const lead = (await leadByEmail(values.email)) as unknown as {
        attachments: { fileName: string; sha256: string; source: string }[];
      };
      expect(lead.attachments.map((a) => [a.fileName, a.source])).toEqual([
        ['boiler.jpg', 'form'],
        ['quote.pdf', 'form'],
      ]);
      expect(lead.attachments[0]!.sha256).toBe(createHash('sha256').update(photo).digest('hex'));
      await page.close();
    });

    it('a required field left blank comes back as the 422 page listing it, with what was typed kept', async () => {
      site.pages.set('/contact-plain.html', sitePage(await snippetFor(thanksForm.id)));
      const page = await openPage(noScript, `${site.origin}/contact-plain.html`);
      const values = person();
      await fillIn(page, values, true);
      // Spaces only: the browser's own `required` check lets it through (an empty field it would stop
      // itself), the service trims it to nothing.
      await page.getByLabel('What do you need?').fill('   ');
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === thanksForm.endpoint),
        send(page),
      ]);
      expect(answer.status()).toBe(422);
      await page.waitForURL(thanksForm.endpoint);
      await expect(page.title()).resolves.toBe('Error: Acme Plumbing');
      const summary = page.getByRole('alert');
      await expect(summary.locator('h2').textContent()).resolves.toBe('There is a problem');
      const items = await summary.locator('li').allTextContents();
      expect(items).toHaveLength(1);
      // The title rule's sentence (the lead field's own text), naming the form's label.
      expect(items[0]).toMatch(/^What do you need\? .+\.$/);
      await expect(summary.locator('a').getAttribute('href')).resolves.toBe('#field-title');
      await expect(page.locator('#field-title').getAttribute('aria-invalid')).resolves.toBe('true');
      // What was typed is still there, the phone as written, the consent still ticked.
      await expect(page.getByLabel('Your name').inputValue()).resolves.toBe(values.customerName);
      await expect(page.getByLabel('Email').inputValue()).resolves.toBe(values.email);
      await expect(page.getByLabel('Phone').inputValue()).resolves.toBe('06 1234 5678');
      await expect(page.getByLabel('Postal code').inputValue()).resolves.toBe('1015 CJ');
      await expect(page.getByLabel(CONSENT).isChecked()).resolves.toBe(true);
      expect(await leadByEmail(values.email)).toBeUndefined();

      // Corrected on the service's own page (its own origin now), it goes through.
      await page.getByLabel('What do you need?').fill(values.title);
      await send(page);
      await page.waitForURL(`${base}/f/${thanksForm.id}/thanks`);
      expect(await leadByEmail(values.email)).toMatchObject({
        title: values.title,
        sourceFormId: thanksForm.id,
      });
      await page.close();
    });

    it('from an origin the form does not allow, the browser shows the 403 page and nothing is stored', async () => {
      stranger.pages.set('/contact.html', sitePage(await snippetFor(thanksForm.id)));
      const page = await openPage(noScript, `${stranger.origin}/contact.html`);
      const values = person();
      await fillIn(page, values, true);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === thanksForm.endpoint),
        send(page),
      ]);
      expect(answer.status()).toBe(403);
      await page.waitForURL(thanksForm.endpoint);
      await expect(page.locator('h1').textContent()).resolves.toBe('This form cannot be sent from here');
      await expect(page.locator('main p').textContent()).resolves.toBe(
        `This website (${stranger.origin}) is not allowed to send requests to this form. Please contact the business another way, for example by phone or email.`,
      );
      expect(await leadByEmail(values.email)).toBeUndefined();
      await page.close();
    });
  });

  describe('the snippet with the fetch example (JavaScript on)', () => {
    it('sends the fields and photos across origins, shows the thank-you text in place, and stores the lead', async () => {
      const example = await fetchExampleFor(thanksForm.id);
      site.pages.set('/contact-js.html', sitePage(await snippetFor(thanksForm.id), { after: example }));
      const url = `${site.origin}/contact-js.html`;
      const page = await openPage(withScript, url);
      const values = person();
      await fillIn(page, values, true);
      const photo = await jpeg(640, 480);
      await page
        .getByLabel('Photos')
        .setInputFiles([{ name: 'meter.jpg', mimeType: 'image/jpeg', buffer: photo }]);
      const before = served.length;
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === thanksForm.endpoint),
        send(page),
      ]);
      expect(answer.status()).toBe(201);
      await page.getByText(FETCH_THANKS_TEXT).waitFor({ timeout: 20_000 });
      expect(page.url()).toBe(url);
      await expect(page.locator('form').count()).resolves.toBe(0);

      // A multipart post asking for JSON is a simple request: no preflight; the answer grants this origin.
      const mine = () => served.slice(before).filter((s) => s.url === `/f/${thanksForm.id}`);
      await waitFor(() => mine().length >= 1, 'the post to be served');
      expect(answer.request().headers()['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(mine()).toEqual([
        {
          method: 'POST',
          url: `/f/${thanksForm.id}`,
          origin: site.origin,
          status: 201,
          allowOrigin: site.origin,
        },
      ]);

      const body = (await answer.json()) as { id: string; status: string };
      const lead = await leadByEmail(values.email);
      expect(lead).toMatchObject({
        id: body.id,
        source: 'form',
        sourceFormId: thanksForm.id,
        consent: { text: CONSENT },
        extraFields: null,
        customer: { phone: '+31612345678' },
      });
      const files = (lead as unknown as { attachments: { fileName: string; sha256: string }[] }).attachments;
      expect(files.map((f) => [f.fileName, f.sha256])).toEqual([
        ['meter.jpg', createHash('sha256').update(photo).digest('hex')],
      ]);
      await page.close();
    });

    it('a failing post shows the problems in an alert naming the field, and the form stays', async () => {
      site.pages.set(
        '/contact-js-2.html',
        sitePage(await snippetFor(thanksForm.id), { after: await fetchExampleFor(thanksForm.id) }),
      );
      const page = await openPage(withScript, `${site.origin}/contact-js-2.html`);
      const values = person();
      await fillIn(page, values, true);
      await page.getByLabel('What do you need?').fill('   ');
      await page.getByLabel('Phone').fill('12');
      // Dismissed at once: an open alert would hold up the click that opened it.
      const alerted = new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no alert within 10 s of sending')), 10_000);
        page.once('dialog', (dialog) => {
          clearTimeout(timer);
          resolve(dialog.message());
          void dialog.dismiss();
        });
      });
      await send(page);
      const message = await alerted;
      // One line per problem: the sentence people read, in the form's language, naming the field by its label.
      const lines = message.split('\n');
      expect(lines).toHaveLength(2);
      expect(lines.filter((line) => line.startsWith('Phone '))).toHaveLength(1);
      expect(lines.filter((line) => /^What do you need\? .+\.$/.test(line))).toHaveLength(1);
      await expect(page.getByLabel('Your name').inputValue()).resolves.toBe(values.customerName);
      expect(await leadByEmail(values.email)).toBeUndefined();
      await page.close();
    });

    it('from an origin the form does not allow, the post is refused unread by the page, and nothing is stored', async () => {
      stranger.pages.set(
        '/contact-js.html',
        sitePage(await snippetFor(thanksForm.id), { after: await fetchExampleFor(thanksForm.id) }),
      );
      const page = await openPage(withScript, `${stranger.origin}/contact-js.html`);
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      const values = person();
      await fillIn(page, values, true);
      await page
        .getByLabel('Photos')
        .setInputFiles([{ name: 'a.jpg', mimeType: 'image/jpeg', buffer: await jpeg(64, 64) }]);
      const before = served.length;
      await send(page);
      // The service refused the post and granted this origin nothing, so the page cannot read the answer.
      const mine = () => served.slice(before).filter((s) => s.url === `/f/${thanksForm.id}`);
      await waitFor(() => mine().length >= 1, 'the post to be served');
      expect(mine()).toEqual([
        {
          method: 'POST',
          url: `/f/${thanksForm.id}`,
          origin: stranger.origin,
          status: 403,
          allowOrigin: undefined,
        },
      ]);
      expect(await leadByEmail(values.email)).toBeUndefined();
      // The script's fetch threw: it says the request could not be sent, and the form is still there.
      await waitFor(() => dialogs[0], 'the alert');
      expect(dialogs).toEqual([
        'Your request could not be sent. Please check your connection and try again. If it keeps failing, this website may not be allowed to send to this form: please contact us another way.',
      ]);
      await expect(page.locator('form').count()).resolves.toBe(1);
      await page.close();
    });
  });

  describe('Settings > Forms (JavaScript on)', () => {
    it('the preview follows the settings as they are typed, and nothing is saved until Save', async () => {
      const form = await newForm({ name: 'Live preview', allowedOrigins: [site.origin] });
      await office.goto(`${base}/dashboard/settings/forms/${form.id}`);
      const preview = office.locator('#form-preview');
      await expect(office.locator('#preview p.muted').textContent()).resolves.toMatch(
        /^Follows your changes/,
      );
      await office.locator('#field-q0-label').fill('What kind of boiler do you have?');
      await preview.getByText('What kind of boiler do you have?').waitFor();
      await office.locator('#field-language').selectOption('nl');
      await preview.getByRole('button', { name: 'Versturen' }).waitFor();
      // Still the saved form for customers and the API.
      const saved = await api('GET', `/v1/forms/${form.id}`);
      expect(saved.body).toMatchObject({ language: 'en', questions: [] });
      await office.getByRole('button', { name: 'Save changes' }).click();
      await office.waitForURL(`${base}/dashboard/settings/forms/${form.id}?done=saved`);
      const after = await api('GET', `/v1/forms/${form.id}`);
      expect(after.body).toMatchObject({
        language: 'nl',
        questions: [{ key: 'what_kind_of_boiler_do_you_have', label: 'What kind of boiler do you have?' }],
      });
    });
  });

  describe('the hosted page GET /f/{id} (JavaScript on)', () => {
    it('is filled in and sent on the service itself, ending on the thanks page', async () => {
      const before = consoleMessages.length;
      const page = await openPage(withScript, await hostedLinkFor(thanksForm.id));
      await expect(page.locator('h1').textContent()).resolves.toBe('Acme Plumbing');
      const values = person();
      await fillIn(page, values, true);
      await send(page);
      await page.waitForURL(`${base}/f/${thanksForm.id}/thanks`);
      await expect(page.getByRole('status').textContent()).resolves.toBe(THANKS_TEXT);
      expect(await leadByEmail(values.email)).toMatchObject({
        source: 'form',
        sourceFormId: thanksForm.id,
        consent: { text: CONSENT },
        customer: { phone: '+31612345678' },
      });
      // Its strict Content-Security-Policy blocks nothing the page itself needs.
      expect(consoleMessages.slice(before).filter((m) => /Content Security Policy|Refused/i.test(m))).toEqual(
        [],
      );
      await page.close();
    });

    it("a form with redirectUrl posted from the hosted page lands on the site's page (form-action allows it)", async () => {
      const before = consoleMessages.length;
      const page = await openPage(withScript, await hostedLinkFor(redirectForm.id));
      const values = person();
      await fillIn(page, values, false);
      await send(page);
      await page.waitForURL(`${site.origin}/thanks.html`);
      await expect(page.locator('#site-thanks').textContent()).resolves.toBe('Thanks from our own site.');
      expect(await leadByEmail(values.email)).toMatchObject({ sourceFormId: redirectForm.id });
      expect(consoleMessages.slice(before).filter((m) => /Content Security Policy|Refused/i.test(m))).toEqual(
        [],
      );
      await page.close();
    });
  });
});
