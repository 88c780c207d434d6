// One webhook POST: resolve and check the host, connect to exactly that address, no redirects, hard timeout.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import {
  parseWebhookUrl,
  type Resolver,
  resolveAllowedAddress,
  systemResolver,
  type UrlPolicy,
  UrlRefusedError,
} from './url-guard.js';

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  policy: UrlPolicy;
  resolve?: Resolver;
  /** Aborts the attempt (shutdown). */
  signal?: AbortSignal;
}

export interface SendResult {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

const USER_AGENT = 'lead-intake-webhooks/1';

function describe(error: unknown): string {
  if (error instanceof UrlRefusedError) return `refused: ${error.message}`;
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  return (code && !message.includes(code) ? `${code}: ${message}` : message).slice(0, 300);
}

/**
 * Sends the body and reports what happened; never throws. Any 2xx is success. The host is resolved and checked
 * at every send, and the connection goes to the checked address itself (the Host header and TLS name stay the
 * URL's), so a DNS answer that changes between check and connect cannot redirect the request.
 */
export async function sendWebhook(request: SendRequest): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`timed out after ${request.timeoutMs} ms`)),
    request.timeoutMs,
  );
  const onAbort = () => controller.abort(request.signal?.reason ?? new Error('aborted'));
  request.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const url = parseWebhookUrl(request.url, request.policy);
    const target = await raceAbort(
      resolveAllowedAddress(url, request.policy, request.resolve ?? systemResolver),
      controller.signal,
    );
    const status = await post(url, target.address, request, controller.signal);
    const ok = status >= 200 && status < 300;
    return {
      ok,
      responseStatus: status,
      durationMs: elapsed(),
      error: ok
        ? null
        : status >= 300 && status < 400
          ? `HTTP ${status}: redirects are not followed`
          : `HTTP ${status}`,
    };
  } catch (error) {
    return { ok: false, responseStatus: null, durationMs: elapsed(), error: describe(error) };
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Resolves with the response status once headers arrive; the body is drained and discarded. */
function post(url: URL, address: string, request: SendRequest, signal: AbortSignal): Promise<number> {
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const body = Buffer.from(request.body);
  return new Promise<number>((resolve, reject) => {
    const req = (secure ? https : http).request({
      method: 'POST',
      host: address,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      // SNI and certificate checks use the URL's name, not the address connected to.
      ...(secure && !isIP(hostname) ? { servername: hostname } : {}),
      headers: {
        ...request.headers,
        Host: url.host,
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
        'User-Agent': USER_AGENT,
      },
      agent: false,
      signal,
    });
    req.on('response', (res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      // A receiver that keeps its response body open must not hold the socket for long.
      res.on('error', () => {});
      const cutOff = setTimeout(() => res.destroy(), request.timeoutMs);
      cutOff.unref();
      res.on('close', () => clearTimeout(cutOff));
    });
    req.on('error', (error) => reject(signal.aborted ? signal.reason : error));
    req.end(body);
  });
}
