// Settings > Webhooks: add (secret shown once), refuse bad URLs, re-enable an endpoint the worker disabled, rotate,
// delete with confirmation, the delivery log with "Send again", brand isolation and CSRF.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookEndpoint } from '../../src/webhooks/endpoints.js';
import { EVENT_TYPES } from '../../src/webhooks/events.js';
import { checkWebhookUrl } from '../../src/webhooks/url-guard.js';
import { createTestContext, dialects, TEST_WEBHOOKS, type TestContext } from '../helpers.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

const SECRET = /whsec_[A-Za-z0-9+/]{43}=/g;
const BASE = '/dashboard/settings/webhooks';
// Nothing listens on the discard port: deliveries fail at once, and the test never waits for them.
const UNROUTABLE = 'http://127.0.0.1:9/hooks';

describe.each(dialects())('dashboard webhooks on %s', (dialect) => {
  let ctx: TestContext;
  let browser: Browser;

  beforeAll(async () => {
    ctx = await createTestContext(dialect, { webhooks: TEST_WEBHOOKS });
    // Webhooks are for admins (stored role 'owner'); test/dashboard/roles.test.ts covers what members get.
    await addUser(ctx.app, ctx.brandId, 'office@acme.example', 'owner');
    browser = await signedIn(ctx.app, 'office@acme.example');
    await browser.get(BASE);
  });
  afterAll(async () => ctx?.close());

  const db = () => ctx.app.deps.database.db;
  const checkUrl = (url: string) => checkWebhookUrl(url, TEST_WEBHOOKS);
  const add = (fields: Record<string, string | string[]>) =>
    browser.post(BASE, { url: '', events: [], description: '', ...fields });
  // What a person sets; the worker keeps failing_since and last_success_at up to date on its own.
  const endpointRow = (id: string) =>
    db()
      .selectFrom('webhook_endpoints')
      .select(['brand_id', 'url', 'description', 'events', 'enabled', 'secret', 'previous_secret'])
      .select(['disabled_at', 'disabled_reason'])
      .where('id', '=', id)
      .executeTakeFirst();
  const idOfUrl = async (url: string) =>
    (await db().selectFrom('webhook_endpoints').select('id').where('url', '=', url).executeTakeFirstOrThrow())
      .id;
  const deliveryCount = async (endpointId: string) =>
    (await db().selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpointId).execute())
      .length;

  it('is in the navigation and offers a labelled URL, every event type with what it means, and a description', async () => {
    const res = await browser.get(BASE);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<a href="${BASE}" aria-current="page">Webhooks</a>`);
    expect(res.body).toContain('<label for="field-url">URL</label>');
    for (const type of EVENT_TYPES) {
      // All ticked to start with: the API's default is every event type.
      expect(res.body).toContain(
        `<input type="checkbox" id="event-${type}" name="events" value="${type}" aria-describedby="event-${type}-hint" checked>`,
      );
      expect(res.body).toContain(`<label for="event-${type}"><code>${type}</code></label>`);
    }
    expect(res.body).toContain('<label for="field-description">Description <span class="optional">');
    expect(textOf(res.body)).toContain('No endpoints yet.');
  });

  it('adds an endpoint and shows its secret once, with a copy button; a reload does not show it', async () => {
    const url = 'http://127.0.0.1:9/created';
    const posted = await add({ url, events: ['lead.created'], description: 'CRM sync' });
    // Post, redirect, get: the secret is on the page the 303 leads to, once.
    expect(posted.statusCode).toBe(303);
    expect(posted.body.match(SECRET)).toBeNull();
    const target = posted.headers.location as string;
    expect(target).toBe(`${BASE}?created=${await idOfUrl(url)}`);
    const res = await browser.get(target);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const shown = [...new Set(res.body.match(SECRET))];
    expect(shown).toHaveLength(1);
    expect(res.body).toContain(
      `<input id="new-secret" class="mono" type="text" value="${shown[0]}" readonly`,
    );
    expect(res.body).toContain('data-copy="new-secret"');
    expect(textOf(res.body)).toContain('Copy it now. You will not see it again.');

    const row = await endpointRow(await idOfUrl(url));
    expect(row).toMatchObject({
      brand_id: ctx.brandId,
      events: 'lead.created',
      description: 'CRM sync',
      secret: shown[0],
      enabled: 1,
    });

    const reload = await browser.get(target);
    expect(reload.body.match(SECRET)).toBeNull();
    expect(textOf(reload.body)).toContain(
      `The signing secret for ${url} was shown once and is not shown again`,
    );
    expect(
      (await db().selectFrom('webhook_endpoints').select('id').where('url', '=', url).execute()).length,
    ).toBe(1);
    const listed = /<tr>\s*<td data-label="URL"[\s\S]*?<\/tr>/.exec(reload.body)![0];
    expect(textOf(listed)).toContain(`${url} CRM sync lead.created`);
    expect(textOf(listed)).toContain('Enabled');
  });

  it('a bad URL or no event is a 422 naming the field, keeps what was typed and stores nothing', async () => {
    const before = (await db().selectFrom('webhook_endpoints').select('id').execute()).length;
    const res = await add({ url: 'not a url', description: 'Typed text' });
    expect(res.statusCode).toBe(422);
    const text = textOf(res.body);
    expect(text).toContain('There are 2 problems');
    expect(res.body).toMatch(/<p class="error" id="field-url-error">URL [^<]+\.<\/p>/);
    expect(res.body).toContain('aria-invalid="true"');
    expect(text).toContain('Events at least one is required.');
    expect(res.body).toContain('value="not a url"');
    expect(res.body).toContain('value="Typed text"');
    expect(res.body.match(SECRET)).toBeNull();

    const ftp = await add({ url: 'ftp://127.0.0.1/hooks', events: ['lead.created'] });
    expect(ftp.statusCode).toBe(422);
    expect(ftp.body).toContain('id="field-url-error"');
    expect(ftp.body).toContain(
      'id="event-lead.created" name="events" value="lead.created" aria-describedby="event-lead.created-hint" checked',
    );
    expect((await db().selectFrom('webhook_endpoints').select('id').execute()).length).toBe(before);
  });

  it('shows an endpoint the worker disabled, with its reason and when, and enables it again', async () => {
    const endpoint = await createWebhookEndpoint(
      ctx.app.deps.database,
      ctx.brandId,
      { url: 'http://127.0.0.1:9/failing' },
      checkUrl,
    );
    const reason =
      'Every delivery failed for 24 hours (last attempt: HTTP 500). Fix the receiver, then enable the endpoint again.';
    const disabledAt = Date.parse('2026-11-20T08:15:00Z');
    await db()
      .updateTable('webhook_endpoints')
      .set({
        enabled: 0,
        disabled_at: disabledAt,
        disabled_reason: reason,
        failing_since: disabledAt - 86_400_000,
      })
      .where('id', '=', endpoint.id)
      .execute();

    const res = await browser.get(BASE);
    const alert = /<section class="notice notice-error" role="alert"[\s\S]*?<\/section>/.exec(res.body)![0];
    expect(textOf(alert)).toContain('An endpoint was disabled because deliveries kept failing');
    // In the brand's time zone (Amsterdam: UTC+1 in November).
    expect(textOf(alert)).toContain('http://127.0.0.1:9/failing , disabled Fri, 20 Nov 2026, 09:15');
    expect(alert).toContain(`<time datetime="2026-11-20T08:15:00.000Z" title="Europe/Amsterdam">`);
    expect(textOf(alert)).toContain(reason);
    expect(alert).toContain(`action="${BASE}/${endpoint.id}/enable"`);
    const detail = await browser.get(`${BASE}/${endpoint.id}`);
    expect(textOf(detail.body)).toContain(reason);

    const enabled = await browser.post(`${BASE}/${endpoint.id}/enable`);
    expect(enabled.statusCode).toBe(303);
    expect(enabled.headers.location).toBe(`${BASE}?done=enabled`);
    expect(await endpointRow(endpoint.id)).toMatchObject({
      enabled: 1,
      disabled_at: null,
      disabled_reason: null,
    });
    const after = await browser.get(enabled.headers.location as string);
    expect(textOf(after.body)).toContain('The endpoint is enabled.');
    expect(after.body).not.toContain('notice notice-error');
  });

  it('disables an endpoint by hand without calling it a failure', async () => {
    const endpoint = await createWebhookEndpoint(
      ctx.app.deps.database,
      ctx.brandId,
      { url: 'http://127.0.0.1:9/paused' },
      checkUrl,
    );
    const res = await browser.post(`${BASE}/${endpoint.id}/disable`);
    expect(res.statusCode).toBe(303);
    expect((await endpointRow(endpoint.id))?.enabled).toBe(0);
    const list = await browser.get(`${BASE}?done=disabled`);
    expect(textOf(list.body)).toContain('The endpoint is disabled.');
    expect(list.body).not.toContain('disabled because deliveries kept failing');
    expect(list.body).toContain(`action="${BASE}/${endpoint.id}/enable"`);
  });

  it('rotates the secret and shows the new one once; the old one is kept for 24 hours', async () => {
    const endpoint = await createWebhookEndpoint(
      ctx.app.deps.database,
      ctx.brandId,
      { url: 'http://127.0.0.1:9/rotate' },
      checkUrl,
    );
    const posted = await browser.post(`${BASE}/${endpoint.id}/rotate-secret`);
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe(`${BASE}?rotated=${endpoint.id}`);
    const res = await browser.get(posted.headers.location as string);
    expect(res.statusCode).toBe(200);
    const shown = [...new Set(res.body.match(SECRET))];
    expect(shown).toHaveLength(1);
    expect(shown[0]).not.toBe(endpoint.secret);
    expect(textOf(res.body)).toContain('New signing secret for http://127.0.0.1:9/rotate');
    const row = await endpointRow(endpoint.id);
    expect(row).toMatchObject({ secret: shown[0], previous_secret: endpoint.secret });
    // Reloading shows it no more and rotates nothing.
    expect((await browser.get(posted.headers.location as string)).body.match(SECRET)).toBeNull();
    expect((await endpointRow(endpoint.id))?.secret).toBe(shown[0]);
  });

  it('deletes only after a confirmation step, and only with the form token', async () => {
    const endpoint = await createWebhookEndpoint(
      ctx.app.deps.database,
      ctx.brandId,
      { url: 'http://127.0.0.1:9/delete' },
      checkUrl,
    );
    const list = await browser.get(BASE);
    expect(list.body).toContain(`href="${BASE}/${endpoint.id}/delete"`);
    const confirm = await browser.get(`${BASE}/${endpoint.id}/delete`);
    expect(confirm.statusCode).toBe(200);
    expect(textOf(confirm.body)).toContain('Delete the endpoint http://127.0.0.1:9/delete?');
    expect(await endpointRow(endpoint.id)).toBeDefined();

    const forged = await browser.post(`${BASE}/${endpoint.id}/delete`, { _csrf: 'forged' });
    expect(forged.statusCode).toBe(403);
    const missing = await browser.post(`${BASE}/${endpoint.id}/delete`, { _csrf: undefined });
    expect(missing.statusCode).toBe(403);
    expect(await endpointRow(endpoint.id)).toBeDefined();

    const done = await browser.post(`${BASE}/${endpoint.id}/delete`);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`${BASE}?done=deleted`);
    expect(await endpointRow(endpoint.id)).toBeUndefined();
    expect(textOf((await browser.get(`${BASE}?done=deleted`)).body)).toContain(
      'The endpoint and its delivery log are deleted.',
    );
  });

  it('refuses every form post without the right token and changes nothing', async () => {
    const endpoint = await createWebhookEndpoint(
      ctx.app.deps.database,
      ctx.brandId,
      { url: 'http://127.0.0.1:9/csrf' },
      checkUrl,
    );
    const before = await endpointRow(endpoint.id);
    const countBefore = (await db().selectFrom('webhook_endpoints').select('id').execute()).length;
    for (const path of [BASE, `${BASE}/${endpoint.id}/disable`, `${BASE}/${endpoint.id}/rotate-secret`]) {
      const res = await browser.post(path, {
        _csrf: 'forged',
        url: 'http://127.0.0.1:9/x',
        events: 'lead.created',
      });
      expect(res.statusCode).toBe(403);
      expect(textOf(res.body)).toContain('This form has expired');
      expect(res.body.match(SECRET)).toBeNull();
    }
    expect(await endpointRow(endpoint.id)).toEqual(before);
    expect((await db().selectFrom('webhook_endpoints').select('id').execute()).length).toBe(countBefore);
  });

  it('lists deliveries newest first after a lead is created, and sends one again as a new delivery', async () => {
    await add({ url: UNROUTABLE, events: ['lead.created'] });
    const id = await idOfUrl(UNROUTABLE);
    const empty = await browser.get(`${BASE}/${id}`);
    expect(textOf(empty.body)).toContain('No deliveries yet.');

    const lead = await ctx.createLead({ title: 'Webhook lead' });
    const event = await db()
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select(['e.id', 'e.type', 'e.data'])
      .where('d.endpoint_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(event.type).toBe('lead.created');
    expect(event.data).toContain(lead.id as string);
    const log = await browser.get(`${BASE}/${id}`);
    expect(log.statusCode).toBe(200);
    expect(textOf(log.body)).toContain(`Deliveries to ${UNROUTABLE}`);
    const rows = log.body.match(/<tr id="whd_[\s\S]*?<\/tr>/g)!;
    expect(rows).toHaveLength(1);
    expect(textOf(rows[0]!)).toContain(`lead.created ${event.id}`);
    for (const label of [
      'Status',
      'Response',
      'Duration',
      'Attempts',
      'Created',
      'Last attempt',
      'Next attempt',
    ]) {
      expect(rows[0]).toContain(`data-label="${label}"`);
    }
    const original = /<tr id="(whd_[0-9a-z]{26})"/.exec(rows[0]!)![1]!;
    expect(rows[0]).toContain(`action="${BASE}/${id}/deliveries/${original}/resend"`);

    let woken = 0;
    const stopListening = ctx.app.deps.database.listen('webhook-deliveries', () => {
      woken++;
    });
    try {
      const resent = await browser.post(`${BASE}/${id}/deliveries/${original}/resend`);
      expect(resent.statusCode).toBe(303);
      expect(resent.headers.location).toMatch(new RegExp(`^${BASE}/${id}\\?resent=whd_[0-9a-z]{26}$`));
      expect(woken).toBe(1);
      expect(await deliveryCount(id)).toBe(2);
      const after = await browser.get(resent.headers.location as string);
      expect(textOf(after.body)).toContain('The event is queued to be sent again');
      const newRows = after.body.match(/<tr id="whd_[\s\S]*?<\/tr>/g)!;
      expect(newRows).toHaveLength(2);
      expect(newRows[0]).toContain(`id="${(resent.headers.location as string).split('=')[1]}"`);
      expect(newRows[1]).toContain(`id="${original}"`);
      expect(textOf(newRows[0]!)).toContain(event.id);
    } finally {
      stopListening();
    }

    // A disabled endpoint sends nothing, so "Send again" is refused with a way out, and no delivery is added.
    await browser.post(`${BASE}/${id}/disable`);
    const refused = await browser.post(`${BASE}/${id}/deliveries/${original}/resend`);
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toContain('Enable it first');
    expect(await deliveryCount(id)).toBe(2);
  });

  it("another brand's endpoint is a 404 everywhere, never listed and never changed", async () => {
    const theirs = await createWebhookEndpoint(
      ctx.app.deps.database,
      ctx.otherBrandId,
      { url: 'http://127.0.0.1:9/other-brand', description: 'Other brand CRM' },
      checkUrl,
    );
    await ctx.createLead({ title: 'Other brand lead' }, ctx.keys.other);
    const delivery = await db()
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', theirs.id)
      .executeTakeFirstOrThrow();
    const before = await endpointRow(theirs.id);
    // One delivery per event the lead fired (lead.created, and customer.created for its new customer).
    const deliveriesBefore = await deliveryCount(theirs.id);
    expect(deliveriesBefore).toBeGreaterThan(0);

    const list = await browser.get(BASE);
    expect(list.body).not.toContain('other-brand');
    expect(list.body).not.toContain(theirs.id);
    for (const path of [`${BASE}/${theirs.id}`, `${BASE}/${theirs.id}/delete`]) {
      const res = await browser.get(path);
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('Other brand CRM');
    }
    for (const action of [
      'enable',
      'disable',
      'rotate-secret',
      'delete',
      `deliveries/${delivery.id}/resend`,
    ]) {
      const res = await browser.post(`${BASE}/${theirs.id}/${action}`);
      expect(res.statusCode).toBe(404);
      expect(res.body.match(SECRET)).toBeNull();
    }
    expect(await endpointRow(theirs.id)).toEqual(before);
    expect(await deliveryCount(theirs.id)).toBe(deliveriesBefore);
  });
});
