// Website forms: the forms API (CRUD, validation, brand isolation) and the public endpoint and pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

const json = { 'content-type': 'application/json' };

describe.each(dialects())('website forms on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const api = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    key = ctx.keys.full,
  ) =>
    ctx.app.inject({
      method,
      url,
      headers: { ...(payload === undefined ? {} : json), 'x-api-key': key },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  const newForm = async (fields: Record<string, unknown> = {}, key = ctx.keys.full) => {
    const res = await api(
      'POST',
      '/v1/forms',
      { name: 'Contact', allowedOrigins: ['https://www.example.nl'], ...fields },
      key,
    );
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  describe('the forms API', () => {
    it('creates a form with its endpoint and a snippet, never the captcha secret', async () => {
      const form = await newForm({
        redirectUrl: 'https://www.example.nl/thanks',
        captcha: { provider: 'turnstile', siteKey: 'site-1', secret: 'very-secret' },
        consentText: 'I agree to be contacted',
        defaults: { priority: 'high', category: 'Plumbing' },
        autoReply: true,
      });
      expect(form.id).toMatch(/^frm_[0-9a-z]{26}$/);
      expect(form).toMatchObject({
        name: 'Contact',
        allowedOrigins: ['https://www.example.nl'],
        redirectUrl: 'https://www.example.nl/thanks',
        honeypotField: '_gotcha',
        captcha: { provider: 'turnstile', siteKey: 'site-1' },
        consentText: 'I agree to be contacted',
        autoReply: true,
        defaults: { priority: 'high', category: 'Plumbing' },
        enabled: true,
      });
      expect(form.endpoint).toBe(`${ctx.app.deps.config.publicUrl.replace(/\/+$/, '')}/f/${form.id}`);
      expect(JSON.stringify(form)).not.toContain('very-secret');
      const snippet = form.snippet as string;
      expect(snippet).toContain(`<form method="post" action="${form.endpoint}"`);
      for (const name of ['street', 'postalCode', 'city', 'customerName', 'email', 'phone', 'title']) {
        expect(snippet).toContain(`name="${name}"`);
        expect(snippet).toContain(`<label for="field-${name}">`);
      }
      expect(snippet).toMatch(/name="_gotcha" value="" tabindex="-1" autocomplete="off"/);
      expect(snippet).toContain('name="consent" value="yes"');
      expect(snippet).not.toContain('<script');
      const read = await api('GET', `/v1/forms/${form.id}`);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual(form);
    });

    it('lists, pages, changes, disables and deletes', async () => {
      const a = await newForm({ name: 'A' });
      const b = await newForm({ name: 'B' });
      const page = await api('GET', '/v1/forms?limit=1');
      expect(page.statusCode).toBe(200);
      expect(page.json().data.map((f: { id: string }) => f.id)).toEqual([b.id]);
      expect(page.json().hasMore).toBe(true);
      const next = await api('GET', `/v1/forms?limit=1&cursor=${page.json().nextCursor}`);
      expect(next.json().data.map((f: { id: string }) => f.id)).toEqual([a.id]);

      const changed = await api('PATCH', `/v1/forms/${a.id}`, {
        enabled: false,
        consentText: 'Yes',
        redirectUrl: null,
        allowedOrigins: ['http://localhost:8080'],
      });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json()).toMatchObject({
        enabled: false,
        consentText: 'Yes',
        allowedOrigins: ['http://localhost:8080'],
      });
      expect((await api('DELETE', `/v1/forms/${a.id}`)).statusCode).toBe(204);
      expect((await api('GET', `/v1/forms/${a.id}`)).statusCode).toBe(404);
      expect((await api('DELETE', `/v1/forms/${a.id}`)).statusCode).toBe(404);
    });

    it('refuses bad origins and URLs with named errors', async () => {
      const res = await api('POST', '/v1/forms', {
        name: ' ',
        allowedOrigins: [
          'http://www.example.nl',
          'https://www.example.nl/contact',
          'not a url',
          'http://127.0.0.1:3000',
        ],
        redirectUrl: '/thanks',
        honeypotField: 'bad name',
        captcha: { provider: 'turnstile', siteKey: '', secret: 'x' },
      });
      expect(res.statusCode).toBe(422);
      const fields = res.json().errors.map((e: { field: string }) => e.field);
      expect(fields).toEqual(
        expect.arrayContaining([
          'name',
          'allowedOrigins[0]',
          'allowedOrigins[1]',
          'allowedOrigins[2]',
          'redirectUrl',
          'honeypotField',
          'captcha.siteKey',
        ]),
      );
      expect(fields).not.toContain('allowedOrigins[3]');
      const missing = await api('POST', '/v1/forms', { name: 'x' });
      expect(missing.statusCode).toBe(422);
    });

    it("keeps brands apart: another brand's form is a 404 and is not listed", async () => {
      const mine = await newForm();
      for (const method of ['GET', 'DELETE'] as const) {
        expect((await api(method, `/v1/forms/${mine.id}`, undefined, ctx.keys.other)).statusCode).toBe(404);
      }
      expect((await api('PATCH', `/v1/forms/${mine.id}`, { name: 'x' }, ctx.keys.other)).statusCode).toBe(
        404,
      );
      const list = await api('GET', '/v1/forms', undefined, ctx.keys.other);
      expect(list.json().data.map((f: { id: string }) => f.id)).not.toContain(mine.id);
    });
  });
});
