// "Logs never held the data": at the most talkative level (debug), everything a person's data goes through (an API
// create, a form post, a validation error, a search, an edit, a merge, an export, an erase, the webhook and mail
// workers) leaves none of it in the log, only ids and counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import { apiClient, formPoster } from '../api.js';
import { dialects, dropSchema, TEST_WEBHOOKS, testConfig, waitFor } from '../helpers.js';
import { testMail } from '../mail/smtp.js';
import { captureLogs } from '../observability/support.js';
import { type Receiver, startReceiver } from '../receiver.js';

const ORIGIN = 'https://www.loodgieter.example';

describe.each(dialects())('the log and personal data on %s', (dialect) => {
  let app: App;
  let receiver: Receiver;
  const logs = captureLogs();
  const person = {
    customerName: 'Wilhelmina Logvrij',
    email: 'wilhelmina.logvrij@example.com',
    phone: '+31687654321',
    companyName: 'Logvrij Installatie',
    street: 'Stillestraat',
    streetNumber: '9',
    postalCode: '1015 CJ',
    city: 'Amsterdam',
    description: 'Geheime lekkage onder de vloer',
  };
  const secrets = [
    'Wilhelmina',
    'Logvrij',
    'wilhelmina.logvrij',
    '687654321',
    'Stillestraat',
    'Geheime lekkage',
    'Ander Adres',
  ];

  beforeAll(async () => {
    receiver = await startReceiver();
    app = await buildApp(
      testConfig(dialect, {
        logLevel: 'debug',
        logFormat: 'json',
        webhooks: TEST_WEBHOOKS,
        mail: testMail('smtp://127.0.0.1:1'),
        publicUrl: 'https://leads.loodgieter.example',
      }),
      { logger: { stream: logs.stream }, defaultMetrics: false },
    );
    await app.ready();
  });
  afterAll(async () => {
    if (app) {
      await dropSchema(app);
      await app.close();
    }
    await receiver?.close();
  });

  it('holds no value the person gave, whatever was done with it', async () => {
    const brandId = (await createBrand(app.deps.database, { language: 'nl', name: 'Acme', country: 'NL' }))
      .id;
    const api = apiClient(
      app,
      (await createApiKey(app.deps.database, { brandId, name: 'k', scopes: ['full'] })).key,
    );
    expect((await api.post('/v1/webhook-endpoints', { url: receiver.url('/hook') })).statusCode).toBe(201);
    const formId = (
      await api.post('/v1/forms', { name: 'Site', allowedOrigins: [ORIGIN], autoReply: true })
    ).json().id as string;

    const created = await api.post('/v1/leads', { ...person, title: 'Lek' });
    expect(created.statusCode).toBe(201);
    const customerId = created.json().customerId as string;
    // Refused input: the errors name fields, not values.
    expect((await api.post('/v1/leads', { ...person, email: 'Wilhelmina Logvrij at home' })).statusCode).toBe(
      422,
    );
    expect(
      (await formPoster(() => app, ORIGIN).form(formId, { ...person, title: 'Via site' })).statusCode,
    ).toBe(303);
    expect((await api.get(`/v1/leads?q=${encodeURIComponent(person.email)}`)).statusCode).toBe(200);
    expect((await api.get(`/v1/customers?email=${encodeURIComponent(person.email)}`)).statusCode).toBe(200);
    const other = await api.post('/v1/leads', {
      customerName: 'Ander Adres',
      email: 'ander@example.com',
      street: 'Elders',
      postalCode: '1000 AA',
      city: 'Brussel',
      title: 'Dak',
    });
    expect(
      (await api.patch(`/v1/customers/${customerId}`, { companyName: 'Logvrij Installatie BV' })).statusCode,
    ).toBe(200);
    expect(
      (await api.post(`/v1/customers/${customerId}/merge`, { from: other.json().customerId })).statusCode,
    ).toBe(200);
    expect((await api.get(`/v1/customers/${customerId}/export`)).statusCode).toBe(200);
    await waitFor(() => receiver.received.length >= 4 || undefined, 'webhook deliveries');
    expect((await api.post(`/v1/customers/${customerId}/erase`, { reason: 'Verzoek' })).statusCode).toBe(200);

    const raw = logs.raw();
    // The log did record all of it: the lines are there, with ids.
    expect(raw).toContain(customerId);
    expect(raw).toContain('customer erased');
    for (const secret of secrets) expect(raw, secret).not.toContain(secret);
  });
});
