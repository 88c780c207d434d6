// Photos and files with a request, through the API, on both databases and both storages (files on disk, and a
// real S3-compatible server, s3rver, started here): what is accepted is kept byte for byte, what is refused
// leaves nothing behind, images get metadata-free upright variants, and no stored file outlives its row.
import { createHash } from 'node:crypto';
import exifr from 'exifr';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrphans } from '../../src/attachments/attachments.js';
import { deleteSpam } from '../../src/leads/spam.js';
import { newId } from '../../src/shared/ids.js';
import { createTestContext, dialects, type TestContext, testConfig } from '../helpers.js';
import { multipart, type Part } from '../multipart.js';
import { startS3, type TestS3 } from '../s3.js';
import { HTML, jpeg, pdf, phonePhoto, png, pngBomb, SCRIPT, SVG, zip } from './files.js';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const KIB = 1024;

const cases = dialects().flatMap((dialect) =>
  (['disk', 's3'] as const).map((storage) => [dialect, storage] as const),
);

describe.each(cases)('attachments on %s, stored on %s', (dialect, kind) => {
  let ctx: TestContext;
  let s3: TestS3 | undefined;
  let leadId: string;

  beforeAll(async () => {
    s3 = kind === 's3' ? await startS3() : undefined;
    const base = testConfig(dialect).attachments;
    ctx = await createTestContext(dialect, {
      attachments: {
        ...base,
        storage: s3 ? s3.storage : base.storage,
        maxFileBytes: 256 * KIB,
        maxTotalBytes: 512 * KIB,
      },
    });
    leadId = (await ctx.createLead()).id as string;
  });
  afterAll(async () => {
    await ctx?.close();
    await s3?.close();
  });

  const upload = (lead: string, parts: Part[], key = ctx.keys.full) => {
    const body = multipart(parts);
    return ctx.app.inject({
      method: 'POST',
      url: `/v1/leads/${lead}/attachments`,
      headers: { ...body.headers, 'x-api-key': key },
      payload: body.payload,
    });
  };
  const storedKeys = async () => {
    const keys: string[] = [];
    for await (const object of ctx.app.deps.storage.list()) keys.push(object.key);
    return keys.sort();
  };
  const rowCount = async () =>
    Number(
      (
        await ctx.app.deps.database.db
          .selectFrom('attachments')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const content = (id: string, query = '') =>
    ctx.app.inject({
      method: 'GET',
      url: `/v1/attachments/${id}/content${query}`,
      headers: { 'x-api-key': ctx.keys['leads:read'] },
    });

  /** Sends the parts, expects the given refusal, and that nothing at all was stored. */
  const expectRefused = async (parts: Part[], status: number, lead = leadId) => {
    const keysBefore = await storedKeys();
    const rowsBefore = await rowCount();
    const res = await upload(lead, parts);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(await storedKeys()).toEqual(keysBefore);
    expect(await rowCount()).toBe(rowsBefore);
    return res.json();
  };

  it('keeps a JPEG, a PNG and a PDF byte for byte, with their metadata, on the lead, its list item and events', async () => {
    const lead = (await ctx.createLead()).id as string;
    const files = { photo: await jpeg(640, 480), drawing: await png(300, 200), quote: pdf() };
    const res = await upload(lead, [
      { filename: 'kitchen.jpg', type: 'image/jpeg', data: files.photo },
      { field: 'more', filename: 'plan.png', type: 'image/png', data: files.drawing },
      // The declared type is never believed: the bytes say PDF.
      { filename: 'offerte.pdf', type: 'text/html', data: files.quote },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data as Record<string, unknown>[];
    expect(
      data.map((a) => [a.fileName, a.contentType, a.size, a.sha256, a.width, a.height, a.source, a.leadId]),
    ).toEqual([
      ['kitchen.jpg', 'image/jpeg', files.photo.length, sha256(files.photo), 640, 480, 'api', lead],
      ['plan.png', 'image/png', files.drawing.length, sha256(files.drawing), 300, 200, 'api', lead],
      ['offerte.pdf', 'application/pdf', files.quote.length, sha256(files.quote), null, null, 'api', lead],
    ]);
    for (const [i, bytes] of [files.photo, files.drawing, files.quote].entries()) {
      const id = data[i]!.id as string;
      expect(id).toMatch(/^att_[0-9a-z]{26}$/);
      const got = await content(id);
      expect(got.statusCode).toBe(200);
      expect(sha256(got.rawPayload)).toBe(sha256(bytes));
      expect(got.headers['content-type']).toBe(data[i]!.contentType);
      expect(got.headers['content-length']).toBe(String(bytes.length));
      expect(got.headers['x-content-type-options']).toBe('nosniff');
      expect(got.headers['content-security-policy']).toBe('sandbox');
      expect(got.headers['content-disposition']).toBe(
        `attachment; filename*=UTF-8''${encodeURIComponent(data[i]!.fileName as string)}`,
      );
      expect(got.headers.etag).toBe(`"${sha256(bytes)}"`);
      const again = await ctx.app.inject({
        method: 'GET',
        url: `/v1/attachments/${id}/content`,
        headers: { 'x-api-key': ctx.keys.full, 'if-none-match': got.headers.etag as string },
      });
      expect(again.statusCode).toBe(304);
      expect((await ctx.api.read(`/v1/attachments/${id}`)).sha256).toBe(sha256(bytes));
    }
    const read = await ctx.api.read(`/v1/leads/${lead}`);
    expect(read.attachments).toEqual(data);
    const listed = await ctx.api.read(`/v1/leads/${lead}/attachments?order=asc`);
    expect(listed.data).toEqual(data);
    const items = (await ctx.api.read('/v1/leads?limit=100')).data as {
      id: string;
      attachmentCount: number;
    }[];
    expect(items.find((i) => i.id === lead)?.attachmentCount).toBe(3);
    const events = await ctx.api.read('/v1/events?type=attachment.created&limit=100');
    const mine = (events.data as { data: { attachment: { id: string } } }[]).map((e) => e.data.attachment.id);
    for (const a of data) expect(mine).toContain(a.id);
  });

  it('makes upright previews and thumbnails of a phone photo without any EXIF, GPS or other metadata', async () => {
    const photo = await phonePhoto(1200, 600);
    // The test photo really carries a position and an orientation.
    expect((await exifr.gps(photo))?.latitude).toBeCloseTo(52.37, 1);
    expect((await sharp(photo).metadata()).orientation).toBe(6);
    const res = await upload(leadId, [{ filename: 'IMG_0001.JPG', data: photo }]);
    expect(res.statusCode, res.body).toBe(201);
    const attachment = res.json().data[0];
    // As shown: turned a quarter.
    expect([attachment.width, attachment.height]).toEqual([600, 1200]);
    expect(sha256((await content(attachment.id)).rawPayload)).toBe(sha256(photo));

    for (const [variant, side] of [
      ['preview', 1200],
      ['thumbnail', 320],
    ] as const) {
      for (const round of [1, 2]) {
        const res = await content(attachment.id, `?variant=${variant}`);
        expect(res.statusCode, `${variant} ${round}`).toBe(200);
        expect(res.headers['content-type']).toBe('image/jpeg');
        expect(res.headers['content-disposition']).toBe(
          `attachment; filename*=UTF-8''IMG_0001-${variant}.jpg`,
        );
        const bytes = res.rawPayload;
        expect(res.headers['content-length']).toBe(String(bytes.length));
        const meta = await sharp(bytes).metadata();
        expect(meta.format).toBe('jpeg');
        expect(Math.max(meta.width!, meta.height!)).toBe(side);
        expect(meta.height!).toBeGreaterThan(meta.width!);
        expect(meta.exif).toBeUndefined();
        expect(meta.xmp).toBeUndefined();
        expect(meta.iptc).toBeUndefined();
        expect(meta.icc).toBeUndefined();
        expect(meta.orientation).toBeUndefined();
        expect(await exifr.parse(bytes, true)).toBeUndefined();
        expect(await exifr.gps(bytes)).toBeUndefined();
      }
    }
    // Each variant has its own strong ETag: sent back, it is a 304 without the bytes; another variant's is not.
    const thumbnail = await content(attachment.id, '?variant=thumbnail');
    expect(thumbnail.headers.etag).toBe(`"${sha256(photo)}-thumbnail"`);
    const conditional = (query: string, etag: string) =>
      ctx.app.inject({
        method: 'GET',
        url: `/v1/attachments/${attachment.id}/content${query}`,
        headers: { 'x-api-key': ctx.keys['leads:read'], 'if-none-match': etag },
      });
    const unchanged = await conditional('?variant=thumbnail', thumbnail.headers.etag as string);
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.rawPayload.length).toBe(0);
    expect(unchanged.headers.etag).toBe(thumbnail.headers.etag);
    expect((await conditional('?variant=preview', thumbnail.headers.etag as string)).statusCode).toBe(200);
    // Kept in storage after the first request, under the attachment's id.
    expect(await storedKeys()).toEqual(
      expect.arrayContaining([
        `${attachment.id}/original`,
        `${attachment.id}/preview.jpg`,
        `${attachment.id}/thumbnail.jpg`,
      ]),
    );
  });

  it('has no variants of a PDF, and keeps a truncated JPEG as a file without variants', async () => {
    const whole = await sharp({
      create: {
        width: 800,
        height: 600,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .jpeg()
      .toBuffer();
    const truncated = whole.subarray(0, Math.floor(whole.length / 2));
    const res = await upload(leadId, [
      { filename: 'quote.pdf', data: pdf() },
      { filename: 'cut-off.jpg', data: truncated },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const [document, broken] = res.json().data;
    expect(broken.contentType).toBe('image/jpeg');
    expect(sha256((await content(broken.id)).rawPayload)).toBe(sha256(truncated));
    for (const id of [document.id, broken.id]) {
      for (const variant of ['preview', 'thumbnail']) {
        const res = await content(id, `?variant=${variant}`);
        expect(res.statusCode).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
    }
    expect((await content(document.id, '?variant=large')).statusCode).toBe(422);
  });

  it('takes WebP and GIF with their sizes and variants, and HEIC (which this sharp cannot decode) without', async () => {
    const webp = await sharp({ create: { width: 90, height: 60, channels: 3, background: '#336699' } })
      .webp()
      .toBuffer();
    const gif = await sharp({ create: { width: 30, height: 40, channels: 3, background: '#993366' } })
      .gif()
      .toBuffer();
    // An HEIC's start (its ftyp box says heic) with no decodable image after it.
    const heic = Buffer.concat([
      Buffer.from([0, 0, 0, 0x18]),
      Buffer.from('ftypheic'),
      Buffer.from([0, 0, 0, 0]),
      Buffer.from('mif1heic'),
      Buffer.alloc(200),
    ]);
    const res = await upload(leadId, [
      { filename: 'a.webp', data: webp },
      { filename: 'b.gif', data: gif },
      { filename: 'c.heic', data: heic },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const [a, b, c] = res.json().data;
    expect([a.contentType, a.width, a.height]).toEqual(['image/webp', 90, 60]);
    expect([b.contentType, b.width, b.height]).toEqual(['image/gif', 30, 40]);
    expect([c.contentType, c.width, c.height]).toEqual(['image/heic', null, null]);
    expect((await content(a.id, '?variant=thumbnail')).headers['content-type']).toBe('image/jpeg');
    expect((await content(b.id, '?variant=preview')).statusCode).toBe(200);
    expect((await content(c.id, '?variant=preview')).statusCode).toBe(404);
    expect(sha256((await content(c.id)).rawPayload)).toBe(sha256(heic));
  });

  it.each([
    ['HTML', 'photo.jpg', HTML],
    ['SVG', 'logo.png', SVG],
    ['a script', 'vacation.jpeg', SCRIPT],
    ['a zip archive', 'scan.pdf', zip()],
    ['plain text', 'notes.gif', 'just some text\n'],
    ['an empty file', 'empty.jpg', ''],
  ])(
    'refuses %s under an image name with a 422 naming attachments and the file, storing nothing',
    async (_what, name, data) => {
      const body = await expectRefused(
        [
          { filename: 'fine.pdf', data: pdf() },
          { filename: name, type: 'image/jpeg', data },
        ],
        422,
      );
      expect(body.errors).toEqual([
        { field: 'attachments', message: expect.stringContaining(JSON.stringify(name)) },
      ]);
    },
  );

  it('refuses a file over ATTACHMENT_MAX_BYTES with a 422, and a post over ATTACHMENTS_MAX_TOTAL_BYTES with a 413', async () => {
    const big = await expectRefused(
      [
        { filename: 'ok.pdf', data: pdf() },
        { filename: 'huge.pdf', data: pdf(256 * KIB) },
      ],
      422,
    );
    expect(big.errors).toEqual([
      { field: 'attachments', message: expect.stringMatching(/"huge\.pdf".*256 KiB|"huge\.pdf".*262,144/) },
    ]);
    const total = await expectRefused(
      [0, 1, 2].map((i) => ({ filename: `part-${i}.pdf`, data: pdf(200 * KIB) })),
      413,
    );
    expect(total.detail).toMatch(/attachments/);
  });

  it('refuses 11 files in one post with a 422', async () => {
    const parts = Array.from({ length: 11 }, (_, i) => ({ filename: `f${i}.pdf`, data: pdf() }));
    const body = await expectRefused(parts, 422);
    expect(body.errors[0]).toMatchObject({
      field: 'attachments',
      message: expect.stringContaining('"f10.pdf"'),
    });
  });

  it('refuses a 51st file of a lead with a 422', async () => {
    const lead = (await ctx.createLead()).id as string;
    for (let i = 0; i < 5; i++) {
      const res = await upload(
        lead,
        Array.from({ length: 10 }, (_, j) => ({ filename: `f${i}-${j}.pdf`, data: pdf() })),
      );
      expect(res.statusCode).toBe(201);
    }
    const body = await expectRefused([{ filename: 'one-too-many.pdf', data: pdf() }], 422, lead);
    expect(body.errors[0].field).toBe('attachments');
  });

  it('refuses a decompression bomb (a small PNG of 20000 × 20000 pixels) with a 422', async () => {
    const bomb = pngBomb();
    expect(bomb.length).toBeLessThan(256 * KIB);
    const body = await expectRefused([{ filename: 'bomb.png', data: bomb }], 422);
    expect(body.errors[0]).toMatchObject({
      field: 'attachments',
      message: expect.stringContaining('"bomb.png"'),
    });
  });

  it.each([
    ['a slash', '../../etc/passwd.jpg'],
    ['a backslash', 'C:\\Users\\me\\photo.jpg'],
    ['a control character', 'photo\u0001.jpg'],
    ['a line break', 'photo\r\nX-Injected: 1.jpg'],
    ['300 characters', `${'x'.repeat(296)}.jpg`],
  ])('refuses a file name with %s with a 422, storing nothing', async (_what, name) => {
    const body = await expectRefused([{ filename: name, encodedName: true, data: await jpeg(10, 10) }], 422);
    expect(body.errors[0].field).toBe('attachments');
  });

  it('answers a body that is not multipart with a 415 and multipart without a boundary with a 400', async () => {
    const json = await ctx.api.post(`/v1/leads/${leadId}/attachments`, { file: 'x' });
    expect(json.statusCode).toBe(415);
    expect(json.headers['content-type']).toMatch(/^application\/problem\+json/);
    const noBoundary = await ctx.app.inject({
      method: 'POST',
      url: `/v1/leads/${leadId}/attachments`,
      headers: { 'x-api-key': ctx.keys.full, 'content-type': 'multipart/form-data' },
      payload:
        '--x\r\nContent-Disposition: form-data; name="a"; filename="a.pdf"\r\n\r\n%PDF-1.4\r\n--x--\r\n',
    });
    expect([400, 415]).toContain(noBoundary.statusCode);
    expect(noBoundary.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(noBoundary.json().detail).toMatch(/multipart/i);
    const noFiles = multipart([{ field: 'note', data: 'hello' }]);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/v1/leads/${leadId}/attachments`,
      headers: { ...noFiles.headers, 'x-api-key': ctx.keys.full },
      payload: noFiles.payload,
    });
    expect(res.statusCode).toBe(422);
  });

  it("answers another brand's lead and attachments with a 404, storing nothing", async () => {
    const res = await upload(leadId, [{ filename: 'a.pdf', data: pdf() }]);
    const id = res.json().data[0].id as string;
    await expectRefused(
      [{ filename: 'b.pdf', data: pdf() }],
      404,
      (await ctx.createLead({}, ctx.keys.other)).id as string,
    );
    const other = ctx.api.as(ctx.keys.other);
    for (const url of [
      `/v1/attachments/${id}`,
      `/v1/attachments/${id}/content`,
      `/v1/leads/${leadId}/attachments`,
    ]) {
      expect((await other.get(url)).statusCode, url).toBe(404);
    }
    expect((await other.delete(`/v1/attachments/${id}`)).statusCode).toBe(404);
    expect((await content(id)).statusCode).toBe(200);
  });

  it('deletes an attachment: 204, its bytes and variants gone, the count down, attachment.deleted', async () => {
    const lead = (await ctx.createLead()).id as string;
    const res = await upload(lead, [{ filename: 'a.jpg', data: await jpeg(50, 40) }]);
    const id = res.json().data[0].id as string;
    expect((await content(id, '?variant=thumbnail')).statusCode).toBe(200);
    expect((await storedKeys()).filter((k) => k.startsWith(id))).toHaveLength(2);
    const deleted = await ctx.api.delete(`/v1/attachments/${id}`);
    expect(deleted.statusCode).toBe(204);
    expect((await ctx.api.get(`/v1/attachments/${id}`)).statusCode).toBe(404);
    expect((await ctx.api.delete(`/v1/attachments/${id}`)).statusCode).toBe(404);
    // Bytes go right after the commit.
    await expect.poll(async () => (await storedKeys()).filter((k) => k.startsWith(id))).toEqual([]);
    expect((await ctx.api.read(`/v1/leads/${lead}`)).attachments).toEqual([]);
    const items = (await ctx.api.read('/v1/leads?limit=100')).data as {
      id: string;
      attachmentCount: number;
    }[];
    expect(items.find((i) => i.id === lead)?.attachmentCount).toBe(0);
    const events = await ctx.api.read('/v1/events?type=attachment.deleted&limit=100');
    expect(
      (events.data as { data: { attachment: { id: string } } }[]).map((e) => e.data.attachment.id),
    ).toContain(id);
  });

  it('removes the bytes already written when the transaction then fails (a database trigger refuses the row)', async () => {
    const db = ctx.app.deps.database.db;
    const refuse = "new.file_name = 'refused-by-db.pdf'";
    if (dialect === 'sqlite') {
      await sql
        .raw(`create trigger test_refuse before insert on attachments when ${refuse}
        begin select raise(abort, 'refused by the test trigger'); end`)
        .execute(db);
    } else {
      await sql
        .raw(`create function test_refuse() returns trigger language plpgsql as $$
        begin if ${refuse} then raise exception 'refused by the test trigger'; end if; return new; end $$`)
        .execute(db);
      await sql
        .raw(
          'create trigger test_refuse before insert on attachments for each row execute function test_refuse()',
        )
        .execute(db);
    }
    try {
      const lead = (await ctx.createLead()).id as string;
      await expectRefused(
        [
          { filename: 'fine.jpg', data: await jpeg(20, 20) },
          { filename: 'refused-by-db.pdf', data: pdf() },
        ],
        500,
        lead,
      );
      expect((await ctx.api.read(`/v1/leads/${lead}`)).attachments).toEqual([]);
    } finally {
      await sql
        .raw(dialect === 'sqlite' ? 'drop trigger test_refuse' : 'drop trigger test_refuse on attachments')
        .execute(db);
    }
  });

  it("removes a spam lead's files with it (rows at once, bytes after the commit)", async () => {
    const lead = (await ctx.createLead()).id as string;
    const res = await upload(lead, [{ filename: 'x.pdf', data: pdf() }]);
    const id = res.json().data[0].id as string;
    await ctx.app.deps.database.db.updateTable('leads').set({ spam: 1 }).where('id', '=', lead).execute();
    await deleteSpam(ctx.app.deps.database, ctx.brandId, lead, ctx.app.deps.storage);
    expect(
      await ctx.app.deps.database.db.selectFrom('attachments').select('id').where('id', '=', id).execute(),
    ).toEqual([]);
    await expect.poll(async () => (await storedKeys()).filter((k) => k.startsWith(id))).toEqual([]);
  });

  it('sweeps stored objects no attachment names once they are an hour old, and nothing else', async () => {
    const storage = ctx.app.deps.storage;
    const orphan = newId('attachment');
    await storage.put(`${orphan}/original`, Buffer.from('%PDF-1.4 orphan'), {
      contentType: 'application/pdf',
    });
    await storage.put('unrelated/file.txt', Buffer.from('not ours'), { contentType: 'text/plain' });
    const res = await upload(leadId, [{ filename: 'kept.pdf', data: pdf() }]);
    const kept = res.json().data[0].id as string;
    // Young: left alone (its transaction may still be running).
    expect(await sweepOrphans(ctx.app.deps.database, storage)).toBe(0);
    expect(await storedKeys()).toContain(`${orphan}/original`);
    const removed = await sweepOrphans(ctx.app.deps.database, storage, Date.now() + 2 * 60 * 60 * 1000);
    expect(removed).toBeGreaterThanOrEqual(1);
    const keys = await storedKeys();
    expect(keys).not.toContain(`${orphan}/original`);
    expect(keys).toContain(`${kept}/original`);
    expect(keys).toContain('unrelated/file.txt');
    await storage.delete('unrelated/file.txt');
  });

  it('names the storage in /readyz', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json().checks.attachmentStorage).toBe(kind === 'disk' ? 'disk' : `s3 ${s3!.storage.bucket}`);
  });
});
