// A form or multipart post that asks for JSON (Accept: application/json, no text/html), as the fetch example sends
// the form with its photos: answered as a JSON post is, with CORS headers for an allowed origin, the fields read
// as a form's (strings), the files kept. A browser's own post (Accept: text/html…) keeps getting pages.
import { beforeAll, describe, expect, it } from 'vitest';
import { jpeg } from '../attachments/files.js';
import { dialects, formPeople, formRateLimit } from '../helpers.js';
import { multipart, type Part } from '../multipart.js';
import { useTestContext } from '../test-context.js';

const SITE = 'https://www.example.nl';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe.each(dialects())('form posts that ask for JSON on %s', (dialect) => {
  const ctx = useTestContext(dialect, { rateLimit: formRateLimit() });
  let form: { id: string };
  beforeAll(async () => {
    const res = await ctx.api.post('/v1/forms', {
      name: 'Website',
      allowedOrigins: [SITE],
      consentText: 'I agree.',
    });
    expect(res.statusCode, res.body).toBe(201);
    form = res.json();
  });
  const person = formPeople('Json person', (n) => `json${n}-${dialect}@example.com`);
  const fields = (extra: Record<string, string> = {}): Part[] =>
    Object.entries(person({ consent: 'yes', ...extra })).map(([field, data]) => ({ field, data }));
  const post = (parts: Part[], accept: string, origin = SITE) => {
    const body = multipart(parts);
    return ctx.app.inject({
      method: 'POST',
      url: `/f/${form.id}`,
      headers: { ...body.headers, origin, accept },
      payload: body.payload,
    });
  };

  it('a multipart post with a photo gets 201 JSON with CORS for the allowed origin, the photo kept', async () => {
    const photo = await jpeg(200, 100);
    const res = await post([...fields(), { filename: 'roof.jpg', data: photo }], 'application/json');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['access-control-allow-origin']).toBe(SITE);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['id', 'receivedAt', 'status']);
    const lead = (await ctx.api.get(`/v1/leads/${body.id}`)).json();
    // Consent as a form sends it ("yes", a string), read as a form's, not refused as JSON's true.
    expect(lead.consent).toMatchObject({ text: 'I agree.' });
    expect(lead.attachments.map((a: { fileName: string; size: number }) => [a.fileName, a.size])).toEqual([
      ['roof.jpg', photo.length],
    ]);
  });

  it('a refused field is problem+json naming it, with CORS, in the form’s language', async () => {
    const res = await post(fields({ title: ' ' }), 'application/json');
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['access-control-allow-origin']).toBe(SITE);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['title']);
  });

  it('a post over the total is a 413 problem+json the allowed origin may read', async () => {
    const big = Buffer.alloc(26 * 1024 * 1024, 0);
    const res = await post([...fields(), { filename: 'big.pdf', data: big }], 'application/json');
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['access-control-allow-origin']).toBe(SITE);
  });

  it('from an origin the form does not allow: a 403 problem+json that grants that origin nothing', async () => {
    const res = await post(fields(), 'application/json', 'https://elsewhere.example');
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a browser’s own post (Accept with text/html) still gets the redirect and pages', async () => {
    const ok = await post(fields(), BROWSER_ACCEPT);
    expect(ok.statusCode).toBe(303);
    expect(ok.headers['access-control-allow-origin']).toBeUndefined();
    const refused = await post(fields({ title: ' ' }), `${BROWSER_ACCEPT},application/json`);
    expect(refused.statusCode).toBe(422);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
  });
});
