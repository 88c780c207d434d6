// Health, readiness and metrics: for load balancers, orchestrators and Prometheus.
import { timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../platform/http/deps.js';
import { sendProblem } from '../platform/http/problem.js';
import { errorResponses } from '../platform/http/schemas.js';

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Extra readiness checks other subsystems contribute (e.g. Redis): name -> detail, never failing the probe. */
export type ReadinessDetail = () => Record<string, string>;

function healthRoute(app: FastifyInstance) {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'health',
        tags: ['Operations'],
        summary: 'Liveness: the process is up',
        description: 'Answers 200 while the process runs, even when it sheds load. Public: no API key.',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ok') }, { description: 'The process is up.' }),
        },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
}

function readyRoute(app: FastifyInstance, deps: RouteDeps, readinessDetails: ReadinessDetail[]) {
  const Ready = Type.Object({
    status: Type.String(),
    database: Type.String(),
    checks: Type.Record(Type.String(), Type.String()),
  });
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'ready',
        tags: ['Operations'],
        summary: 'Readiness: the database answers and the instance is not shutting down',
        description:
          'Answers 200 when the database answers within 2 s, else 503 with Retry-After. From SIGTERM on it answers 503 at once while the instance serves on for SHUTDOWN_DRAIN_MS, so a load balancer stops sending to it. `checks` adds details of other parts (e.g. Redis), which never fail the probe. Public: no API key.',
        security: [],
        response: { 200: { ...Ready, description: 'Ready to serve.' }, ...errorResponses([503]) },
      },
    },
    async (request, reply) => {
      const checks: Record<string, string> = {};
      for (const detail of readinessDetails) Object.assign(checks, detail());
      if (app.drain.draining) {
        reply.header('Retry-After', '5');
        return sendProblem(
          request,
          reply,
          'service_unavailable',
          'The server is shutting down; send requests to another instance.',
          { checks },
        );
      }
      try {
        await deps.database.ping(2000);
        return { status: 'ready', database: 'ok', checks };
      } catch (error) {
        // The probe is public: the driver's message (hosts, ports, paths) goes to the log, not to the caller.
        request.log.warn({ err: error }, 'readiness check: database unreachable');
        reply.header('Retry-After', '5');
        return sendProblem(request, reply, 'service_unavailable', 'The database is not reachable.', {
          database: 'unreachable',
          checks,
        });
      }
    },
  );
}

function metricsRoute(app: FastifyInstance, deps: RouteDeps) {
  app.get('/metrics', { schema: { hide: true } }, async (request: FastifyRequest, reply) => {
    const token = deps.config.metricsToken;
    if (token) {
      if (!tokenMatches(request.headers.authorization, token)) {
        reply.header('WWW-Authenticate', 'Bearer');
        return sendProblem(request, reply, 'unauthorized', 'Send Authorization: Bearer <METRICS_TOKEN>.');
      }
    } else if (
      !isLoopback(request.socket.remoteAddress ?? '') ||
      request.headers['x-forwarded-for'] !== undefined
    ) {
      // A forwarded request came through a proxy, so loopback says nothing about who asked.
      return sendProblem(request, reply, 'not_found', 'Not found.');
    }
    reply.type(app.metrics.contentType);
    return app.metrics.metrics();
  });
}

export default async function operationRoutes(
  app: FastifyInstance,
  { deps, readinessDetails = [] }: { deps: RouteDeps; readinessDetails?: ReadinessDetail[] },
) {
  healthRoute(app);
  readyRoute(app, deps, readinessDetails);
  metricsRoute(app, deps);
}
