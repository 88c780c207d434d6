// Real responses against the OpenAPI document: a realistic sequence of requests (successes and errors) on SQLite
// and PostgreSQL, each answer checked against what the document declares for its operation: the status is
// declared, the media type is one the document names, the body validates against that schema (Ajv, JSON Schema
// 2020-12, strict, standard formats only), and every header the document marks required is there. Every
// operation of the document must be exercised. A deliberately broken copy of the document must fail the check.

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Method, raw } from '../api.js';
import { createTestContext, dialects, TEST_WEBHOOKS, type TestContext, validLead } from '../helpers.js';
import { multipart, TINY_PNG } from '../multipart.js';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats);

// biome-ignore lint/suspicious/noExplicitAny: the document is free-form JSON
type Json = Record<string, any>;

const BASE = 'https://lead-intake.test/openapi';

/** Checks responses against one document; `problems` collects every mismatch, `seen` the operations checked. */
class DocumentChecker {
  readonly problems: string[] = [];
  readonly seen = new Set<string>();
  readonly statuses = new Set<number>();
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<unknown, ValidateFunction>();

  constructor(readonly doc: Json) {
    // strict: unknown keywords and unknown formats are errors, as in strict validators integrators use.
    this.ajv = addFormats(new Ajv2020({ strict: true, strictTypes: false, allErrors: true }));
    const components = JSON.parse(
      JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', `"${BASE}#/$defs/`),
    );
    this.ajv.addSchema({ $id: BASE, $defs: components });
  }

  private resolve(node: Json | undefined): Json | undefined {
    let out = node;
    while (out?.$ref) {
      out = (out.$ref as string)
        .slice(2)
        .split('/')
        .reduce<Json | undefined>((at, key) => at?.[key], this.doc);
    }
    return out;
  }

  private validator(schema: Json): ValidateFunction {
    let validate = this.validators.get(schema);
    if (!validate) {
      const rewritten = JSON.parse(
        JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${BASE}#/$defs/`),
      );
      validate = this.ajv.compile(rewritten);
      this.validators.set(schema, validate);
    }
    return validate;
  }

  /** A webhook delivery's body is the event JSON: checks it against the webhooks entry of its type. */
  checkWebhook(event: Json): void {
    const type = String(event.type);
    const schema = this.doc.webhooks?.[type]?.post?.requestBody?.content?.['application/json']?.schema;
    if (!schema) {
      this.problems.push(`webhook ${type}: not in the webhooks section`);
      return;
    }
    const validate = this.validator(schema);
    if (!validate(event)) {
      this.problems.push(`webhook ${type}: body does not match: ${this.ajv.errorsText(validate.errors)}`);
    }
  }

  check(method: string, template: string, res: LightMyRequestResponse): void {
    const where = `${method.toUpperCase()} ${template} → ${res.statusCode}`;
    const item: Json | undefined = this.doc.paths[template];
    // A 405 answers a method the path does not have: it is declared on each operation the path does have.
    const operation =
      item?.[method.toLowerCase()] ?? (res.statusCode === 405 && item ? Object.values(item)[0] : undefined);
    if (!operation) {
      this.problems.push(`${where}: no such operation in the document`);
      return;
    }
    this.statuses.add(res.statusCode);
    if (item?.[method.toLowerCase()]) this.seen.add(`${method.toLowerCase()} ${template}`);
    const response = this.resolve(operation.responses[String(res.statusCode)]);
    if (!response) {
      this.problems.push(`${where}: status not declared (declared: ${Object.keys(operation.responses)})`);
      return;
    }
    for (const [name, declared] of Object.entries<Json>(response.headers ?? {})) {
      const header = this.resolve(declared)!;
      const value = res.headers[name.toLowerCase()];
      if (header.required && value === undefined)
        this.problems.push(`${where}: required header ${name} missing`);
      if (value !== undefined && header.schema?.type === 'integer' && !/^\d+$/.test(String(value))) {
        this.problems.push(`${where}: header ${name} is not an integer: ${String(value)}`);
      }
    }
    const content: Json | undefined = response.content;
    if (!content) {
      if (res.body !== '') this.problems.push(`${where}: a body where the document declares none`);
      return;
    }
    const type = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    const media = content[type];
    if (!media) {
      this.problems.push(`${where}: media type ${type} not declared (declared: ${Object.keys(content)})`);
      return;
    }
    if (!media.schema) return;
    const body = type.endsWith('json') ? res.json() : res.body;
    const validate = this.validator(media.schema);
    if (!validate(body)) {
      this.problems.push(`${where}: body does not match: ${this.ajv.errorsText(validate.errors)}`);
    }
  }
}

const LONG_TEXT = 'x'.repeat(70 * 1024);

describe.each(dialects())('responses match the OpenAPI document on %s', (dialect) => {
  let ctx: TestContext;
  let limited: TestContext;
  let checker: DocumentChecker;

  beforeAll(async () => {
    ctx = await createTestContext(dialect, { webhooks: TEST_WEBHOOKS });
    limited = await createTestContext(dialect, {
      rateLimit: { readsPerMinute: 1, writesPerMinute: 1, failedAuthPerMinute: 1_000_000 },
    });
    checker = new DocumentChecker((await ctx.app.inject('/v1/openapi.json')).json());
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
    await limited?.close();
  });

  /**
   * Sends a request (the full key of ctx unless `key` says otherwise; a string body is the body's text) and checks
   * the answer against the operation `template` names.
   */
  async function call(
    method: Method,
    template: string,
    url: string,
    options: { key?: string | null; body?: unknown; headers?: Record<string, string>; on?: TestContext } = {},
  ): Promise<LightMyRequestResponse> {
    const key = options.key === undefined ? ctx.keys.full : options.key;
    const body = typeof options.body === 'string' ? raw(options.body) : options.body;
    const res = await (options.on ?? ctx).api.request(method, url, body, {
      key: key || null,
      headers: options.headers,
    });
    checker.check(method, template, res);
    return res;
  }

  it('a day of integration traffic, successes and errors, matches the document', {
    timeout: 120_000,
  }, async () => {
    // Leads: create (plain and idempotent, replayed, reused key), list and page, read, change.
    const created = (await call('POST', '/v1/leads', '/v1/leads', { body: validLead() })).json();
    expect(created.id).toMatch(/^wrk_/);
    const body = validLead({ phone: '+31 6 1234 5678', priority: 'high' });
    const idem = { 'idempotency-key': `k-${created.id}` };
    const first = await call('POST', '/v1/leads', '/v1/leads', { body, headers: idem });
    const replay = await call('POST', '/v1/leads', '/v1/leads', { body, headers: idem });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    await call('POST', '/v1/leads', '/v1/leads', { body: validLead(), headers: idem }); // 422
    await call('POST', '/v1/leads', '/v1/leads', { body: validLead(), headers: { 'idempotency-key': '' } }); // 400
    await call('POST', '/v1/leads', '/v1/leads', { body: { title: '' } }); // 422
    await call('POST', '/v1/leads', '/v1/leads', { body: '{"title": ' }); // 400
    await call('POST', '/v1/leads', '/v1/leads', {
      body: 'title=x',
      headers: { 'content-type': 'text/plain' },
    }); // 415
    await call('POST', '/v1/leads', '/v1/leads', { body: validLead({ description: LONG_TEXT }) }); // 413
    await call('POST', '/v1/leads', '/v1/leads', { body: validLead(), key: null }); // 401
    await call('POST', '/v1/leads', '/v1/leads', { body: validLead(), key: ctx.keys['leads:read'] }); // 403
    await call('DELETE', '/v1/leads', '/v1/leads'); // 405

    const page = (await call('GET', '/v1/leads', '/v1/leads?limit=1')).json();
    expect(page.nextCursor).toEqual(expect.any(String));
    await call('GET', '/v1/leads', `/v1/leads?cursor=${encodeURIComponent(page.nextCursor)}`);
    await call(
      'GET',
      '/v1/leads',
      '/v1/leads?status=request,quoted&source=website&q=Keizersgracht&order=asc',
    );
    await call('GET', '/v1/leads', '/v1/leads?cursor=not-a-cursor&limit=0'); // 422
    await call('GET', '/v1/leads', '/v1/leads', { key: ctx.keys.revoked }); // 401
    await call('GET', '/v1/leads/{id}', `/v1/leads/${created.id}`);
    await call('GET', '/v1/leads/{id}', '/v1/leads/wrk_01m86veqrn19z74s8skcy4mytv'); // 404
    const etag = (await call('GET', '/v1/leads/{id}', `/v1/leads/${created.id}`)).headers.etag;
    if (etag) {
      // Conditional GETs, once the service sends ETags: a 304 must be declared too.
      const notModified = await call('GET', '/v1/leads/{id}', `/v1/leads/${created.id}`, {
        headers: { 'if-none-match': String(etag) },
      });
      expect(notModified.statusCode).toBe(304);
    }
    await call('PATCH', '/v1/leads/{id}', `/v1/leads/${created.id}`, { body: { status: 'quoted' } });
    await call('PATCH', '/v1/leads/{id}', `/v1/leads/${created.id}`, { body: { status: 'request' } }); // 409
    await call('PATCH', '/v1/leads/{id}', `/v1/leads/${created.id}`, { body: { status: 'nope' } }); // 422
    await call('PATCH', '/v1/leads/{id}', `/v1/leads/${created.id}`, {
      body: { status: 'scheduled', scheduledFor: '2026-11-26T08:00:00Z', durationMinutes: 90 },
    });

    // Notes.
    const note = (
      await call('POST', '/v1/leads/{id}/notes', `/v1/leads/${created.id}/notes`, {
        body: { text: 'Customer prefers mornings.' },
      })
    ).json();
    await call('POST', '/v1/leads/{id}/notes', `/v1/leads/${created.id}/notes`, { body: { text: ' ' } }); // 422
    await call('GET', '/v1/leads/{id}/notes', `/v1/leads/${created.id}/notes`);
    await call('GET', '/v1/leads/{id}/notes/{noteId}', `/v1/leads/${created.id}/notes/${note.id}`);
    await call('GET', '/v1/leads/{id}/notes/{noteId}', `/v1/leads/${created.id}/notes/not_0`); // 404

    // Attachments.
    const photo = multipart([{ filename: 'dot.png', type: 'image/png', data: TINY_PNG }]);
    const added = (
      await call('POST', '/v1/leads/{id}/attachments', `/v1/leads/${created.id}/attachments`, {
        body: photo.payload,
        headers: photo.headers,
      })
    ).json();
    const attachment = added.data[0].id as string;
    const page2 = multipart([{ filename: 'page.png', data: '<html><body>not a photo</body></html>' }]);
    await call('POST', '/v1/leads/{id}/attachments', `/v1/leads/${created.id}/attachments`, {
      body: page2.payload,
      headers: page2.headers,
    }); // 422
    await call('POST', '/v1/leads/{id}/attachments', `/v1/leads/${created.id}/attachments`, {
      body: { file: 'x' },
    }); // 415
    await call('GET', '/v1/leads/{id}/attachments', `/v1/leads/${created.id}/attachments`);
    await call('GET', '/v1/leads/{id}/attachments', '/v1/leads/wrk_01m86veqrn19z74s8skcy4mytv/attachments'); // 404
    await call('GET', '/v1/attachments/{id}', `/v1/attachments/${attachment}`);
    await call('GET', '/v1/attachments/{id}', '/v1/attachments/att_0'); // 404
    await call('GET', '/v1/attachments/{id}/content', `/v1/attachments/${attachment}/content`);
    await call(
      'GET',
      '/v1/attachments/{id}/content',
      `/v1/attachments/${attachment}/content?variant=thumbnail`,
    );
    await call('GET', '/v1/attachments/{id}/content', `/v1/attachments/${attachment}/content?variant=big`); // 422
    await call('DELETE', '/v1/attachments/{id}', `/v1/attachments/${attachment}`);
    await call('DELETE', '/v1/attachments/{id}', `/v1/attachments/${attachment}`); // 404

    // Work items, exports.
    await call('GET', '/v1/work-items', '/v1/work-items?status=scheduled');
    await call('GET', '/v1/work-items', '/v1/work-items?scheduledFrom=yesterday'); // 422
    await call('GET', '/v1/work-items/{id}', `/v1/work-items/${created.id}`);
    await call('GET', '/v1/work-items/{id}', `/v1/work-items/${first.json().id}`); // 404: never scheduled
    await call('GET', '/v1/exports/leads.csv', '/v1/exports/leads.csv?bom=true');
    await call('GET', '/v1/exports/leads.csv', '/v1/exports/leads.csv?limit=1'); // 422
    await call('GET', '/v1/exports/work-items.csv', '/v1/exports/work-items.csv', {
      key: ctx.keys['work-items:read'],
    });

    // Customers, addresses, events.
    const customers = (await call('GET', '/v1/customers', '/v1/customers?limit=2')).json();
    await call('GET', '/v1/customers', '/v1/customers?email=nobody@example.com', {
      key: ctx.keys['customers:read'],
    });
    await call('GET', '/v1/customers/{id}', `/v1/customers/${customers.data[0].id}`);
    await call('GET', '/v1/customers/{id}', '/v1/customers/cus_cgayhqrssy2sbx1yhb4hcqc5t4'); // 404
    const exportPath = '/v1/customers/{id}/export';
    await call('GET', exportPath, `/v1/customers/${customers.data[0].id}/export`);
    await call('GET', exportPath, '/v1/customers/cus_cgayhqrssy2sbx1yhb4hcqc5t4/export'); // 404
    await call('GET', exportPath, `/v1/customers/${customers.data[0].id}/export`, {
      key: ctx.keys['customers:read'],
    }); // 403
    const kept = (await ctx.createLead({ email: 'kept-openapi@example.com' })).customerId as string;
    const duplicate = (await ctx.createLead({ email: 'dup-openapi@example.com' })).customerId as string;
    await call('PATCH', '/v1/customers/{id}', `/v1/customers/${kept}`, {
      body: { phone: '+31 6 1234 9876' },
    });
    await call('PATCH', '/v1/customers/{id}', `/v1/customers/${kept}`, { body: { name: '' } }); // 422
    await call('PATCH', '/v1/customers/{id}', `/v1/customers/${kept}`, {
      body: { email: 'DUP-openapi@example.com' },
    }); // 409
    await call('POST', '/v1/customers/{id}/merge', `/v1/customers/${kept}/merge`, { body: { from: kept } }); // 422
    await call('POST', '/v1/customers/{id}/merge', `/v1/customers/${kept}/merge`, {
      body: { from: duplicate },
    });
    await call('POST', '/v1/customers/{id}/merge', `/v1/customers/${kept}/merge`, {
      body: { from: duplicate },
    }); // 404
    // Erased last of the customers: a customer of its own.
    const erasable = (await ctx.createLead()).customerId as string;
    await call('POST', '/v1/customers/{id}/erase', `/v1/customers/${erasable}/erase`, {
      body: { reason: 'asked' },
    });
    await call('POST', '/v1/customers/{id}/erase', '/v1/customers/cus_cgayhqrssy2sbx1yhb4hcqc5t4/erase'); // 404
    await call('GET', '/v1/customers/{id}/export', `/v1/customers/${erasable}/export`); // the erased read
    await call('GET', '/v1/addresses', '/v1/addresses?limit=2');
    await call('GET', '/address', '/address?createdAfter=2020-01-01T00:00:00Z');
    await call('GET', '/v1/events', '/v1/events?limit=100');
    await call('GET', '/v1/events', '/v1/events?type=lead.created&order=asc');
    await call('GET', '/v1/events', '/v1/events', { key: ctx.keys['leads:read'] }); // 403

    // Webhook endpoints and deliveries.
    const hook = (
      await call('POST', '/v1/webhook-endpoints', '/v1/webhook-endpoints', {
        body: { url: 'http://127.0.0.1:9/hooks', description: 'CRM sync' },
      })
    ).json();
    await call('POST', '/v1/webhook-endpoints', '/v1/webhook-endpoints', { body: { url: 'ftp://x' } }); // 422
    await ctx.createLead();
    await call('GET', '/v1/webhook-endpoints', '/v1/webhook-endpoints');
    await call('GET', '/v1/webhook-endpoints/{id}', `/v1/webhook-endpoints/${hook.id}`);
    await call('PATCH', '/v1/webhook-endpoints/{id}', `/v1/webhook-endpoints/${hook.id}`, {
      body: { events: ['lead.created'] },
    });
    await call(
      'POST',
      '/v1/webhook-endpoints/{id}/rotate-secret',
      `/v1/webhook-endpoints/${hook.id}/rotate-secret`,
    );
    const deliveries = (
      await call(
        'GET',
        '/v1/webhook-endpoints/{id}/deliveries',
        `/v1/webhook-endpoints/${hook.id}/deliveries`,
      )
    ).json();
    expect(deliveries.data.length).toBeGreaterThan(0);
    await call(
      'POST',
      '/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend',
      `/v1/webhook-endpoints/${hook.id}/deliveries/${deliveries.data[0].id}/resend`,
    );
    await call(
      'POST',
      '/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend',
      `/v1/webhook-endpoints/${hook.id}/deliveries/whd_0/resend`,
    ); // 404
    await call('DELETE', '/v1/webhook-endpoints/{id}', `/v1/webhook-endpoints/${hook.id}`);
    await call('DELETE', '/v1/webhook-endpoints/{id}', `/v1/webhook-endpoints/${hook.id}`); // 404

    // Forms, and the public endpoint they post to.
    const form = (
      await call('POST', '/v1/forms', '/v1/forms', {
        body: { name: 'Website contact form', allowedOrigins: ['https://www.example.nl'] },
      })
    ).json();
    await call('POST', '/v1/forms', '/v1/forms', { body: { name: 'No origins' } }); // 422
    await call('GET', '/v1/forms', '/v1/forms');
    await call('GET', '/v1/forms/{id}', `/v1/forms/${form.id}`);
    await call('PATCH', '/v1/forms/{id}', `/v1/forms/${form.id}`, { body: { consentText: null } });
    const post = await call('POST', '/f/{formId}', `/f/${form.id}`, {
      key: null,
      body: validLead(),
      headers: { origin: 'https://www.example.nl' },
    });
    expect(post.statusCode).toBe(201);
    await call('POST', '/f/{formId}', `/f/${form.id}`, { key: null, body: validLead() }); // 403
    await call('POST', '/f/{formId}', '/f/frm_0', { key: null, body: validLead() }); // 404
    await call('POST', '/f/{formId}', `/f/${form.id}`, {
      key: null,
      body: { title: '' },
      headers: { origin: 'https://www.example.nl' },
    }); // 422
    await call('GET', '/f/{formId}', `/f/${form.id}`, { key: null });
    await call('GET', '/f/{formId}', '/f/frm_0', { key: null }); // 404 (HTML)
    await call('DELETE', '/v1/forms/{id}', `/v1/forms/${form.id}`);

    // Public operations.
    await call('GET', '/healthz', '/healthz', { key: null });
    await call('GET', '/readyz', '/readyz', { key: null });
    await call('GET', '/v1/openapi.json', '/v1/openapi.json', { key: null });
    await call('POST', '/healthz', '/healthz', { key: null }); // 405

    // Rate limits: one read and one write a minute on the second app.
    for (let i = 0; i < 2; i++) {
      await call('GET', '/v1/leads', '/v1/leads', { on: limited, key: limited.keys.full });
      await call('POST', '/v1/leads', '/v1/leads', {
        on: limited,
        key: limited.keys.full,
        body: validLead(),
      });
    }

    // What webhook endpoints received is the event JSON: each event against its webhooks entry.
    const events = (await call('GET', '/v1/events', '/v1/events?limit=100')).json().data as Json[];
    for (const event of events) checker.checkWebhook(event);
    expect(new Set(events.map((e) => e.type)).size).toBeGreaterThanOrEqual(4);

    expect(checker.problems).toEqual([]);
    // The sequence did provoke what it meant to (a 400 in place of each error would prove little).
    // (304 too once the service sends ETags.)
    expect([...checker.statuses]).toEqual(
      expect.arrayContaining([200, 201, 202, 204, 400, 401, 403, 404, 405, 409, 413, 415, 422, 429]),
    );
  });

  it('exercised every operation of the document', () => {
    const operations = Object.entries<Json>(checker.doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(operations.filter((op) => !checker.seen.has(op))).toEqual([]);
  });

  it('a broken declaration fails the check', async () => {
    const doc: Json = structuredClone((await ctx.app.inject('/v1/openapi.json')).json());
    // The list item loses a field the service sends (additionalProperties: false), the 201 of createLead claims
    // a header that is never sent, and the 401 of GET /v1/leads is dropped.
    const item = doc.components.schemas.LeadListItem;
    delete item.properties.priority;
    item.required = item.required.filter((name: string) => name !== 'priority');
    doc.paths['/v1/leads'].post.responses['201'].headers['X-Not-Sent'] = {
      required: true,
      schema: { type: 'string' },
    };
    delete doc.paths['/v1/leads'].get.responses['401'];
    const broken = new DocumentChecker(doc);
    broken.check('GET', '/v1/leads', await ctx.api.get('/v1/leads'));
    broken.check('POST', '/v1/leads', await ctx.api.post('/v1/leads', validLead()));
    broken.check('GET', '/v1/leads', await ctx.api.get('/v1/leads', { key: null }));
    // A status change without its from and to is not what the webhooks section promises.
    broken.checkWebhook({
      id: 'evt_01m86vexd2m3s6ckfg0a3cq1hw',
      type: 'lead.status_changed',
      createdAt: '2026-11-24T13:20:50.965Z',
      data: {},
    });
    expect(broken.problems).toEqual([
      expect.stringMatching(
        /^GET \/v1\/leads → 200: body does not match: .*must NOT have additional properties/,
      ),
      'POST /v1/leads → 201: required header X-Not-Sent missing',
      expect.stringMatching(/^GET \/v1\/leads → 401: status not declared/),
      expect.stringMatching(
        /^webhook lead.status_changed: body does not match: .*must have required property/,
      ),
    ]);
  });
});
