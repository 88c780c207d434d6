// The finishing pass over the document @fastify/swagger builds from the route schemas: what the route schemas
// cannot say per route, said once here for every operation, and only in the document (validation and
// serialisation keep using the route schemas unchanged):
// - every schema with a `title` becomes a named component (components.schemas) referenced with $ref;
// - the headers the service sends (components.headers) on the responses that carry them;
// - the statuses any operation can give (405, 500, 503; 429 on rate-limited routes; 400/413/415/422 where a
//   body is read; 304 on conditional GETs), always as application/problem+json for errors;
// - examples on parameters, bodies and the main responses; no custom `format` (strict validators reject them);
// - the 3.1 `webhooks` section: one entry per event type, the POST a receiver gets;
// - request body fields' defaults in their descriptions, not as `default` (generators read it as "always there").

import { LEAD_SOURCES } from '../leads/states.js';
import { EVENT_TYPES } from '../webhooks/events.js';
import {
  ADDRESS_EXAMPLE,
  CREATED_LEAD_EXAMPLE,
  CUSTOMER_DETAIL_EXAMPLE,
  CUSTOMER_EXAMPLE,
  EVENT_EXAMPLES,
  FORM_EXAMPLE,
  LEAD_BODY_EXAMPLE,
  LEAD_EXAMPLE,
  LEAD_LIST_ITEM_EXAMPLE,
  LEAD_PATCH_RESULT_EXAMPLE,
  NOTE_EXAMPLE,
  PERSONAL_DATA_EXPORT_EXAMPLE,
  WEBHOOK_ENDPOINT_EXAMPLE,
  WORK_ITEM_LIST_ITEM_EXAMPLE,
} from './examples.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is free-form JSON, walked and rewritten here
type Json = Record<string, any>;

const REF = '#/components/schemas/';
const ref = (name: string) => ({ $ref: `${REF}${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The formats ajv-formats knows and OpenAPI tools share; anything else is left out of the document. */
const STANDARD_FORMATS = new Set(['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'int32', 'int64']);

/** The headers the service sends, with what they hold (see app.ts, plugins/rate-limit.ts, idempotency.ts). */
export const RESPONSE_HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description:
      'The request id (req_…, or the caller’s own X-Request-Id when it is 1 to 128 of A-Z a-z 0-9 . _ : -). Problem bodies carry it as requestId; quote it when reporting a problem.',
    required: true,
    schema: { type: 'string', examples: ['req_01m86veqw0b40pcnk4pwcbnmx8'] },
  },
  'RateLimit-Limit': {
    description: 'Requests this API key may make per minute of this kind (reads: GET; writes: the rest).',
    required: true,
    schema: { type: 'integer', minimum: 0, examples: [600] },
  },
  'RateLimit-Remaining': {
    description: 'Requests of this kind left in the current window.',
    required: true,
    schema: { type: 'integer', minimum: 0, examples: [599] },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the current window ends and the budget is full again.',
    required: true,
    schema: { type: 'integer', minimum: 1, examples: [42] },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1, examples: [5] },
  },
  Location: {
    description: 'The path of what was created (or, on a 303, where the browser goes next).',
    required: true,
    schema: { type: 'string', examples: ['/v1/leads/wrk_01m86veqrn19z74s8skcy4mytv'] },
  },
  'Idempotent-Replayed': {
    description:
      'true when this is the stored response of an earlier request with the same Idempotency-Key (nothing was created this time).',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
  Allow: {
    description: 'The methods the path does accept.',
    required: true,
    schema: { type: 'string', examples: ['GET, POST'] },
  },
  'WWW-Authenticate': {
    description: 'The ways to send an API key: Authorization: Bearer or the X-API-Key header.',
    required: true,
    schema: { type: 'string', examples: ['Bearer, ApiKey header="X-API-Key"'] },
  },
  ETag: {
    description:
      'A weak validator of the body (the same for every Content-Encoding of it); send it back in If-None-Match to get a 304 when unchanged. Absent when the service runs with ETAGS=off.',
    required: false,
    schema: { type: 'string', examples: ['W/"q5TAaU4b1mXhXbb2ZK2u4Yg3tGc"'] },
  },
  'Cache-Control': {
    description:
      '`private, no-cache` on API reads: a cache may keep the response for this caller only, and must revalidate it. `no-store` on the CSV exports.',
    required: true,
    schema: { type: 'string', examples: ['private, no-cache'] },
  },
};

/** The request headers of a webhook delivery (see webhooks/worker.ts and webhooks/signature.ts). */
const DELIVERY_HEADERS: Json[] = [
  {
    name: 'Lead-Intake-Event-Id',
    in: 'header',
    required: true,
    description: 'The event id (evt_…); the same in every attempt. De-duplicate by it.',
    schema: { type: 'string', pattern: '^evt_[0-9a-z]{26}$' },
    example: 'evt_01m86vexd2m3s6ckfg0a3cq1hw',
  },
  {
    name: 'Lead-Intake-Signature',
    in: 'header',
    required: true,
    description:
      '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the whole secret string (`whsec_…`), as Stripe’s libraries expect. During a secret rotation a second `v1` signs with the previous secret. Verify with `verifySignature` from `lead-intake/webhooks`, or `stripe.webhooks.constructEvent`; reject a `t` more than 5 minutes old.',
    schema: { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' },
    example: 't=1764000000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
  },
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: the event id (evt_…), as in Lead-Intake-Event-Id.',
    schema: { type: 'string' },
    example: 'evt_01m86vexd2m3s6ckfg0a3cq1hw',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: unix seconds, the same as Lead-Intake-Signature’s `t`.',
    schema: { type: 'string', pattern: '^\\d+$' },
    example: '1764000000',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: false,
    description:
      'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` keyed with the base64-decoded part of the secret after `whsec_`; space-separated, one per secret, during a rotation. Verify with the `standardwebhooks` libraries. Left out only for a secret issued before the standard format (whsec_ + base64url) that has not been rotated since.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

/** Example ids per path prefix: ids are <prefix>_<26 characters of Crockford base32> (domain/ids.ts). */
const ID_EXAMPLES: [RegExp, string, string][] = [
  [/^\/v1\/(leads|work-items|exports)/, 'id', 'wrk_01m86veqrn19z74s8skcy4mytv'],
  [/^\/v1\/customers/, 'id', 'cus_cgayhqrssy2sbx1yhb4hcqc5t4'],
  [/^\/v1\/forms/, 'id', 'frm_01m86veqwa9tgp4pvbzsq2gnrr'],
  [/^\/v1\/webhook-endpoints/, 'id', 'whk_01m86vf2k8d3q5r7t9v1x3z5b7'],
  [/./, 'deliveryId', 'whd_01m86vf5q1w3e5r7t9y1u3p5a7'],
  [/./, 'noteId', 'not_01m86veqtz185ks7a6brz7sfn4'],
  [/./, 'formId', 'frm_01m86veqwa9tgp4pvbzsq2gnrr'],
];

const CURSOR_EXAMPLE = `l1.${Buffer.from('d.1764000050965.wrk_01m86veqrn19z74s8skcy4mytv').toString('base64url')}`;

/** Query parameter examples by name (the status example depends on the list). */
function queryExample(path: string, name: string): unknown {
  const work = path.includes('work-items');
  const examples: Record<string, unknown> = {
    limit: 50,
    cursor: CURSOR_EXAMPLE,
    order: 'desc',
    receivedAfter: '2026-11-01T00:00:00.000Z',
    receivedBefore: '2026-12-01T00:00:00.000Z',
    updatedAfter: '2026-11-21T09:30:00.000Z',
    createdAfter: '2026-11-21T09:30:00.000Z',
    createdBefore: '2026-12-01T00:00:00.000Z',
    scheduledFrom: '2026-11-23T00:00:00+01:00',
    scheduledTo: '2026-11-30T00:00:00+01:00',
    status: work ? 'scheduled,planned' : 'request,quoted',
    source: 'website,form',
    customerId: 'cus_cgayhqrssy2sbx1yhb4hcqc5t4',
    assigneeId: 'usr_01m86vd1x3c5v7b9n1m3k5j7h9',
    type: 'lead.created,lead.status_changed',
    email: 'anna@example.com',
    phone: '+31612345678',
    bom: false,
  };
  return examples[name];
}

/** Request body examples by component name. */
const BODY_EXAMPLES: Record<string, unknown> = {
  LeadCreate: LEAD_BODY_EXAMPLE,
  LeadPatch: {
    status: 'planned',
    scheduledFor: '2026-11-26T08:00:00Z',
    durationMinutes: 90,
    assigneeId: 'usr_01m86vd1x3c5v7b9n1m3k5j7h9',
  },
  NoteCreate: { text: 'Customer prefers mornings.' },
  FormCreate: { name: 'Website contact form', allowedOrigins: ['https://www.example.nl'] },
  FormUpdate: { enabled: false },
  WebhookEndpointCreate: {
    url: 'https://example.com/hooks/lead-intake',
    events: ['lead.created', 'lead.status_changed'],
    description: 'CRM sync',
  },
  WebhookEndpointUpdate: { enabled: true },
};

const page = (item: unknown) => ({ data: [item], limit: 50, hasMore: true, nextCursor: CURSOR_EXAMPLE });

/** Response examples by component name. */
const RESPONSE_EXAMPLES: Record<string, unknown> = {
  Lead: LEAD_EXAMPLE,
  LeadPatchResult: LEAD_PATCH_RESULT_EXAMPLE,
  CreatedLead: CREATED_LEAD_EXAMPLE,
  LeadList: page(LEAD_LIST_ITEM_EXAMPLE),
  WorkItemList: page(WORK_ITEM_LIST_ITEM_EXAMPLE),
  Note: NOTE_EXAMPLE,
  NoteList: page(NOTE_EXAMPLE),
  CustomerList: page(CUSTOMER_EXAMPLE),
  CustomerDetail: CUSTOMER_DETAIL_EXAMPLE,
  AddressList: page(ADDRESS_EXAMPLE),
  PersonalDataExport: PERSONAL_DATA_EXPORT_EXAMPLE,
  EventList: page(EVENT_EXAMPLES['lead.created']),
  WebhookEndpoint: WEBHOOK_ENDPOINT_EXAMPLE,
  WebhookEndpointCreated: {
    ...WEBHOOK_ENDPOINT_EXAMPLE,
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6ctABQdCvZo=',
  },
  WebhookEndpointList: page(WEBHOOK_ENDPOINT_EXAMPLE),
  Form: FORM_EXAMPLE,
  FormList: page(FORM_EXAMPLE),
};

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Calls `visit` on every object in `node`, depth first, children before their parent. */
function walk(node: unknown, visit: (object: Json) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit);
  } else if (isObject(node)) {
    for (const value of Object.values(node)) walk(value, visit);
    visit(node);
  }
}

const sortedJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );

/**
 * Moves every schema with a `title` into components.schemas under that title and leaves a $ref. Two different
 * schemas with the same title would both be kept inline (and `conflicts` names them): the document test fails
 * on that rather than the document silently merging them.
 */
function hoistTitledSchemas(doc: Json, conflicts: string[]): void {
  const schemas: Json = doc.components.schemas;
  const seen = new Map<string, string>();
  const hoist = (node: Json, key: string, parent: Json) => {
    const schema = node[key];
    if (!isObject(schema) || typeof schema.title !== 'string' || schema.$ref) return;
    const name: string = schema.title;
    if (name === 'lead-intake API') return;
    const { description, ...rest } = schema;
    const canonical = sortedJson(rest);
    const known = seen.get(name);
    if (known === undefined) {
      seen.set(name, canonical);
      schemas[name] = { ...schema };
    } else if (known !== canonical) {
      if (!conflicts.includes(name)) conflicts.push(name);
      return;
    }
    // A description the component does not have stays next to the $ref (3.1 allows siblings of $ref).
    const own = description !== undefined && description !== schemas[name].description ? { description } : {};
    parent[key] = { ...ref(name), ...own };
  };
  // Children first: a list envelope is hoisted after its items, so its component already holds their $ref.
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach((_item, i) => {
        visit(node[i]);
        hoist(node as unknown as Json, String(i), node as unknown as Json);
      });
    } else if (isObject(node)) {
      for (const key of Object.keys(node)) {
        visit(node[key]);
        if (key !== 'components') hoist(node, key, node);
      }
    }
  };
  visit(doc.paths);
  // The components hoisted so far may hold titled schemas themselves (already replaced on the way down).
}

/** Route schemas use a few validator-only keywords and a custom format; the document states them portably. */
function portableSchemas(doc: Json): void {
  walk(doc, (node) => {
    if (typeof node.format === 'string' && !STANDARD_FORMATS.has(node.format)) {
      if (node.format === 'cursor') {
        node.pattern = '^l1\\.[A-Za-z0-9_-]+$';
        node.examples = [CURSOR_EXAMPLE];
      }
      delete node.format;
    }
    delete node['x-validator'];
    delete node['x-error'];
    if (typeof node['x-served-max'] === 'number') {
      node.description ??= `Values above ${node['x-served-max']} are served as ${node['x-served-max']}.`;
      delete node['x-served-max'];
    }
    // A union of one-value string enums (TypeBox literals) is a plain enum.
    if (
      Array.isArray(node.anyOf) &&
      node.anyOf.length > 1 &&
      node.anyOf.every(
        (s: Json) => s.type === 'string' && Array.isArray(s.enum) && Object.keys(s).length === 2,
      )
    ) {
      node.type = 'string';
      node.enum = node.anyOf.flatMap((s: Json) => s.enum);
      delete node.anyOf;
    }
  });
}

/** The names of the components.schemas entries `roots` refer to, directly or through other components. */
function componentsReached(doc: Json, roots: unknown[]): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void =>
    walk(node, (object) => {
      if (typeof object.$ref !== 'string' || !object.$ref.startsWith(REF)) return;
      const name = object.$ref.slice(REF.length).split('/')[0] ?? '';
      if (names.has(name)) return;
      names.add(name);
      visit(doc.components.schemas[name]);
    });
  for (const root of roots) visit(root);
  return names;
}

/** The default as the description says it: `medium`, `false`, `["a"]`. */
const defaultText = (value: unknown) => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;

/**
 * Defaults of request fields, said in words. openapi-typescript (with its default options) and generators like it
 * read a `default` in a named schema as "the server always fills it in" and make the field required, exempting
 * only inline request bodies and parameters: a client generated from the document demanded `priority` in every
 * LeadCreate. In the components only requests use, a property's `default` moves into its description (which
 * keeps its own wording when it already states the default); parameters keep theirs, and what responses use
 * (webhook payloads included) is left as it is.
 */
function requestDefaultsInWords(doc: Json): void {
  const requests: unknown[] = [];
  const responses: unknown[] = [doc.components.responses, doc.components.headers, doc.webhooks];
  for (const item of Object.values<Json>(doc.paths)) {
    for (const operation of Object.values<Json>(item)) {
      requests.push(operation.requestBody, operation.parameters);
      responses.push(operation.responses);
    }
  }
  const answered = componentsReached(doc, responses);
  for (const name of componentsReached(doc, requests)) {
    if (answered.has(name)) continue;
    walk(doc.components.schemas[name], (node) => {
      if (!isObject(node.properties)) return;
      for (const property of Object.values(node.properties)) {
        if (!isObject(property) || !('default' in property)) continue;
        const text = defaultText(property.default);
        const plain = text.slice(1, -1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        const stated = new RegExp(`\\bdefaults?( to|:)? [\`"]?${plain}[\`"]?(\\W|$)`, 'i');
        if (typeof property.description !== 'string') property.description = `Default: ${text}.`;
        else if (!stated.test(property.description)) property.description += ` Default: ${text}.`;
        delete property.default;
      }
    });
  }
}

const problemContent = { 'application/problem+json': { schema: ref('Problem') } };

const STATUS_TEXT: Record<number, string> = {
  304: 'Not modified: the If-None-Match header names the current ETag. No body.',
  400: 'Malformed JSON or a bad header.',
  401: 'API key missing, unknown, revoked or expired.',
  403: 'The API key lacks the scope this route needs.',
  404: 'Unknown path or id, or an id of another brand.',
  405: 'The path exists, the method does not; Allow lists the methods it takes.',
  409: 'State change not allowed from the current state.',
  413: 'Body over 64 KiB.',
  415: 'Body is not application/json.',
  422: 'Validation failed; `errors` lists every failing field.',
  429: 'Rate limit reached; see Retry-After.',
  500: 'Something went wrong on our side; quote requestId when reporting it.',
  503: 'Database unreachable, server overloaded or shutting down; nothing was stored. See Retry-After.',
};

/** Reusable error responses (components.responses), by status: for routes with an API key, and public ones. */
const RESPONSE_NAMES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'ValidationFailed',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/** The headers a response carries, by what the route is and its status (see the comments in RESPONSE_HEADERS). */
function headersOf(
  status: number,
  options: { scoped: boolean; path: string; operationId?: string },
): string[] {
  const names = ['X-Request-Id'];
  // The key's budget is counted once the key is known (auth, then preParsing), so every answer to a route with
  // a key carries it but a 401 (no key), a 405 (no route), a 500 and the 503 of load shedding (before auth).
  if (options.scoped && ![401, 405, 500, 503].includes(status)) names.push(...RATE_LIMIT_HEADERS);
  if (status === 429 || status === 503) names.push('Retry-After');
  if (status === 405) names.push('Allow');
  if (status === 401 && options.scoped) names.push('WWW-Authenticate');
  if (status === 303 || (status === 201 && options.path !== '/f/{formId}')) names.push('Location');
  if (status === 201 && options.operationId === 'createLead') names.push('Idempotent-Replayed');
  return names;
}

const headerRefs = (names: string[]) => Object.fromEntries(names.map((name) => [name, headerRef(name)]));

const BODY_METHODS = new Set(['post', 'put', 'patch']);

function isApiPath(path: string): boolean {
  return path.startsWith('/v1/') || path === '/address';
}

/** components.responses: each reusable error once, for API routes (Scoped…) and public ones. */
function reusableResponses(): Json {
  const out: Json = {};
  for (const [statusText, name] of Object.entries(RESPONSE_NAMES)) {
    const status = Number(statusText);
    for (const scoped of [true, false]) {
      out[scoped ? name : `Public${name}`] = {
        description: STATUS_TEXT[status],
        headers: headerRefs(headersOf(status, { scoped, path: '' })),
        content: problemContent,
      };
    }
  }
  return out;
}

/** Where an operation is and what it is: its path, method, whether it needs an API key, and its responses. */
interface OperationSite {
  path: string;
  method: string;
  operation: Json;
  responses: Json;
  scoped: boolean;
  /** The hosted pages (/f/…), which answer browsers with HTML. */
  html: boolean;
}

/** The error statuses every operation can give by what it is: any route, a scoped one, one with a body. */
function addErrorStatuses({ path, method, operation, responses, scoped }: OperationSite): void {
  const addError = (status: number) => {
    responses[status] ??= { description: STATUS_TEXT[status], content: problemContent };
  };
  addError(405);
  addError(500);
  addError(503);
  if (scoped || (path === '/f/{formId}' && method === 'post')) addError(429);
  if (BODY_METHODS.has(method)) {
    for (const status of [400, 413, 415]) addError(status);
    if (operation.requestBody) addError(422);
  }
}

/**
 * API reads carry Cache-Control; all but the streamed CSV exports also an ETag, and answer a matching
 * If-None-Match with a 304 (src/platform/http/plugins/http-conventions.ts). Returns which of the two apply.
 */
function addConditionalRead({ path, method, operation, responses, scoped }: OperationSite): {
  read: boolean;
  conditional: boolean;
} {
  const read = scoped && method === 'get' && isApiPath(path);
  const conditional = read && !path.endsWith('.csv');
  if (conditional) {
    responses[304] = { description: STATUS_TEXT[304] };
    operation.parameters ??= [];
    operation.parameters.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description:
        'The ETag of a response you hold: when it is still current the answer is a 304 without body.',
      schema: { type: 'string' },
      example: 'W/"q5TAaU4b1mXhXbb2ZK2u4Yg3tGc"',
    });
  }
  return { read, conditional };
}

/**
 * Each response's headers, errors as problem+json (and HTML for the hosted pages), and the plain errors as
 * references to the reusable responses, whose names go into `used`.
 */
function finishResponses(
  site: OperationSite,
  { read, conditional }: { read: boolean; conditional: boolean },
  used: Set<string>,
): void {
  const { path, operation, responses, scoped, html } = site;
  for (const [statusText, response] of Object.entries<Json>(responses)) {
    const status = Number(statusText);
    if (status >= 400) {
      // Errors are problem+json, whatever the route schema's media type said (the 409 of POST /v1/leads).
      if (response.content?.['application/json']) {
        response.content['application/problem+json'] = response.content['application/json'];
        delete response.content['application/json'];
      }
      // The hosted pages answer browsers with HTML and JSON clients with problem+json.
      // A copy: problemContent is shared by every operation's errors and the reusable responses.
      if (html) response.content = { ...response.content, 'text/html': { schema: { type: 'string' } } };
    }
    const names = headersOf(status, { scoped, path, operationId: operation.operationId });
    if (conditional && (status === 200 || status === 304)) names.push('ETag');
    if (read && (status === 200 || status === 304)) names.push('Cache-Control');
    const name = RESPONSE_NAMES[status];
    if (
      !html &&
      name &&
      response.description === STATUS_TEXT[status] &&
      sortedJson(response.content) === sortedJson(problemContent)
    ) {
      const component = scoped ? name : `Public${name}`;
      used.add(component);
      responses[statusText] = { $ref: `#/components/responses/${component}` };
      continue;
    }
    response.headers = { ...response.headers, ...headerRefs(names) };
  }
}

/** Examples for the parameters, the JSON body and the JSON responses that have none. */
function addExamples({ path, operation, responses }: OperationSite): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.example !== undefined || parameter.examples !== undefined) continue;
    if (parameter.in === 'path') {
      const match = ID_EXAMPLES.find(([prefix, name]) => name === parameter.name && prefix.test(path));
      if (match) parameter.example = match[2];
    } else if (parameter.in === 'query') {
      const example = queryExample(path, parameter.name);
      if (example !== undefined) parameter.example = example;
    } else if (parameter.name === 'idempotency-key') {
      parameter.example = '5f0c6f7e-8a52-4c1e-9a57-2b3f1d7c9e10';
    }
  }
  const body = operation.requestBody?.content?.['application/json'];
  const bodyName = body?.schema?.$ref?.slice(REF.length);
  if (body && bodyName && BODY_EXAMPLES[bodyName] !== undefined) body.example = BODY_EXAMPLES[bodyName];
  for (const response of Object.values<Json>(responses)) {
    const media = response.content?.['application/json'];
    const name = media?.schema?.$ref?.slice(REF.length);
    if (media && name && RESPONSE_EXAMPLES[name] !== undefined) media.example = RESPONSE_EXAMPLES[name];
  }
}

/** Statuses, headers, parameters and examples every operation gets by what it is. */
function completeOperations(doc: Json): void {
  const used = new Set<string>();
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      const site: OperationSite = {
        path,
        method,
        operation,
        responses: operation.responses,
        scoped: Array.isArray(operation.security) && operation.security.length > 0,
        html: path.startsWith('/f/'),
      };
      addErrorStatuses(site);
      finishResponses(site, addConditionalRead(site), used);
      addExamples(site);
    }
  }
  // Only the responses some operation uses (unused components are a lint warning).
  const all = reusableResponses();
  doc.components.responses = Object.fromEntries(Object.entries(all).filter(([name]) => used.has(name)));
}

/** What each event type's `data` always holds (see the recordEvent calls in src/domain). */
const EVENT_DATA: Record<(typeof EVENT_TYPES)[number], string[]> = {
  'lead.created': ['lead'],
  'lead.status_changed': ['lead', 'from', 'to'],
  'lead.updated': ['lead', 'changed'],
  'note.created': ['note', 'leadId'],
  'attachment.created': ['attachment'],
  'attachment.deleted': ['attachment'],
  'customer.created': ['customer'],
  'customer.updated': ['customer', 'changed'],
  'customer.merged': ['customer', 'from'],
  'customer.erased': ['customer', 'erasedAt'],
};

/** The 3.1 webhooks section: what a receiver gets for each event type, and what it should answer. */
function webhooks(): Json {
  const out: Json = {};
  for (const type of EVENT_TYPES) {
    out[type] = {
      post: {
        operationId: `webhook_${type.replace('.', '_')}`,
        tags: ['Webhooks'],
        summary: `${type} delivery`,
        description: `What a webhook endpoint subscribed to \`${type}\` receives: a POST of the event JSON (the same as in GET /v1/events), \`Content-Type: application/json\`, signed with the endpoint's secret. Verify the signature over the raw body before parsing it. Any 2xx within 10 s is success; anything else (or no answer) is retried with exponential backoff and jitter for up to 24 hours, at least once, in no guaranteed order: de-duplicate by the event id. An endpoint failing for 24 hours is disabled.`,
        security: [],
        parameters: DELIVERY_HEADERS,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                allOf: [ref('Event')],
                required: ['type', 'data'],
                properties: {
                  type: { const: type },
                  data: {
                    type: 'object',
                    required: EVENT_DATA[type],
                    properties: Object.fromEntries(
                      EVENT_DATA[type].map((name) => [
                        name,
                        { $ref: `${REF}Event/properties/data/properties/${name}` },
                      ]),
                    ),
                  },
                },
              },
              ...(EVENT_EXAMPLES[type as keyof typeof EVENT_EXAMPLES]
                ? { example: EVENT_EXAMPLES[type as keyof typeof EVENT_EXAMPLES] }
                : {}),
            },
          },
        },
        responses: {
          '2XX': { description: 'Delivered: any 2xx within 10 s. The body is ignored.' },
          '4XX': { description: 'Not delivered: retried (a 4xx too), until 24 hours have passed.' },
          '5XX': { description: 'Not delivered: retried with backoff, until 24 hours have passed.' },
        },
      },
    };
  }
  return out;
}

/**
 * The @fastify/swagger `transformObject` hook. Returns a new document; `conflicts` receives the titles of
 * schemas that could not become components (two different schemas with one title).
 */
export function finishDocument(input: Json, conflicts: string[] = []): Json {
  const doc: Json = structuredClone(input);
  doc.components.schemas ??= {};
  hoistTitledSchemas(doc, conflicts);
  // A work item is the lead record once scheduled: the same shape, its own name for generated clients.
  doc.components.schemas.WorkItem = {
    ...ref('Lead'),
    description:
      'A lead that has been scheduled (the same record and shape as a lead, in a work-item state).',
  };
  const getWorkItem =
    doc.paths['/v1/work-items/{id}']?.get?.responses?.['200']?.content?.['application/json'];
  if (getWorkItem) getWorkItem.schema = ref('WorkItem');
  portableSchemas(doc);
  // The lead's `source` is one of a closed set (domain/states.ts); its read shape declares a plain string.
  for (const name of ['Lead', 'LeadPatchResult', 'CreatedLead', 'LeadListItem', 'WorkItemListItem']) {
    const source = doc.components.schemas[name]?.properties?.source;
    if (source?.type === 'string' && !source.enum) source.enum = [...LEAD_SOURCES];
  }
  doc.components.headers = RESPONSE_HEADERS;
  completeOperations(doc);
  doc.webhooks = webhooks();
  requestDefaultsInWords(doc);
  return doc;
}
