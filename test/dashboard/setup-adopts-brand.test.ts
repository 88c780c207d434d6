// The README's five-minute path makes a brand with the CLI before anyone has an account: setup must adopt it,
// so the keys and leads made with it show up for the owner, rather than creating a second, empty brand.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { createSetupLink } from '../../src/accounts/setup.js';
import { type App, buildApp } from '../../src/app.js';
import { dialects, dropSchema, testConfig, validLead } from '../helpers.js';
import { Browser, textOf } from './helpers.js';

describe.each(dialects())('setup with a brand made before it on %s', (dialect) => {
  let app: App;
  beforeEach(async () => {
    app = await buildApp(testConfig(dialect), { logger: false, defaultMetrics: false });
    await app.ready();
  });
  afterEach(async () => {
    await dropSchema(app);
    await app.close();
  });

  it('adopts the only brand, with the name and country entered, and shows its leads', async () => {
    const brand = await createBrand(app.deps.database, { language: 'en', name: 'Acme', country: 'NL' });
    const key = await createApiKey(app.deps.database, {
      brandId: brand.id,
      name: 'Website',
      scopes: ['leads:write'],
    });
    const created = await app.inject({
      method: 'POST',
      url: '/v1/leads',
      headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
      payload: validLead({ title: 'Lead from before setup' }),
    });
    expect(created.statusCode).toBe(201);

    const token = new URL((await createSetupLink(app.deps.database, 'http://x'))!).searchParams.get('token')!;
    const browser = new Browser(app);
    const form = await browser.get(`/setup?token=${token}`);
    expect(form.body).toContain('value="Acme"');
    const done = await browser.post('/setup', {
      token,
      brandName: 'Acme Plumbing',
      country: 'be',
      email: 'owner@acme.example',
      password: 'a good long password',
      passwordConfirmation: 'a good long password',
    });
    expect(done.statusCode).toBe(303);

    const brands = await app.deps.database.db.selectFrom('brands').selectAll().execute();
    expect(brands).toHaveLength(1);
    expect(brands[0]).toMatchObject({ id: brand.id, name: 'Acme Plumbing', default_country: 'BE' });
    const user = await app.deps.database.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    expect(user.brand_id).toBe(brand.id);
    expect(textOf((await browser.get('/dashboard/leads')).body)).toContain('Lead from before setup');
  });

  it('creates a new brand when several exist (it cannot guess which)', async () => {
    await createBrand(app.deps.database, { language: 'en', name: 'One' });
    await createBrand(app.deps.database, { language: 'en', name: 'Two' });
    const token = new URL((await createSetupLink(app.deps.database, 'http://x'))!).searchParams.get('token')!;
    const browser = new Browser(app);
    await browser.get(`/setup?token=${token}`);
    const done = await browser.post('/setup', {
      token,
      brandName: 'Three',
      country: 'NL',
      email: 'owner@three.example',
      password: 'a good long password',
      passwordConfirmation: 'a good long password',
    });
    expect(done.statusCode).toBe(303);
    expect(await app.deps.database.db.selectFrom('brands').selectAll().execute()).toHaveLength(3);
  });
});
