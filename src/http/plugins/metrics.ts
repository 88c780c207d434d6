// Prometheus metrics: request counts and latencies per route, plus process metrics.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
  }
}

export default fp(
  async function metricsPlugin(app: FastifyInstance, options: { defaultMetrics: boolean }) {
    const registry = new Registry();
    if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'lead_intake_' });
    const requests = new Counter({
      name: 'lead_intake_http_requests_total',
      help: 'HTTP requests by method, route and status code.',
      labelNames: ['method', 'route', 'status_code'] as const,
      registers: [registry],
    });
    const duration = new Histogram({
      name: 'lead_intake_http_request_duration_seconds',
      help: 'Time from request received to response sent, by method and route.',
      labelNames: ['method', 'route'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    app.decorate('metrics', registry);
    app.addHook('onResponse', async (request, reply) => {
      // The route pattern, never the raw URL, keeps label cardinality bounded.
      const route = request.routeOptions.url ?? 'unmatched';
      requests.inc({ method: request.method, route, status_code: String(reply.statusCode) });
      duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    });
  },
  { name: 'metrics' },
);
