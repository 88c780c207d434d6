// Settings > API keys: create (shown once), list, revoke with confirmation; keys work and stop working at once.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../src/accounts/api-keys.js';
import { escapeHtml } from '../../src/platform/web/html.js';
import { expectToContain } from '../expect-text.js';
import { createTestContext, dialects, type TestContext, validLead } from '../helpers.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

const KEY = /lik_[A-Za-z0-9_-]{43}/g;

describe.each(dialects())('dashboard API keys on %s', (dialect) => {
  let ctx: TestContext;
  let browser: Browser;

  beforeAll(async () => {
    // A long cache, so "refused at once" proves the dashboard drops it rather than waiting it out.
    ctx = await createTestContext(dialect, { keyCacheTtlMs: 300_000 });
    // API keys are for admins (stored role 'owner'); test/dashboard/roles.test.ts covers what members get.
    await addUser(ctx.app, ctx.brandId, 'office@acme.example', 'owner');
    browser = await signedIn(ctx.app, 'office@acme.example');
  });
  afterAll(async () => ctx?.close());

  const create = (fields: Record<string, string | string[]>) =>
    browser.post('/dashboard/settings/api-keys', {
      name: '',
      scopes: [],
      readsPerMinute: '',
      writesPerMinute: '',
      ...fields,
    });
  /** "Create key" as a browser does it: the post answers 303, the page it leads to shows the key (once). */
  const createAndShow = async (fields: Record<string, string | string[]>) => {
    const posted = await create(fields);
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toMatch(/^\/dashboard\/settings\/api-keys\?created=key_[0-9a-z]{26}$/);
    expect(posted.body.match(KEY)).toBeNull();
    return browser.get(posted.headers.location as string);
  };

  it('offers a name, every scope (customers:read too) each with what it grants, and optional limits per minute', async () => {
    const res = await browser.get('/dashboard/settings/api-keys');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<label for="field-name">Name</label>');
    expect(SCOPES).toContain('customers:read');
    for (const scope of SCOPES) {
      expectToContain(res.body, [
        `<input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}"`,
        `<label for="scope-${scope}"><code>${scope}</code></label>`,
        `id="scope-${scope}-hint">${escapeHtml(SCOPE_DESCRIPTIONS[scope])}</p>`,
      ]);
    }
    expect(res.body).toContain('<label for="field-readsPerMinute">Reads per minute <span class="optional">');
    expect(textOf(res.body)).toContain(
      `Empty for the default (${ctx.app.deps.config.rateLimit.readsPerMinute})`,
    );
    expect(textOf(res.body)).toContain(
      `Empty for the default (${ctx.app.deps.config.rateLimit.writesPerMinute})`,
    );
  });

  it('creates a key and shows it once, with a copy button and a warning; it works against the API at once', async () => {
    const res = await createAndShow({ name: 'Website form', scopes: ['leads:write', 'leads:read'] });
    expect(res.statusCode).toBe(200);
    const shown = [...new Set(res.body.match(KEY))];
    expect(shown).toHaveLength(1);
    const key = shown[0]!;
    expect(res.body).toContain(`<input id="new-key" class="mono" type="text" value="${key}" readonly`);
    expect(res.body).toContain('data-copy="new-key"');
    expect(textOf(res.body)).toContain('Copy it now. You will not see it again');
    expect(res.headers['cache-control']).toBe('no-store');

    const created = await ctx.api.post('/v1/leads', validLead({ title: 'First web lead' }), { key });
    expect(created.statusCode).toBe(201);
    expect((await ctx.api.get('/v1/leads', { key })).statusCode).toBe(200);

    const list = await browser.get('/dashboard/settings/api-keys');
    expect(list.body).not.toContain(key);
    expect(list.body.match(KEY)).toBeNull();
    const row = textOf(
      /<tr>\s*<td data-label="Name" class="cell-title">Website form[\s\S]*?<\/tr>/.exec(list.body)![0],
    );
    expectToContain(row, [
      `lik_${key.slice(4, 12)}…`,
      'leads:read leads:write',
      'by office@acme.example',
      'Active',
    ]);
    // Last used is recorded off the request path: wait for it, then the list shows a time, not "Never".
    await vi.waitFor(async () => {
      const stored = await ctx.app.deps.database.db
        .selectFrom('api_keys')
        .select('last_used_at')
        .where('name', '=', 'Website form')
        .executeTakeFirstOrThrow();
      expect(stored.last_used_at).not.toBeNull();
    });
    const used = await browser.get('/dashboard/settings/api-keys');
    const usedRow = /<tr>\s*<td data-label="Name" class="cell-title">Website form[\s\S]*?<\/tr>/.exec(
      used.body,
    )![0];
    expect(usedRow).toMatch(
      /<td data-label="Last used"><time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z" title="Europe\/Amsterdam">/,
    );
  });

  it('creates a customers:read key: it reads customers and nothing else', async () => {
    const res = await createAndShow({ name: 'CRM import', scopes: ['customers:read'] });
    expect(res.statusCode).toBe(200);
    const key = [...new Set(res.body.match(KEY))][0]!;
    expect((await ctx.api.get('/v1/customers', { key })).statusCode).toBe(200);
    expect((await ctx.api.get('/v1/leads', { key })).statusCode).toBe(403);
    const list = await browser.get('/dashboard/settings/api-keys');
    const row = /<tr>\s*<td data-label="Name" class="cell-title">CRM import[\s\S]*?<\/tr>/.exec(
      list.body,
    )![0];
    expect(textOf(row)).toContain('customers:read');
  });

  it('"Create key" is post, redirect, get: reloading or going Back shows the key no more and creates no second one', async () => {
    const count = async () =>
      (
        await ctx.app.deps.database.db
          .selectFrom('api_keys')
          .select('id')
          .where('name', '=', 'Reloaded')
          .execute()
      ).length;
    const posted = await create({ name: 'Reloaded', scopes: ['leads:read'] });
    expect(posted.statusCode).toBe(303);
    const target = posted.headers.location as string;
    const first = await browser.get(target);
    const key = first.body.match(KEY)![0]!;
    expect(textOf(first.body)).toContain('Your new key “Reloaded”');
    expect((await ctx.api.get('/v1/leads', { key })).statusCode).toBe(200);

    // Reload (or Back to the same URL): a GET, so nothing is created; the secret is gone from the page.
    const reloaded = await browser.get(target);
    expect(reloaded.statusCode).toBe(200);
    expect(reloaded.body.match(KEY)).toBeNull();
    expect(reloaded.body).not.toContain('id="new-key"');
    expect(textOf(reloaded.body)).toContain(
      'Key “Reloaded” is created. Its secret was shown once and is not shown again',
    );
    expect(await count()).toBe(1);

    // The stored flash is encrypted and gone once read.
    expect(await ctx.app.deps.database.db.selectFrom('dashboard_flashes').selectAll().execute()).toEqual([]);
  });

  it('shows a new key only to the session that created it, and only for a few minutes', async () => {
    const posted = await create({ name: 'Elsewhere', scopes: ['leads:read'] });
    const target = posted.headers.location as string;
    const stored = await ctx.app.deps.database.db
      .selectFrom('dashboard_flashes')
      .select(['payload', 'expires_at'])
      .executeTakeFirstOrThrow();
    // Encrypted: the key's secret is not in the row.
    expect(stored.payload).not.toMatch(/lik_/);
    expect(Buffer.from(stored.payload, 'base64url').toString('latin1')).not.toContain('lik_');

    // The same admin in another browser sees the note, not the key, and does not use up the flash.
    const other = await signedIn(ctx.app, 'office@acme.example');
    const elsewhere = await other.get(target);
    expect(elsewhere.body.match(KEY)).toBeNull();
    expect(textOf(elsewhere.body)).toContain('Key “Elsewhere” is created. Its secret was shown once');
    expect(await ctx.app.deps.database.db.selectFrom('dashboard_flashes').selectAll().execute()).toHaveLength(
      1,
    );

    // Expired (moved back, no waiting): not shown, and the row is gone.
    await ctx.app.deps.database.db
      .updateTable('dashboard_flashes')
      .set({ expires_at: Date.now() - 1 })
      .execute();
    const late = await browser.get(target);
    expect(late.body.match(KEY)).toBeNull();
    expect(await ctx.app.deps.database.db.selectFrom('dashboard_flashes').selectAll().execute()).toEqual([]);
  });

  it('stores the limits per minute given', async () => {
    const res = await create({
      name: 'Limited',
      scopes: ['full'],
      readsPerMinute: '30',
      writesPerMinute: ' 5 ',
    });
    expect(res.statusCode).toBe(303);
    const row = await ctx.app.deps.database.db
      .selectFrom('api_keys')
      .select(['reads_per_minute', 'writes_per_minute', 'scopes', 'created_by'])
      .where('name', '=', 'Limited')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      reads_per_minute: 30,
      writes_per_minute: 5,
      scopes: 'full',
      created_by: 'office@acme.example',
    });
  });

  it('bad input is a 422 naming each field, keeps what was typed, and stores nothing', async () => {
    const before = (await ctx.app.deps.database.db.selectFrom('api_keys').select('id').execute()).length;
    const res = await create({ name: '  ', readsPerMinute: 'lots', writesPerMinute: '0' });
    expect(res.statusCode).toBe(422);
    const text = textOf(res.body);
    expectToContain(text, [
      'There are 4 problems',
      'Name is required',
      'Scopes at least one scope is required',
      'Reads per minute must be a whole number from 1 to 1000000',
      'Writes per minute must be a whole number from 1 to 1000000',
    ]);
    expect(res.body).toContain('value="lots"');
    const unknown = await create({ name: 'Odd', scopes: ['leads:read', 'admin'] });
    expect(unknown.statusCode).toBe(422);
    expect(textOf(unknown.body)).toContain('Scopes unknown scope admin');
    expect(unknown.body).toContain(
      'id="scope-leads:read" name="scopes" value="leads:read" aria-describedby="scope-leads:read-hint" checked',
    );
    expect(unknown.body.match(KEY)).toBeNull();
    expect((await ctx.app.deps.database.db.selectFrom('api_keys').select('id').execute()).length).toBe(
      before,
    );
  });

  it('revokes only after a confirmation step; this instance refuses the key at once', async () => {
    const res = await createAndShow({ name: 'To revoke', scopes: ['leads:read'] });
    const key = res.body.match(KEY)![0]!;
    expect((await ctx.api.get('/v1/leads', { key })).statusCode).toBe(200); // now cached for five minutes
    const id = (
      await ctx.app.deps.database.db
        .selectFrom('api_keys')
        .select('id')
        .where('name', '=', 'To revoke')
        .executeTakeFirstOrThrow()
    ).id;

    const list = await browser.get('/dashboard/settings/api-keys');
    expect(list.body).toContain(
      `href="/dashboard/settings/api-keys/${id}/revoke">Revoke<span class="visually-hidden"> To revoke</span>`,
    );
    const confirm = await browser.get(`/dashboard/settings/api-keys/${id}/revoke`);
    expect(confirm.statusCode).toBe(200);
    expect(textOf(confirm.body)).toContain('Revoke “To revoke”?');
    expect(textOf(confirm.body)).toContain('the API answers 401');
    expect((await ctx.api.get('/v1/leads', { key })).statusCode).toBe(200); // looking at the confirmation changes nothing

    const done = await browser.post(`/dashboard/settings/api-keys/${id}/revoke`);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`/dashboard/settings/api-keys?revoked=${id}`);
    const refused = await ctx.api.get('/v1/leads', { key });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().detail).toBe('The API key has been revoked.');

    const after = await browser.get(done.headers.location as string);
    expect(textOf(after.body)).toContain('Key “To revoke” is revoked.');
    const row =
      /<tr class="row-muted">\s*<td data-label="Name" class="cell-title">To revoke[\s\S]*?<\/tr>/.exec(
        after.body,
      )![0];
    expect(textOf(row)).toContain('Revoked');
    expect(row).not.toContain('/revoke');
    // A revoked key's confirmation page just leads back to the list.
    expect((await browser.get(`/dashboard/settings/api-keys/${id}/revoke`)).headers.location).toBe(
      '/dashboard/settings/api-keys',
    );
  });

  it('shows keys made with the CLI too, and an unknown key id is a 404', async () => {
    const list = await browser.get('/dashboard/settings/api-keys');
    expect(textOf(list.body)).toContain('key leads:read');
    expect(
      (await browser.get('/dashboard/settings/api-keys/key_00000000000000000000000000/revoke')).statusCode,
    ).toBe(404);
    expect(
      (await browser.post('/dashboard/settings/api-keys/key_00000000000000000000000000/revoke')).statusCode,
    ).toBe(404);
  });
});
