// Prometheus metrics, one Registry per app (tests build many apps in one process; each counts only its own work):
// HTTP requests and latency by route and status, leads created and moved, webhook deliveries and mails by outcome,
// rate-limited and shed requests, the two queues' depth and oldest age (read at scrape time), process metrics.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { QueueStats } from '../../db/lease.js';
import type { WriteMetrics } from '../../db/store.js';
import type { DeliveryMetrics, DeliveryOutcome, EmailOutcome, MailMetrics } from '../../queue/outcomes.js';

/** Why the overload guard answered 503. */
export type ShedReason = 'shutting_down' | 'in_flight' | 'event_loop_lag';

/** Which limit answered 429. */
export type RateLimitKind =
  /** An API key's reads or writes per minute. */
  | 'key_read'
  | 'key_write'
  /** Missing or invalid API keys from one client address. */
  | 'failed_auth'
  /** A website form's posts (per address a minute, or per form an hour). */
  | 'form'
  /** The dashboard's throttles (sign-in, password change, password reset). */
  | 'dashboard'
  | 'other';

const DELIVERY_OUTCOMES: DeliveryOutcome[] = ['delivered', 'retrying', 'gave_up', 'abandoned'];
const EMAIL_OUTCOMES: EmailOutcome[] = ['sent', 'retrying', 'gave_up', 'refused'];
const SHED_REASONS: ShedReason[] = ['shutting_down', 'in_flight', 'event_loop_lag'];
const RATE_LIMIT_KINDS: RateLimitKind[] = [
  'key_read',
  'key_write',
  'failed_auth',
  'form',
  'dashboard',
  'other',
];
// Lead sources are set by code, never by clients (contract: website for the API, form, dashboard, phone); anything
// else is counted as "other" so a new source can never make label values unbounded.
const LEAD_SOURCES = ['website', 'form', 'dashboard', 'phone'];

const QUEUE_QUERY_TIMEOUT_MS = 2000;

/**
 * The queues whose depth and oldest age the gauges show, by the name they are labelled with (app.ts names the
 * tables the workers read): each reads its queue's stats at `now`.
 */
export type QueueReaders = Readonly<Record<string, (now: number) => Promise<QueueStats>>>;

// prom-client's defaults (15.x) add three gauges named *_total, which Prometheus reserves for counters
// (`promtool check metrics` flags them). Each has a by-type twin whose sum is the same number.
const NON_COUNTER_TOTALS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];
const PREFIX = 'lead_intake_';

/**
 * This app's counters, for the plugins, the workers and (through the database handle: app.ts opens it with
 * withWriteMetrics before any plugin registers) the domain.
 */
export class AppMetrics implements WriteMetrics, DeliveryMetrics, MailMetrics {
  readonly registry = new Registry();
  private readonly leads: Counter<'source' | 'spam'>;
  private readonly statusChanges: Counter<'from' | 'to'>;
  private readonly deliveries: Counter<'outcome'>;
  private readonly emails: Counter<'outcome'>;
  private readonly rateLimitedRequests: Counter<'kind'>;
  private readonly shedRequests: Counter<'reason'>;

  constructor() {
    const registers = [this.registry];
    this.leads = new Counter({
      name: `${PREFIX}leads_created_total`,
      help: 'Leads stored (counted at commit; idempotent replays create nothing and are not counted), by source; spam="true" for a filled honeypot.',
      labelNames: ['source', 'spam'] as const,
      registers,
    });
    this.statusChanges = new Counter({
      name: `${PREFIX}lead_status_changes_total`,
      help: 'Lead status changes committed, by the status left and the status entered.',
      labelNames: ['from', 'to'] as const,
      registers,
    });
    this.deliveries = new Counter({
      name: `${PREFIX}webhook_deliveries_total`,
      help: 'Webhook delivery attempts by outcome: delivered, retrying (failed, tried again), gave_up (failed at the end of the retry window), abandoned (endpoint disabled).',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.emails = new Counter({
      name: `${PREFIX}emails_total`,
      help: 'Mail sends by outcome: sent, retrying (failed, tried again), gave_up (failed at the end of the retry window), refused (refused for good by the server).',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.rateLimitedRequests = new Counter({
      name: `${PREFIX}rate_limited_requests_total`,
      help: 'Requests answered 429, by the limit that refused them.',
      labelNames: ['kind'] as const,
      registers,
    });
    this.shedRequests = new Counter({
      name: `${PREFIX}shed_requests_total`,
      help: 'Requests refused with 503 by the overload guard, by reason.',
      labelNames: ['reason'] as const,
      registers,
    });
    // Every known series from zero, so rate() and dashboards see them before the first event.
    for (const source of LEAD_SOURCES) this.leads.inc({ source, spam: 'false' }, 0);
    this.leads.inc({ source: 'form', spam: 'true' }, 0);
    for (const outcome of DELIVERY_OUTCOMES) this.deliveries.inc({ outcome }, 0);
    for (const outcome of EMAIL_OUTCOMES) this.emails.inc({ outcome }, 0);
    for (const kind of RATE_LIMIT_KINDS) this.rateLimitedRequests.inc({ kind }, 0);
    for (const reason of SHED_REASONS) this.shedRequests.inc({ reason }, 0);
  }

  leadCreated(source: string, spam: boolean): void {
    this.leads.inc({ source: LEAD_SOURCES.includes(source) ? source : 'other', spam: String(spam) });
  }

  leadStatusChanged(from: string, to: string): void {
    this.statusChanges.inc({ from, to });
  }

  webhookDelivery(outcome: DeliveryOutcome): void {
    this.deliveries.inc({ outcome });
  }

  email(outcome: EmailOutcome): void {
    this.emails.inc({ outcome });
  }

  rateLimited(kind: RateLimitKind): void {
    this.rateLimitedRequests.inc({ kind });
  }

  shed(reason: ShedReason): void {
    this.shedRequests.inc({ reason });
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's Prometheus registry (GET /metrics serves it). */
    metrics: Registry;
    /** This app's counters. */
    meter: AppMetrics;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Gauges of both queues, read from the database at scrape time. One query per queue per scrape, shared by the two
 * gauges (prom-client calls their collect() in the same tick). When the database does not answer, the gauges have
 * no samples (no stale numbers), the rest of /metrics is served, and a warning is logged once until it answers.
 */
function registerQueueGauges(app: FastifyInstance, registry: Registry, queues: QueueReaders): void {
  let current: Promise<Map<string, QueueStats> | null> | undefined;
  let failing = false;
  const read = async (): Promise<Map<string, QueueStats> | null> => {
    const now = Date.now();
    try {
      const stats = await withTimeout(
        Promise.all(Object.entries(queues).map(async ([queue, stats]) => [queue, await stats(now)] as const)),
        QUEUE_QUERY_TIMEOUT_MS,
        'reading the queue tables',
      );
      if (failing) {
        failing = false;
        app.log.info('metrics: the queue tables can be read again');
      }
      return new Map(stats);
    } catch (error) {
      if (!failing) {
        failing = true;
        app.log.warn({ err: error }, 'metrics: could not read the queue tables; their gauges are left out');
      }
      return null;
    }
  };
  const stats = () => {
    current ??= read().finally(() => {
      current = undefined;
    });
    return current;
  };
  const gauge = (name: string, help: string, pick: (s: QueueStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['queue'] as const,
      registers: [registry],
      async collect() {
        const all = await stats();
        this.reset();
        if (!all) return;
        for (const [queue, s] of all) this.set({ queue }, pick(s));
      },
    });
  gauge(
    `${PREFIX}queue_depth`,
    'Jobs waiting in a queue (status pending, due or waiting for a retry): webhook_deliveries or email_outbox.',
    (s) => s.depth,
  );
  gauge(
    `${PREFIX}queue_oldest_age_seconds`,
    'Age of the oldest pending job of a queue, since it was queued (0 when the queue is empty).',
    (s) => s.oldestAgeSeconds,
  );
}

export default fp(
  async function metricsPlugin(
    app: FastifyInstance,
    options: {
      /** The counters; the app's database carries them to the domain (withWriteMetrics). */
      meter: AppMetrics;
      defaultMetrics: boolean;
      /** The queues to gauge; none without. */
      queues?: QueueReaders;
    },
  ) {
    const { meter } = options;
    const registry = meter.registry;
    if (options.defaultMetrics) {
      collectDefaultMetrics({ register: registry, prefix: PREFIX });
      for (const name of NON_COUNTER_TOTALS) registry.removeSingleMetric(`${PREFIX}${name}`);
    }
    const requests = new Counter({
      name: `${PREFIX}http_requests_total`,
      help: 'HTTP requests by method, route and status code (the same as the duration histogram _count; kept for existing queries).',
      labelNames: ['method', 'route', 'status_code'] as const,
      registers: [registry],
    });
    const duration = new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: 'Time from request received to response sent, by method, route and status code.',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    app.decorate('metrics', registry);
    app.decorate('meter', meter);
    if (options.queues) registerQueueGauges(app, registry, options.queues);
    app.addHook('onResponse', async (request, reply) => {
      // The route pattern, never the raw URL, keeps label cardinality bounded.
      const labels = {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      };
      requests.inc(labels);
      duration.observe(labels, reply.elapsedTime / 1000);
    });
  },
  { name: 'metrics' },
);
