// One log line per request, written once the response has been sent (Fastify's own two lines are off: see
// RequestLogController, given to Fastify in app.ts). It names the route template, the path without its query string (searches
// carry names, emails and phone numbers; invite and reset links carry tokens), the status, the time taken, and
// who asked: the brand and the key's id (never the key) or the dashboard user. No headers, no bodies.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LogController } from 'fastify';
import fp from 'fastify-plugin';

// Probes and scrapes come every few seconds: when they succeed they are logged at debug, so they do not drown
// the requests people make. A failing one is logged like any other request.
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Fastify's log lines without its per-request pair ("incoming request", "request completed"), which this plugin's
 * one line replaces. Fastify's other lines (a response stream that failed, a serializer that threw) are kept,
 * which its disableRequestLogging option (deprecated in Fastify 5.x for this class) would silence too.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(): void {}
}

export type RequestLogLevel = 'debug' | 'info' | 'warn';

/** 5xx at warn (the cause, if any, is logged at error by the error handler), probes that answered at debug. */
export function requestLogLevel(route: string, statusCode: number): RequestLogLevel {
  if (statusCode >= 500) return 'warn';
  if (statusCode < 400 && PROBES.has(route)) return 'debug';
  return 'info';
}

/** The fields of a request's log line (reqId comes with the request's logger). */
export function requestLogFields(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  const queryAt = request.url.indexOf('?');
  const fields: Record<string, unknown> = {
    method: request.method,
    route: request.routeOptions.url ?? 'unmatched',
    path: queryAt === -1 ? request.url : request.url.slice(0, queryAt),
    statusCode: reply.statusCode,
    durationMs: Math.round(reply.elapsedTime * 10) / 10,
    ip: request.ip,
  };
  // Decorated by the auth plugin (API) and the dashboard plugin; absent (undefined) outside their routes.
  const principal = request.principal;
  const user = (request as Partial<FastifyRequest>).signedIn;
  if (principal) {
    fields.brandId = principal.brandId;
    fields.keyId = principal.keyId;
  } else if (user) {
    fields.brandId = user.brandId;
    fields.userId = user.userId;
  }
  return fields;
}

export default fp(
  async function requestLogPlugin(app: FastifyInstance) {
    app.addHook('onResponse', async (request, reply) => {
      const fields = requestLogFields(request, reply);
      request.log[requestLogLevel(fields.route as string, reply.statusCode)](fields, 'request completed');
    });
  },
  { name: 'request-log' },
);
