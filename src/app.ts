// buildApp(config): the whole service as a Fastify instance, without listening. Tests drive it with inject().
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyPluginOptions } from 'fastify';
import fp from 'fastify-plugin';
import { ApiKeyResolver } from './accounts/api-keys.js';
import { registerOpenApi, serveOpenApiDocument } from './api/openapi.js';
import operationRoutes from './api/operations.js';
import { ProblemSchema } from './api/problem-schema.js';
import { compileValidators } from './api/validation.js';
import attachmentRoutes from './attachments/api/routes.js';
import background from './background.js';
import addressRoutes from './customers/api/addresses.js';
import customerEditRoutes from './customers/api/customer-edit.js';
import customerRoutes from './customers/api/customers.js';
import dashboardPlugin from './dashboard/plugin.js';
import formRoutes from './forms/api/forms.js';
import publicFormRoutes from './forms/api/public.js';
import calendarRoutes from './leads/api/calendar.js';
import exportRoutes from './leads/api/exports.js';
import leadRoutes from './leads/api/leads.js';
import noteRoutes from './leads/api/notes.js';
import workItemRoutes from './leads/api/work-items.js';
import { outboxQueue } from './mail/outbox.js';
import eraseRoutes from './personal-data/api/erase.js';
import personalDataExportRoutes from './personal-data/api/export.js';
import customerMergeRoutes from './personal-data/api/merge.js';
import { BackupScheduler } from './platform/backup/schedule.js';
import type { Config, TrustProxy } from './platform/config.js';
import { type Database, migrate, openDatabase } from './platform/db/database.js';
import { withWriteMetrics } from './platform/db/store.js';
import { connectionsCheckingInterval, handleClientError } from './platform/http/client-errors.js';
import type { RouteDeps } from './platform/http/deps.js';
import { sendFrameworkError } from './platform/http/framework-errors.js';
import { registerJsonBody } from './platform/http/json-body.js';
import { setNotFoundHandler, trackRoutes } from './platform/http/not-found.js';
import authPlugin from './platform/http/plugins/auth.js';
import drainPlugin from './platform/http/plugins/drain.js';
import errorsPlugin from './platform/http/plugins/errors.js';
import httpConventions from './platform/http/plugins/http-conventions.js';
import metricsPlugin, { AppMetrics } from './platform/http/plugins/metrics.js';
import overloadPlugin from './platform/http/plugins/overload.js';
import rateLimitPlugin, { FailedKeyLimit } from './platform/http/plugins/rate-limit.js';
import requestLogPlugin, { RequestLogController } from './platform/http/plugins/request-log.js';
import { ResponseCache } from './platform/http/response-cache.js';
import { createRateLimiter, type RateLimiter } from './platform/rate-limit/limiter.js';
import { createStorage, type ObjectStorage } from './platform/storage/storage.js';
import { ulid } from './shared/ids.js';
import webhookEndpointRoutes from './webhooks/api/endpoints.js';
import eventRoutes from './webhooks/api/events.js';
import { deliveryQueue } from './webhooks/deliveries.js';

export interface BuildOptions {
  /**
   * Use this database instead of opening the configured one (tests share one across apps). Whether leads queue
   * mail follows the mail settings it was opened with (openDatabase's third argument).
   */
  database?: Database;
  /** Run migrations on start (default true). */
  migrate?: boolean;
  /** Pino logger options, or false for silence. */
  logger?: boolean | Record<string, unknown>;
  /** Collect process metrics (default true; tests building many apps turn it off). */
  defaultMetrics?: boolean;
  /** Run this instance's webhook delivery worker (default true). */
  webhookWorker?: boolean;
  /** Run this instance's mail worker when email is on (default true). */
  mailWorker?: boolean;
  /** Count requests with this limiter instead of the configured one (in-process, or Redis with REDIS_URL). */
  rateLimiter?: RateLimiter;
  /** Keep attachments' bytes here instead of the configured storage (ATTACHMENT_STORAGE). */
  storage?: ObjectStorage;
  /** Make scheduled backups (BACKUP_INTERVAL_MINUTES; default true, SQLite database files only). */
  backupSchedule?: boolean;
  /**
   * The time scheduled work goes by (ms since the epoch; default Date.now): which daily new-lead summary is due.
   * Tests give a fixed one.
   */
  clock?: () => number;
}

export interface App extends FastifyInstance {
  deps: RouteDeps;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * TRUST_PROXY as Fastify's trustProxy, which decides request.ip, request.protocol (X-Forwarded-Proto: Secure
 * cookies) and request.host (X-Forwarded-Host: the CSRF origin check) alike. A hop count becomes a function:
 * Fastify 5 ignores every forwarded header when given a plain number. With N hops the socket's peer and the
 * N - 1 addresses it appended are believed, so request.ip is the address the outermost proxy saw.
 */
function fastifyTrustProxy(
  trust: TrustProxy,
): false | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * A route plugin that needs plugins registered before it (the auth hook that checks its routes' scopes, the
 * metrics registry), declared so Fastify refuses to register it without them. It stays encapsulated, as a plain
 * route plugin is.
 */
function needing<O extends FastifyPluginOptions>(
  dependencies: string[],
  name: string,
  plugin: FastifyPluginAsync<O>,
): FastifyPluginAsync<O> {
  return fp(plugin, { name, dependencies, encapsulate: true });
}

export async function buildApp(config: Readonly<Config>, options: BuildOptions = {}): Promise<App> {
  // The database carries "email is on" to the domain, which queues mail in its transactions.
  const mail = config.mail ? { publicUrl: config.publicUrl, from: config.mail.from } : null;
  const opened =
    options.database ??
    openDatabase(
      config.database,
      config.sqliteSynchronous,
      mail,
      new URL('./write-worker.js', import.meta.url),
    );
  const ownsDatabase = !options.database;
  if (options.migrate !== false) {
    await migrate(opened, config.database.dialect === 'postgres' ? config.database.schema : undefined);
  }
  // A bucket that is missing or refused, or a folder that cannot be written, stops the start here: found by the
  // operator now, not by the first customer whose photos are refused.
  const storage = options.storage ?? createStorage(config.attachments.storage);
  try {
    await storage.probe();
  } catch (error) {
    if (!options.storage) storage.close?.();
    if (ownsDatabase) await opened.close();
    throw error;
  }
  // This app's counters, and the database every part of the app uses: its writes carry the counters to the domain
  // (tx.metrics, counted at commit). Built here, before any plugin registers, and never replaced.
  const meter = new AppMetrics();
  const database = withWriteMetrics(opened, meter);

  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
            ...(config.logFormat === 'pretty'
              ? {
                  transport: {
                    target: 'pino-pretty',
                    options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' },
                  },
                }
              : {}),
            ...(typeof options.logger === 'object' ? options.logger : {}),
          },
    // Fastify's two lines per request off: one line instead, with route, status and who asked (request-log.ts).
    logController: new RequestLogController(),
    bodyLimit: 64 * 1024,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs + 5000,
    keepAliveTimeout: 72_000,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${ulid()}`;
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // The overload plugin answers during shutdown instead, with problem+json and Retry-After.
    return503OnClosing: false,
    frameworkErrors: sendFrameworkError,
    // Node's HTTP-level errors (431, 408, malformed requests) as problem+json, and timeouts enforced promptly.
    clientErrorHandler: handleClientError,
    http: { connectionsCheckingInterval: connectionsCheckingInterval(config.requestTimeoutMs) },
  }) as unknown as App;

  // Slow-loris protection: headers must arrive within 10 s, the whole request within REQUEST_TIMEOUT_MS.
  app.server.headersTimeout = Math.min(10_000, config.requestTimeoutMs);
  app.setValidatorCompiler(compileValidators() as never);
  app.addSchema(ProblemSchema);

  const keys = new ApiKeyResolver(database, config.keyCacheTtlMs, (error) =>
    app.log.warn({ err: error }, 'could not record lastUsedAt'),
  );
  const deps: RouteDeps = {
    config,
    database,
    keys,
    responses: new ResponseCache(database, config.responseCacheBytes),
    storage,
    backups: new BackupScheduler(config, { log: app.log }),
  };
  app.decorate('deps', deps);
  const limiter =
    options.rateLimiter ??
    createRateLimiter(config.redisUrl, { keyPrefix: config.redisKeyPrefix, log: app.log });

  // Every response names its request, so a client can quote it.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    // Over HTTPS (TLS here, or X-Forwarded-Proto from a trusted proxy) browsers are told to keep to HTTPS.
    if (request.protocol === 'https') reply.header('Strict-Transport-Security', HSTS);
    return payload;
  });

  registerJsonBody(app);

  const knownRoutes = trackRoutes(app);

  await app.register(errorsPlugin);
  await app.register(httpConventions, { compression: config.compression, etags: config.etags });
  await app.register(metricsPlugin, {
    meter,
    defaultMetrics: options.defaultMetrics ?? true,
    queues: {
      webhook_deliveries: (now) => deliveryQueue.stats(database, now),
      email_outbox: (now) => outboxQueue.stats(database, now),
    },
  });
  await app.register(requestLogPlugin);
  await app.register(overloadPlugin, {
    maxInFlight: config.maxInFlight,
    maxEventLoopDelayMs: config.maxEventLoopDelayMs,
  });
  await app.register(drainPlugin);
  await registerOpenApi(app, config);
  const failedKeys = new FailedKeyLimit(limiter, config.rateLimit.failedAuthPerMinute);
  await app.register(rateLimitPlugin, { limiter, config, failedKeys });
  await app.register(authPlugin, { resolver: keys, failedKeys });

  await app.register(needing(['metrics', 'drain'], 'operation-routes', operationRoutes), {
    deps,
    readinessDetails: [() => limiter.status(), () => ({ attachmentStorage: deps.storage.describe() })],
  });
  // The API's routes with a scope: the auth plugin's hook checks it, so it must be registered first.
  await app.register(needing(['auth'], 'lead-routes', leadRoutes), { deps });
  await app.register(needing(['auth'], 'note-routes', noteRoutes), { deps });
  await app.register(needing(['auth'], 'attachment-routes', attachmentRoutes), { deps });
  await app.register(needing(['auth'], 'work-item-routes', workItemRoutes), { deps });
  await app.register(needing(['auth'], 'export-routes', exportRoutes), { deps });
  await app.register(needing(['auth'], 'address-routes', addressRoutes), { deps });
  await app.register(dashboardPlugin, { deps });
  await app.register(needing(['auth'], 'event-routes', eventRoutes), { deps });
  await app.register(needing(['auth'], 'customer-routes', customerRoutes), { deps });
  await app.register(needing(['auth'], 'personal-data-routes', personalDataExportRoutes), { deps });
  await app.register(needing(['auth'], 'customer-edit-routes', customerEditRoutes), { deps });
  await app.register(needing(['auth'], 'customer-merge-routes', customerMergeRoutes), { deps });
  await app.register(needing(['auth'], 'erase-routes', eraseRoutes), { deps });
  await app.register(needing(['auth'], 'webhook-endpoint-routes', webhookEndpointRoutes), { deps });
  await app.register(needing(['auth'], 'form-routes', formRoutes), { deps });
  await app.register(publicFormRoutes, { deps, limiter });
  await app.register(calendarRoutes, { deps });
  await app.register(background, {
    deps,
    worker: options.webhookWorker ?? true,
    mailWorker: options.mailWorker ?? true,
    backups: options.backupSchedule ?? true,
    clock: options.clock ?? Date.now,
  });
  serveOpenApiDocument(app);

  setNotFoundHandler(app, knownRoutes);

  app.addHook('onClose', async () => {
    if (!options.rateLimiter) await limiter.close();
    if (!options.storage) deps.storage.close?.();
    if (ownsDatabase) await database.close();
  });
  return app;
}
