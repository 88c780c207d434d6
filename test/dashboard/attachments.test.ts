// Photos and files on the office's lead page, on both databases with files on disk: staff upload a photo and a
// PDF through the page's multipart form (CSRF token in the action URL), the page shows a thumbnail and a file
// link, the bytes are served to the lead's brand only, refusals are shown in the user's language and store
// nothing, and a delete removes the file and its bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../src/accounts/sessions.js';
import type { App } from '../../src/app.js';
import { SESSION_COOKIE } from '../../src/platform/web/cookies.js';
import { jpeg, pdf } from '../attachments/files.js';
import { createTestContext, dialects, type TestContext, testConfig } from '../helpers.js';
import { multipart, type Part } from '../multipart.js';
import { addUser, Browser, textOf } from './helpers.js';

async function sessionOf(app: App, userId: string): Promise<Browser> {
  const browser = new Browser(app);
  const session = await createSession(app.deps.database, userId);
  browser.cookies.set(SESSION_COOKIE, session.token);
  return browser;
}

describe.each(dialects())('photos and files on the lead page on %s', (dialect) => {
  let ctx: TestContext;
  let owner: Browser;
  let dutch: Browser;
  let stranger: Browser;
  let leadId: string;

  beforeAll(async () => {
    const base = testConfig(dialect).attachments;
    ctx = await createTestContext(dialect, { attachments: { ...base, maxFileBytes: 64 * 1024 } });
    const db = ctx.app.deps.database.db;
    const sam = await addUser(ctx.app, ctx.brandId, 'sam@acme.example', 'owner');
    const anna = await addUser(ctx.app, ctx.brandId, 'anna@acme.example', 'member');
    await db.updateTable('users').set({ language: 'nl' }).where('id', '=', anna.id).execute();
    const other = await addUser(ctx.app, ctx.otherBrandId, 'olga@other.example', 'owner');
    owner = await sessionOf(ctx.app, sam.id);
    dutch = await sessionOf(ctx.app, anna.id);
    stranger = await sessionOf(ctx.app, other.id);
    leadId = (await ctx.createLead()).id as string;
  });
  afterAll(async () => ctx?.close());

  /** Posts the page's file form as a browser does: multipart, with the session cookie and the token in the URL. */
  const upload = async (browser: Browser, parts: Part[], token = browser.csrf) => {
    const body = multipart(parts);
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return ctx.app.inject({
      method: 'POST',
      url: `/dashboard/leads/${leadId}/attachments?_csrf=${encodeURIComponent(token)}`,
      headers: { ...body.headers, cookie },
      payload: body.payload,
    });
  };
  const storedKeys = async () => {
    const keys: string[] = [];
    for await (const object of ctx.app.deps.storage.list()) keys.push(object.key);
    return keys.sort();
  };
  const attachmentIds = (page: string) => [
    ...new Set(
      [...page.matchAll(/\/dashboard\/attachments\/(att_[A-Za-z0-9_]+)\/content/g)].map((m) => m[1]),
    ),
  ];

  it('uploads a photo and a PDF through the form; the page shows the thumbnail and the PDF link', async () => {
    const page = await owner.get(`/dashboard/leads/${leadId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Photos and files');
    expect(page.body).toContain('enctype="multipart/form-data"');
    expect(page.body).toMatch(
      /<input type="file"[^>]*name="attachments"[^>]*multiple[^>]*accept="image\/\*,application\/pdf"/,
    );
    expect(page.body).toContain(`action="/dashboard/leads/${leadId}/attachments?_csrf=`);

    const res = await upload(owner, [
      { filename: 'kitchen.jpg', type: 'image/jpeg', data: await jpeg(800, 600) },
      { filename: 'quote.pdf', type: 'application/pdf', data: pdf(2000) },
    ]);
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/leads/${leadId}?files=added#files`);

    const after = await owner.get(`/dashboard/leads/${leadId}?files=added`);
    expect(textOf(after.body)).toContain('Photos and files added.');
    const ids = attachmentIds(after.body);
    expect(ids).toHaveLength(2);
    expect(after.body).toMatch(
      /<img src="\/dashboard\/attachments\/att_[^"]+\/content\?variant=thumbnail" alt="kitchen.jpg"/,
    );
    expect(after.body).toMatch(
      /<a class="attachment-thumb" href="\/dashboard\/attachments\/att_[^"]+\/content\?variant=preview"/,
    );
    // The PDF has no thumbnail: its kind stands in its place.
    expect(after.body).toContain(
      '<span class="attachment-thumb attachment-kind" aria-hidden="true">PDF</span>',
    );
    expect(after.body).toMatch(
      /<a href="\/dashboard\/attachments\/att_[^"]+\/content" download>quote.pdf<\/a> <span class="muted">2(\.\d)? kB<\/span>/,
    );
    const rows = await ctx.app.deps.database.db.selectFrom('attachments').select(['source']).execute();
    expect(rows.map((r) => r.source)).toEqual(['dashboard', 'dashboard']);
  });

  it('serves the thumbnail to the brand, a 404 to another brand, and sign-in to nobody', async () => {
    const page = await owner.get(`/dashboard/leads/${leadId}`);
    const thumb = /<img src="([^"]+)" alt="kitchen.jpg"/.exec(page.body)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(thumb).toContain('variant=thumbnail');

    const res = await owner.get(thumb);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toContain('private');
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));

    const pdfHref = /<a href="([^"]+)" download>quote.pdf/.exec(page.body)?.[1] ?? '';
    const original = await owner.get(pdfHref);
    expect(original.statusCode).toBe(200);
    expect(original.headers['content-type']).toBe('application/pdf');
    expect(original.headers['content-disposition']).toBe("attachment; filename*=UTF-8''quote.pdf");
    expect((await owner.get(`${pdfHref}?variant=thumbnail`)).statusCode).toBe(404);

    // Conditional GETs: the strong ETag of what was served, sent back, is a 304 without the bytes.
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{64}-thumbnail"$/);
    const unchanged = await owner.get(thumb, { 'if-none-match': res.headers.etag as string });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.rawPayload.length).toBe(0);
    expect(original.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect((await owner.get(pdfHref, { 'if-none-match': original.headers.etag as string })).statusCode).toBe(
      304,
    );
    expect((await owner.get(pdfHref, { 'if-none-match': res.headers.etag as string })).statusCode).toBe(200);

    expect((await stranger.get(thumb)).statusCode).toBe(404);
    expect((await stranger.get(pdfHref)).statusCode).toBe(404);
    const signedOut = await new Browser(ctx.app).get(thumb);
    expect(signedOut.statusCode).toBe(302);
    expect(signedOut.headers.location).toMatch(/^\/sign-in\?next=/);
  });

  it('refuses a file that is not a photo or PDF with a 422 in Dutch and stores nothing', async () => {
    await dutch.get(`/dashboard/leads/${leadId}`);
    const before = await storedKeys();
    const res = await upload(dutch, [
      { filename: 'ok.jpg', type: 'image/jpeg', data: await jpeg(100, 100) },
      { filename: 'notes.txt', type: 'text/plain', data: 'just some text' },
    ]);
    expect(res.statusCode).toBe(422);
    const text = textOf(res.body);
    expect(text).toContain("Foto's en bestanden: “notes.txt” is geen foto of pdf");
    expect(await storedKeys()).toEqual(before);
    expect(attachmentIds(res.body)).toHaveLength(2);
  });

  it('refuses a file over the limit and a form post that is not multipart, storing nothing', async () => {
    await owner.get(`/dashboard/leads/${leadId}`);
    const before = await storedKeys();
    const big = await upload(owner, [
      { filename: 'plan.pdf', type: 'application/pdf', data: pdf(70 * 1024) },
    ]);
    expect(big.statusCode).toBe(422);
    expect(textOf(big.body)).toContain('Photos and files: “plan.pdf” is larger than 65,536 bytes.');
    const none = await upload(owner, [{ filename: '', type: 'application/octet-stream', data: '' }]);
    expect(none.statusCode).toBe(422);
    expect(textOf(none.body)).toContain('Photos and files: choose one or more photos or files first.');
    const form = await owner.post(`/dashboard/leads/${leadId}/attachments?_csrf=${owner.csrf}`, {});
    expect(form.statusCode).toBe(415);
    expect(await storedKeys()).toEqual(before);
  });

  it('refuses a post without the form token, and a token in the body is not enough', async () => {
    await owner.get(`/dashboard/leads/${leadId}`);
    const res = await upload(
      owner,
      [{ filename: 'a.jpg', type: 'image/jpeg', data: await jpeg(50, 50) }],
      'x',
    );
    expect(res.statusCode).toBe(403);
    const inBody = await upload(
      owner,
      [
        { field: '_csrf', data: owner.csrf },
        { filename: 'a.jpg', type: 'image/jpeg', data: await jpeg(50, 50) },
      ],
      '',
    );
    expect(inBody.statusCode).toBe(403);
    expect(attachmentIds((await owner.get(`/dashboard/leads/${leadId}`)).body)).toHaveLength(2);
  });

  it('deletes a file and its bytes after a confirm step, back on the page with a notice', async () => {
    const page = await owner.get(`/dashboard/leads/${leadId}`);
    const id = /<a href="\/dashboard\/attachments\/(att_[^/]+)\/content" download>quote.pdf/.exec(
      page.body,
    )?.[1];
    expect(id).toBeTruthy();
    expect(page.body).toContain(
      `action="/dashboard/attachments/${id}/delete" data-confirm="Delete “quote.pdf”?`,
    );
    const keysBefore = await storedKeys();
    expect(keysBefore.some((key) => key.includes(id as string))).toBe(true);

    // Another brand's user, with a valid form token of their own: the file is not there for them.
    await stranger.get('/dashboard/leads');
    expect((await stranger.post(`/dashboard/attachments/${id}/delete`)).statusCode).toBe(404);

    const res = await owner.post(`/dashboard/attachments/${id}/delete`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/leads/${leadId}?files=deleted#files`);
    const after = await owner.get(`/dashboard/leads/${leadId}?files=deleted`);
    expect(textOf(after.body)).toContain('File deleted.');
    expect(after.body).not.toContain('quote.pdf');
    expect((await storedKeys()).some((key) => key.includes(id as string))).toBe(false);
    expect((await owner.get(`/dashboard/attachments/${id}/content`)).statusCode).toBe(404);
  });
});
