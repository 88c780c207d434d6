// 404 and 405 outside the dashboard: a known path with the wrong method is a 405 with Allow, not a 404.
import type { FastifyInstance } from 'fastify';
import { sendProblem } from './problem.js';

export interface KnownRoutes {
  allowedMethods(path: string): string[];
}

/**
 * Starts recording every route as it is added. Call before any route is registered: a route added earlier
 * would answer a wrong method with 404 instead of 405.
 */
export function trackRoutes(app: FastifyInstance): KnownRoutes {
  const routes: { pattern: RegExp; method: string }[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(
      `^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`,
    );
    for (const method of [route.method].flat()) routes.push({ pattern, method });
  });
  return {
    allowedMethods: (path) => [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))],
  };
}

/**
 * Call after the plugins and routes: Fastify gives the handler the hooks registered by then, so an unknown
 * path still goes through request ids, metrics and load shedding.
 */
export function setNotFoundHandler(app: FastifyInstance, known: KnownRoutes): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = known.allowedMethods(path);
    if (allowed.length) {
      reply.header('Allow', allowed.join(', '));
      return sendProblem(
        request,
        reply,
        'method_not_allowed',
        `${request.method} is not allowed here. Allowed: ${allowed.join(', ')}.`,
      );
    }
    return sendProblem(request, reply, 'not_found', `No route ${request.method} ${path}.`);
  });
}
