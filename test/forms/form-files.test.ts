// Photos and files with a website form's post: every file part becomes an attachment of the new lead, in the
// lead's own transaction; any refusal stores nothing (no lead, no file); spam keeps its files.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTML, jpeg, pdf, png } from '../attachments/files.js';
import { addUser } from '../dashboard/helpers.js';
import {
  createTestContext,
  dialects,
  formRateLimit,
  type TestContext,
  testConfig,
  waitFor,
} from '../helpers.js';
import { type SmtpReceiver, startSmtp, testMail } from '../mail/smtp.js';
import { multipart, type Part } from '../multipart.js';
import { startS3, type TestS3 } from '../s3.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const SITE = 'https://www.example.nl';

describe.each(dialects())('files with a website form post on %s', (dialect) => {
  let ctx: TestContext;
  let form: { id: string };
  let dutchForm: { id: string };
  beforeAll(async () => {
    ctx = await createTestContext(dialect, {
      rateLimit: formRateLimit(),
    });
    const made = async (body: Record<string, unknown>) => {
      const res = await ctx.api.post('/v1/forms', { allowedOrigins: [SITE], ...body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    form = await made({ name: 'Website' });
    dutchForm = await made({ name: 'Dutch', language: 'nl' });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  let n = 0;
  const fieldParts = (extra: Record<string, string> = {}) => {
    const email = `files${++n}-${dialect}-${Date.now()}@example.com`;
    const values: Record<string, string> = {
      customerName: `Files person ${n}`,
      email,
      street: 'Damrak',
      streetNumber: '1',
      postalCode: '1012 LG',
      city: 'Amsterdam',
      title: 'Leaking roof',
      ...extra,
    };
    return { email, parts: Object.entries(values).map(([field, data]): Part => ({ field, data })) };
  };
  const post = (formId: string, parts: Part[]) => {
    const body = multipart(parts);
    return ctx.app.inject({
      method: 'POST',
      url: `/f/${formId}`,
      headers: { ...body.headers, origin: SITE },
      payload: body.payload,
    });
  };
  const leadsOf = (email: string) =>
    ctx.app.deps.database.db
      .selectFrom('leads as l')
      .innerJoin('customers as c', 'c.id', 'l.customer_id')
      .select(['l.id', 'l.spam', 'l.attachment_count'])
      .where('c.email', '=', email)
      .execute();
  const storedKeys = async () => {
    const keys: string[] = [];
    for await (const object of ctx.app.deps.storage.list()) keys.push(object.key);
    return keys.sort();
  };

  it('the hosted page and the snippet ask for photos, in the form’s language, as a multipart form', async () => {
    const input =
      /<input id="field-attachments" type="file" name="attachments" multiple accept="image\/\*,application\/pdf"/;
    const en = await ctx.app.inject({ method: 'GET', url: `/f/${form.id}` });
    expect(en.body).toMatch(input);
    expect(en.body).toContain('enctype="multipart/form-data"');
    expect(en.body).toContain('Photos <span class="optional">(optional)</span>');
    expect(en.body).toContain('at most 10 files, each up to 10 MB');
    expect(en.body).not.toContain('capture');
    const nl = await ctx.app.inject({ method: 'GET', url: `/f/${dutchForm.id}` });
    expect(nl.body).toContain('Foto&#39;s <span class="optional">(optioneel)</span>');
    const snippet = (await ctx.api.get(`/v1/forms/${dutchForm.id}`)).json().snippet as string;
    expect(snippet).toMatch(input);
    expect(snippet).toContain('enctype="multipart/form-data"');
    expect(snippet).toContain('hoogstens 10 bestanden');
  });

  it('a post with 2 photos: the lead has them (bytes unchanged), lead.created and its list item too', async () => {
    const one = await jpeg(640, 480);
    const two = await png(32, 32);
    const { email, parts } = fieldParts();
    // Fields after the files arrive too; any field name is a file's.
    const res = await post(form.id, [
      ...parts.slice(0, 3),
      { filename: 'kitchen.jpg', type: 'image/jpeg', data: one },
      { field: 'photo', filename: 'roof.png', type: 'image/png', data: two },
      ...parts.slice(3),
    ]);
    expect(res.statusCode, res.body).toBe(303);
    const [lead] = await leadsOf(email);
    expect(lead).toBeDefined();
    expect(Number(lead!.attachment_count)).toBe(2);
    const read = (await ctx.api.get(`/v1/leads/${lead!.id}`)).json();
    expect(read.attachments.map((a: { fileName: string }) => a.fileName).sort()).toEqual([
      'kitchen.jpg',
      'roof.png',
    ]);
    for (const a of read.attachments) {
      expect(a.source).toBe('form');
      expect(a.sha256).toBe(sha256(a.fileName === 'kitchen.jpg' ? one : two));
      const content = await ctx.app.inject({
        method: 'GET',
        url: `/v1/attachments/${a.id}/content`,
        headers: { 'x-api-key': ctx.keys.full },
      });
      expect(sha256(content.rawPayload)).toBe(a.sha256);
    }
    const event = await ctx.app.deps.database.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'lead.created')
      .where('data', 'like', `%${lead!.id}%`)
      .executeTakeFirstOrThrow();
    const created = JSON.parse(event.data).lead;
    expect(created.attachments).toHaveLength(2);
    expect(created.attachments.map((a: { id: string }) => a.id).sort()).toEqual(
      read.attachments.map((a: { id: string }) => a.id).sort(),
    );
    const list = (await ctx.api.get('/v1/leads?limit=100')).json();
    const item = list.data.find((l: { id: string }) => l.id === lead!.id);
    expect(item.attachmentCount).toBe(2);
  });

  it('a file of another type is a 422 naming attachments; nothing is stored, no lead, no file', async () => {
    const keysBefore = await storedKeys();
    const { email, parts } = fieldParts();
    const res = await post(form.id, [
      { filename: 'ok.jpg', type: 'image/jpeg', data: await jpeg(64, 64) },
      { filename: 'page.html', type: 'image/jpeg', data: HTML },
      ...parts,
    ]);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('page.html');
    // The page is shown again with what was typed (the fields after the refused file arrived too).
    expect(res.body).toContain(email);
    expect(await leadsOf(email)).toEqual([]);
    expect(await storedKeys()).toEqual(keysBefore);
  });

  it('the 422 page is in the form’s language', async () => {
    const { email, parts } = fieldParts();
    const res = await post(dutchForm.id, [...parts, { filename: 'x.html', type: 'text/html', data: HTML }]);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-language']).toBe('nl');
    expect(res.body).toContain('<html lang="nl"');
    expect(res.body).toContain('x.html');
    expect(await leadsOf(email)).toEqual([]);
  });

  it('a refusal of the fields stores none of the files', async () => {
    const keysBefore = await storedKeys();
    const { email, parts } = fieldParts({ title: '' });
    const res = await post(form.id, [...parts, { filename: 'a.jpg', data: await jpeg(64, 64) }]);
    expect(res.statusCode, res.body).toBe(422);
    expect(await leadsOf(email)).toEqual([]);
    expect(await storedKeys()).toEqual(keysBefore);
  });

  it('spam keeps its files with the spam lead, without events', async () => {
    const { email, parts } = fieldParts({ _gotcha: 'http://spam.example' });
    const photo = await jpeg(100, 100);
    const res = await post(form.id, [...parts, { filename: 'spam.jpg', data: photo }]);
    expect(res.statusCode, res.body).toBe(303);
    const [lead] = await leadsOf(email);
    expect(lead!.spam).toBe(1);
    expect(Number(lead!.attachment_count)).toBe(1);
    const rows = await ctx.app.deps.database.db
      .selectFrom('attachments')
      .select(['sha256', 'storage_key'])
      .where('lead_id', '=', lead!.id)
      .execute();
    expect(rows.map((r) => r.sha256)).toEqual([sha256(photo)]);
    expect(await storedKeys()).toContain(rows[0]!.storage_key);
    const events = await ctx.app.deps.database.db
      .selectFrom('events')
      .select('id')
      .where('data', 'like', `%${lead!.id}%`)
      .execute();
    expect(events).toEqual([]);
  });

  it('text fields keep the 64 KiB limit together; files do not count towards it', async () => {
    const big = fieldParts({ description: 'x'.repeat(70 * 1024) });
    expect((await post(form.id, big.parts)).statusCode).toBe(413);
    expect(await leadsOf(big.email)).toEqual([]);
    const { email, parts } = fieldParts();
    const quote = pdf(200 * 1024);
    const res = await post(form.id, [...parts, { filename: 'quote.pdf', data: quote }]);
    expect(res.statusCode, res.body).toBe(303);
    expect(Number((await leadsOf(email))[0]!.attachment_count)).toBe(1);
  });
});

describe.each(dialects())('the new-lead mail of a form post with files on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;
  let form: { id: string };
  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createTestContext(dialect, { mail: testMail(smtp.url()) });
    await addUser(ctx.app, ctx.brandId, 'owner@acme.example', 'owner');
    const dutch = await addUser(ctx.app, ctx.brandId, 'eigenaar@acme.example', 'owner');
    await ctx.app.deps.database.db
      .updateTable('users')
      .set({ language: 'nl' })
      .where('id', '=', dutch.id)
      .execute();
    const res = await ctx.api.post('/v1/forms', { name: 'Website', allowedOrigins: [SITE] });
    form = res.json();
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  it('names the files in both languages, and attaches none', async () => {
    const values: Record<string, string> = {
      customerName: 'Mail person',
      email: `mail-${dialect}-${Date.now()}@example.com`,
      street: 'Damrak',
      streetNumber: '1',
      postalCode: '1012 LG',
      city: 'Amsterdam',
      title: `Photos by mail ${dialect}`,
    };
    const body = multipart([
      ...Object.entries(values).map(([field, data]): Part => ({ field, data })),
      { filename: 'lekkage keuken.jpg', data: await jpeg(64, 64) },
      { filename: 'offerte.pdf', data: pdf() },
    ]);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/f/${form.id}`,
      headers: { ...body.headers, origin: SITE },
      payload: body.payload,
    });
    expect(res.statusCode, res.body).toBe(303);
    await waitFor(
      () => smtp.to('owner@acme.example').length + smtp.to('eigenaar@acme.example').length >= 2,
      'two mails',
    );
    const [en] = smtp.to('owner@acme.example');
    const [nl] = smtp.to('eigenaar@acme.example');
    expect(en!.parsed.text).toMatch(/Photos and files:?\s+lekkage keuken\.jpg, offerte\.pdf/);
    expect(en!.parsed.html).toContain('lekkage keuken.jpg, offerte.pdf');
    expect(nl!.parsed.text).toMatch(/Foto's en bestanden:?\s+lekkage keuken\.jpg, offerte\.pdf/);
    expect(en!.parsed.attachments).toEqual([]);
    expect(nl!.parsed.attachments).toEqual([]);
  });
});

describe.each(dialects())('files with a website form post on %s, stored on s3', (dialect) => {
  let ctx: TestContext;
  let s3: TestS3;
  let form: { id: string };
  beforeAll(async () => {
    s3 = await startS3();
    const base = testConfig(dialect).attachments;
    ctx = await createTestContext(dialect, { attachments: { ...base, storage: s3.storage } });
    form = (await ctx.api.post('/v1/forms', { name: 'Website', allowedOrigins: [SITE] })).json();
  });
  afterAll(async () => {
    await ctx?.close();
    await s3?.close();
  });
  const keys = async () => {
    const out: string[] = [];
    for await (const object of ctx.app.deps.storage.list()) out.push(object.key);
    return out.sort();
  };

  it('keeps the photos of a post in the bucket, and a refused post leaves nothing there', async () => {
    const fields = (email: string): Part[] =>
      Object.entries({
        customerName: 'S3 person',
        email,
        street: 'Damrak',
        streetNumber: '1',
        postalCode: '1012 LG',
        city: 'Amsterdam',
        title: 'Cracked tiles',
      }).map(([field, data]) => ({ field, data }));
    const send = (parts: Part[]) => {
      const body = multipart(parts);
      return ctx.app.inject({
        method: 'POST',
        url: `/f/${form.id}`,
        headers: { ...body.headers, origin: SITE },
        payload: body.payload,
      });
    };
    const photo = await jpeg(200, 100);
    const ok = await send([...fields(`s3-${dialect}@example.com`), { filename: 'tiles.jpg', data: photo }]);
    expect(ok.statusCode, ok.body).toBe(303);
    const rows = await ctx.app.deps.database.db
      .selectFrom('attachments')
      .select(['sha256', 'storage_key'])
      .execute();
    expect(rows.map((r) => r.sha256)).toEqual([sha256(photo)]);
    const stored = await keys();
    expect(stored).toContain(rows[0]!.storage_key);
    const refused = await send([
      ...fields(`s3-refused-${dialect}@example.com`),
      { filename: 'a.jpg', data: photo },
      { filename: 'b.html', data: HTML },
    ]);
    expect(refused.statusCode, refused.body).toBe(422);
    expect(await keys()).toEqual(stored);
  });
});
