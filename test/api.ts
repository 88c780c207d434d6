// One way for tests to call the app in process (app.inject): the API key header, a JSON body with its content
// type, the response as inject gives it (.statusCode, .headers, .body, .json()). Test files used to write this
// plumbing as wrappers of their own; they call this instead and keep only what is theirs to check.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { App } from '../src/app.js';

export type ApiResponse = LightMyRequestResponse;
export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface CallOptions {
  /** The API key for this request instead of the client's; null sends no key at all. */
  key?: string | null;
  /**
   * Headers sent after the key and the content type, so they can replace either; a header set to undefined is
   * left out (a body without a content type, say).
   */
  headers?: Record<string, string | undefined>;
  /** The Idempotency-Key header. */
  idempotencyKey?: string;
  /** The client's address (rate limits, trusted proxies). */
  remoteAddress?: string;
}

export interface ApiClient {
  readonly app: App;
  /** The key sent when a request names none (null: none). */
  readonly key: string | null;
  /**
   * A request; `payload` undefined sends no body, raw(…) or a Buffer is sent as it is, anything else (a string
   * too) as JSON. A body goes with content type JSON unless the headers say otherwise.
   */
  request(method: Method, url: string, payload?: unknown, options?: CallOptions): Promise<ApiResponse>;
  get(url: string, options?: CallOptions): Promise<ApiResponse>;
  delete(url: string, options?: CallOptions): Promise<ApiResponse>;
  post(url: string, payload?: unknown, options?: CallOptions): Promise<ApiResponse>;
  put(url: string, payload?: unknown, options?: CallOptions): Promise<ApiResponse>;
  patch(url: string, payload?: unknown, options?: CallOptions): Promise<ApiResponse>;
  /** GET that must answer 200 (else it throws with the answer): its JSON body, typed as inject's json() is. */
  // biome-ignore lint/suspicious/noExplicitAny: the same default as LightMyRequestResponse.json()
  read<T = any>(url: string, options?: CallOptions): Promise<T>;
  /** The same client with another key (null: none). */
  as(key: string | null): ApiClient;
}

/** A client of `app` that sends `key` as X-API-Key unless a request names another. */
export function apiClient(app: App, key: string | null): ApiClient {
  const request = (method: Method, url: string, payload?: unknown, options: CallOptions = {}) => {
    const apiKey = options.key === undefined ? key : options.key;
    const headers: Record<string, string | undefined> = {
      ...(apiKey === null ? {} : { 'x-api-key': apiKey }),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey }),
      ...options.headers,
    };
    for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
    return app.inject({
      method,
      url,
      headers: headers as Record<string, string>,
      ...(payload === undefined ? {} : { payload: encode(payload) }),
      ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
    });
  };
  return {
    app,
    key,
    request,
    get: (url, options) => request('GET', url, undefined, options),
    delete: (url, options) => request('DELETE', url, undefined, options),
    post: (url, payload, options) => request('POST', url, payload, options),
    put: (url, payload, options) => request('PUT', url, payload, options),
    patch: (url, payload, options) => request('PATCH', url, payload, options),
    async read(url, options) {
      const res = await request('GET', url, undefined, options);
      if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    },
    as: (other) => apiClient(app, other),
  };
}

/** A body sent as it is: broken JSON, text that only looks like JSON, exact bytes. */
export class RawBody {
  constructor(readonly body: string | Buffer) {}
}
export const raw = (body: string | Buffer) => new RawBody(body);

function encode(payload: unknown): InjectOptions['payload'] {
  if (payload instanceof RawBody) return payload.body;
  return Buffer.isBuffer(payload) ? payload : JSON.stringify(payload);
}

export interface FormPostOptions {
  /** The Origin header: the page the form is on. Default: the poster's origin; null sends none. */
  origin?: string | null;
  headers?: Record<string, string | undefined>;
  remoteAddress?: string;
}

/** Posts to a website form (POST /f/{id}) as a browser on `origin` does: form-encoded, or JSON as fetch() does. */
export interface FormPoster {
  /** Form-encoded fields; a string or Buffer is the encoded body, sent as it is. */
  form(
    formId: string,
    fields: Record<string, string> | string | Buffer,
    options?: FormPostOptions,
  ): Promise<ApiResponse>;
  /** A JSON body, encoded as ApiClient encodes one: raw(…) or a Buffer as it is, anything else as JSON. */
  json(formId: string, body: unknown, options?: FormPostOptions): Promise<ApiResponse>;
}

/** `app` may be a function that returns it, for an app a beforeAll makes. */
export function formPoster(app: App | (() => App), origin: string | null): FormPoster {
  const appOf = typeof app === 'function' ? app : () => app;
  const post = (
    formId: string,
    type: string,
    payload: InjectOptions['payload'],
    options: FormPostOptions = {},
  ) => {
    const from = options.origin === undefined ? origin : options.origin;
    const headers: Record<string, string | undefined> = {
      'content-type': type,
      ...(from === null ? {} : { origin: from }),
      ...options.headers,
    };
    for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
    return appOf().inject({
      method: 'POST',
      url: `/f/${formId}`,
      headers: headers as Record<string, string>,
      payload,
      ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
    });
  };
  return {
    form: (formId, fields, options) =>
      post(
        formId,
        'application/x-www-form-urlencoded',
        typeof fields === 'string' || Buffer.isBuffer(fields)
          ? fields
          : new URLSearchParams(fields).toString(),
        options,
      ),
    json: (formId, body, options) => post(formId, 'application/json', encode(body), options),
  };
}
