// URL settings refuse control characters as sent (issue 29): a form's redirectUrl and allowedOrigins and a webhook
// endpoint's url, through the API, each a 422 naming the field. The URL parser would drop a CR or LF silently
// and keep going; a redirectUrl saved with one made every post answer 500 after storing its lead. Webhook URL
// refusals name the rule, never the address a host name resolves to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formPoster } from '../api.js';
import { createTestContext, dialects, TEST_WEBHOOKS, type TestContext } from '../helpers.js';

const SITE = 'https://www.example.nl';
// CR, LF, CRLF, NUL, tab, ESC (C0), DEL, NEL and CSI (C1): inside the URL, and at its end (a trim would hide it).
const CONTROLS = ['\r', '\n', '\r\n', '\u0000', '\t', '\u001b', '\u007f', '\u0085', '\u009b'];
const inside = (c: string) => `https://www.example.nl/thanks${c}Set-Cookie: a=b`;
const trailing = (c: string) => `https://www.example.nl/thanks${c}`;

describe.each(dialects())('control characters in URL settings on %s', (dialect) => {
  let ctx: TestContext;
  let strict: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect, { webhooks: TEST_WEBHOOKS });
    strict = await createTestContext(dialect, { webhooks: { ...TEST_WEBHOOKS, allowPrivate: false } });
  });
  afterAll(async () => {
    await ctx?.close();
    await strict?.close();
  });

  const count = async (table: 'forms' | 'webhook_endpoints') =>
    (await ctx.app.deps.database.db.selectFrom(table).select('id').execute()).length;

  it('a form refuses them in redirectUrl and in each allowed origin, on create and on change', async () => {
    const before = await count('forms');
    for (const c of CONTROLS) {
      for (const redirectUrl of [inside(c), trailing(c)]) {
        const res = await ctx.api.post('/v1/forms', { name: 'W', allowedOrigins: [SITE], redirectUrl });
        expect(res.statusCode, JSON.stringify(redirectUrl)).toBe(422);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.json().errors).toEqual([
          { field: 'redirectUrl', message: expect.stringMatching(/control characters/) },
        ]);
      }
      const origin = await ctx.api.post('/v1/forms', { name: 'W', allowedOrigins: [SITE, `${SITE}${c}`] });
      expect(origin.statusCode, JSON.stringify(c)).toBe(422);
      expect(origin.json().errors).toEqual([
        { field: 'allowedOrigins[1]', message: expect.stringMatching(/control characters/) },
      ]);
    }
    expect(await count('forms')).toBe(before);
    const form = await ctx.api.post('/v1/forms', { name: 'W', allowedOrigins: [SITE] });
    expect(form.statusCode).toBe(201);
    const patch = await ctx.api.patch(`/v1/forms/${form.json().id}`, { redirectUrl: inside('\r\n') });
    expect(patch.statusCode).toBe(422);
    expect(patch.json().errors[0].field).toBe('redirectUrl');
    expect((await ctx.api.get(`/v1/forms/${form.json().id}`)).json().redirectUrl).toBeNull();
  });

  it('a redirectUrl saved with a line break before it was refused sends the post to the thank-you page', async () => {
    const form = await ctx.api.post('/v1/forms', { name: 'Old', allowedOrigins: [SITE] });
    const id = form.json().id as string;
    await ctx.app.deps.database.db
      .updateTable('forms')
      .set({ redirect_url: inside('\r\n') })
      .where('id', '=', id)
      .execute();
    const res = await formPoster(ctx.app, SITE).form(id, {
      customerName: 'Anna',
      email: 'anna-redirect@example.com',
      street: 'Damrak',
      streetNumber: '1',
      postalCode: '1012 LG',
      city: 'Amsterdam',
      title: 'Tap',
    });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`/f/${id}/thanks`);
    expect(JSON.stringify(res.headers)).not.toContain('Set-Cookie: a=b');
  });

  it('a webhook endpoint refuses them in its url, on create and on change', async () => {
    const before = await count('webhook_endpoints');
    for (const c of CONTROLS) {
      for (const url of [`http://127.0.0.1:9/hook${c}x`, `http://127.0.0.1:9/hook${c}`]) {
        const res = await ctx.api.post('/v1/webhook-endpoints', { url });
        expect(res.statusCode, JSON.stringify(url)).toBe(422);
        expect(res.json().errors).toEqual([
          { field: 'url', message: expect.stringMatching(/control characters/) },
        ]);
      }
    }
    expect(await count('webhook_endpoints')).toBe(before);
    const created = await ctx.api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook' });
    expect(created.statusCode, created.body).toBe(201);
    const patch = await ctx.api.patch(`/v1/webhook-endpoints/${created.json().id}`, {
      url: 'http://127.0.0.1:9/other\n',
    });
    expect(patch.statusCode).toBe(422);
    expect(patch.json().errors[0].field).toBe('url');
  });

  it('a webhook url whose host resolves to a private address names the rule, never the address', async () => {
    for (const url of ['http://localhost:9/hook', 'https://localhost/hook']) {
      const res = await strict.api.post('/v1/webhook-endpoints', { url });
      expect(res.statusCode, url).toBe(422);
      const [error] = res.json().errors;
      expect(error.field).toBe('url');
      expect(error.message).toMatch(/^resolves to a private address/);
      expect(res.body).not.toMatch(/127\.0\.0\.1|::1/);
    }
  });
});
