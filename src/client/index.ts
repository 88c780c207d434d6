// lead-intake/client: a typed client for the lead-intake API, a thin layer over openapi-fetch.
//
// Every path, parameter, body and response type comes from ./openapi.js, which `npm run build` generates from the
// service's own OpenAPI document (scripts/build-client.mjs; tsconfig rootDirs find it in dist/client). Nothing here
// names a path by hand except in comments. Added on top of openapi-fetch:
//
//   - the API key, sent as `Authorization: Bearer <key>` (or `X-API-Key`);
//   - an `Idempotency-Key` (a random UUID) on every operation that honours one (POST /v1/leads), unless the caller
//     set one; the same key goes out on each retry of that request, so a retry never creates twice;
//   - retries of 429 and 503, waiting as `Retry-After` says (seconds or an HTTP date), else exponential backoff
//     with jitter; network errors are retried only for idempotent methods or requests that carry an
//     Idempotency-Key;
//   - paginate(): an async iterator over the items of any list operation, following `nextCursor`.
//
// It needs only the Fetch API (Node 20+, browsers, edge runtimes); it imports no server code.
import createFetchClient, { type Client, type FetchOptions, type Middleware } from 'openapi-fetch';
import type { paths } from './openapi.js';
import { idempotencyKeyOperations } from './operations.js';

export type { components, operations, paths } from './openapi.js';

export interface ClientOptions {
  /** Where the service is, e.g. `https://leads.example.com` (no `/v1`: paths carry it). */
  baseUrl: string;
  /** An API key (`lik_…`). Leave it out only for public operations. */
  apiKey?: string;
  /** How the key is sent: `bearer` (default, `Authorization: Bearer <key>`) or `x-api-key`. */
  authHeader?: 'bearer' | 'x-api-key';
  /** A Fetch implementation (default `globalThis.fetch`). */
  fetch?: (request: Request) => Promise<Response>;
  /** Further attempts after the first for 429, 503 and retryable network errors (default 2; 0 turns retries off). */
  retries?: number;
  /** Longest wait before a retry, in ms (default 60 000). A `Retry-After` asking for more is not retried. */
  maxRetryDelayMs?: number;
  /** Backoff without `Retry-After`: a random wait up to base × 2^attempt ms (default base 500). */
  retryBaseDelayMs?: number;
  /** Makes Idempotency-Key values (default `crypto.randomUUID()`). */
  idempotencyKey?: () => string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

// ---- Types derived from the generated paths --------------------------------------------------------------------

type GetOperation<P extends keyof paths> = paths[P] extends { get: infer Operation } ? Operation : never;
type OkBody<Operation> = Operation extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;
type ErrorBody<Operation> = Operation extends { responses: infer Responses }
  ? {
      [Status in keyof Responses]: Status extends 200
        ? never
        : Responses[Status] extends { content: { 'application/problem+json': infer Body } }
          ? Body
          : Responses[Status] extends { content: { 'application/json': infer Body } }
            ? Body
            : never;
    }[keyof Responses]
  : never;

/** The paths whose GET answers with the list envelope `{ data: [...], nextCursor }`. */
export type ListPath = {
  [P in keyof paths]: OkBody<GetOperation<P>> extends { data: readonly unknown[]; nextCursor: string | null }
    ? P
    : never;
}[keyof paths];

/** The item type of a list path, e.g. `ListItem<'/v1/leads'>`. */
export type ListItem<P extends ListPath> =
  OkBody<GetOperation<P>> extends { data: readonly (infer Item)[] } ? Item : never;

/** The request options of a list path: its path and query parameters (a `cursor` given here is where it starts). */
export type ListInit<P extends ListPath> = FetchOptions<GetOperation<P>>;

/** The typed client: openapi-fetch's GET/POST/PATCH/DELETE/… over the generated paths, plus paginate(). */
export interface LeadIntakeClient extends Client<paths> {
  /**
   * Every item of a list operation, page after page, following `nextCursor` until it is null. A page that fails
   * (after retries) throws an {@link ApiError} carrying the problem+json body.
   */
  paginate<P extends ListPath>(
    path: P,
    ...init: RequiredInit<ListInit<P>>
  ): AsyncGenerator<ListItem<P>, void>;
}
type RequiredInit<Init> = Init extends { params: { path: unknown } } ? [init: Init] : [init?: Init];

/** The error bodies (problem+json) that list operations declare. */
export type ListProblem = { [P in ListPath]: ErrorBody<GetOperation<P>> }[ListPath];

/** A failed page of paginate(): the HTTP status and the problem+json body, typed from the document. */
export class ApiError<Problem = ListProblem> extends Error {
  readonly status: number;
  readonly problem: Problem;
  readonly response: Response;
  constructor(response: Response, problem: Problem) {
    const detail = (problem as { detail?: unknown } | undefined)?.detail;
    super(`${response.status} ${typeof detail === 'string' ? detail : response.statusText}`);
    this.name = 'ApiError';
    this.status = response.status;
    this.problem = problem;
    this.response = response;
  }
}

// ---- Retries ------------------------------------------------------------------------------------------------------

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const RETRY_STATUSES = new Set([429, 503]);
const KEYED_OPERATIONS = new Set(idempotencyKeyOperations);

/**
 * How long Retry-After asks to wait, in ms: delay-seconds or an HTTP date (RFC 9110 10.2.3). Undefined when the
 * header is absent or unreadable.
 */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date starts with the day's name ("Tue, 24 Nov 2026 10:00:05 GMT"); Date.parse alone takes "-1" too.
  const at = /^[A-Za-z]/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

interface RetryPolicy {
  retries: number;
  maxDelayMs: number;
  baseDelayMs: number;
}

/**
 * Sends the request, and again on 429/503 (any method: the service answers both before doing any work, "nothing
 * was stored") or on a network error when a repeat is safe (an idempotent method, or an Idempotency-Key). Each
 * attempt sends a clone, so the body and headers (the Idempotency-Key among them) are the same every time. The
 * last answer, a 429/503 included, goes back to openapi-fetch, which types it as the error.
 */
function retryingFetch(send: (request: Request) => Promise<Response>, policy: RetryPolicy) {
  return async (request: Request): Promise<Response> => {
    const safeOnNetworkError =
      IDEMPOTENT_METHODS.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= policy.retries;
      const backoff = Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
      let response: Response;
      try {
        response = await send(last ? request : request.clone());
      } catch (error) {
        if (last || !safeOnNetworkError || request.signal.aborted) throw error;
        await sleep(backoff, request.signal);
        continue;
      }
      if (last || !RETRY_STATUSES.has(response.status)) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      // Waiting less than the server asked would only be refused again: hand its answer to the caller instead.
      if (asked !== undefined && asked > policy.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(asked ?? backoff, request.signal);
    }
  };
}

// ---- The client ---------------------------------------------------------------------------------------------------

export function createClient(options: ClientOptions): LeadIntakeClient {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) {
    if (options.authHeader === 'x-api-key') headers['X-API-Key'] = options.apiKey;
    else headers.Authorization = `Bearer ${options.apiKey}`;
  }
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    fetch: retryingFetch(send, {
      retries: Math.max(0, Math.floor(options.retries ?? 2)),
      maxDelayMs: options.maxRetryDelayMs ?? 60_000,
      baseDelayMs: options.retryBaseDelayMs ?? 500,
    }),
  });

  const newKey = options.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const idempotency: Middleware = {
    onRequest({ request, schemaPath }) {
      // Once per call, before the first attempt: retries reuse this request and so this key.
      if (
        KEYED_OPERATIONS.has(`${request.method} ${schemaPath}`) &&
        !request.headers.has('idempotency-key')
      ) {
        request.headers.set('Idempotency-Key', newKey());
      }
      return request;
    },
  };
  client.use(idempotency);

  async function* paginate<P extends ListPath>(
    path: P,
    ...[init]: RequiredInit<ListInit<P>>
  ): AsyncGenerator<ListItem<P>, void> {
    // The generic GET cannot be called with an unresolved path type; the signature above keeps callers typed.
    const get = client.GET as unknown as (
      path: string,
      init: Record<string, unknown>,
    ) => Promise<{
      data?: { data: ListItem<P>[]; nextCursor: string | null };
      error?: unknown;
      response: Response;
    }>;
    const base = (init ?? {}) as { params?: { query?: Record<string, unknown> } };
    let cursor = base.params?.query?.cursor as string | undefined;
    for (;;) {
      const query = { ...base.params?.query, ...(cursor === undefined ? {} : { cursor }) };
      const { data, error, response } = await get(path, { ...base, params: { ...base.params, query } });
      if (!data) throw new ApiError(response, error as never);
      yield* data.data;
      if (data.nextCursor === null || data.nextCursor === undefined) return;
      cursor = data.nextCursor;
    }
  }

  return Object.assign(client, { paginate }) as LeadIntakeClient;
}

export default createClient;
