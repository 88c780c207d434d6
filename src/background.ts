// Work each instance does besides answering requests: sending webhooks and mail, the daily new-lead summaries,
// forgetting old idempotency keys, removing spam after 30 days and stored files that no attachment names, scheduled
// backups.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge } from 'prom-client';
import { INVITATION_MAIL, renderInvitationMail } from './accounts/invites.js';
import { PASSWORD_RESET_MAIL, renderPasswordResetMail } from './accounts/password-resets.js';
import { sweepOrphans } from './attachments/attachments.js';
import {
  NEW_LEAD_SUMMARY_MAIL,
  renderNewLeadSummary,
  runNewLeadSummaries,
} from './leads/new-lead-summary.js';
import { purgeSpam } from './leads/spam.js';
import { renderVisitNotice, VISIT_NOTICE_MAIL } from './leads/visit-notices.js';
import type { SendTimeRenderers } from './mail/send-time.js';
import { MailWorker } from './mail/worker.js';
import { runRetention } from './personal-data/retention.js';
import { pruneIdempotencyKeys } from './platform/db/idempotency.js';
import type { RouteDeps } from './platform/http/deps.js';
import { PeriodicJob } from './platform/queue/periodic-job.js';
import { DeliveryWorker } from './webhooks/worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This instance's webhook delivery worker, or null when the app was built without one. */
    deliveryWorker: DeliveryWorker | null;
    /** This instance's mail worker, or null when email is off or the app was built without one. */
    mailWorker: MailWorker | null;
    /**
     * The daily new-lead summaries, queued each minute by an instance with a mail worker (null without one): `run`
     * queues those due now by the app's clock, and says how many.
     */
    newLeadSummaries: { run(): Promise<number> } | null;
  }
}

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
/** How often each instance looks for daily new-lead summaries that are due: 08:00 is met within a minute. */
const SUMMARY_INTERVAL_MS = 60 * 1000;

/** Mails written only when they are sent, so their one-time links are never stored (src/mail/send-time.ts). */
const SEND_TIME_RENDERERS: SendTimeRenderers = {
  [PASSWORD_RESET_MAIL]: renderPasswordResetMail,
  [INVITATION_MAIL]: renderInvitationMail,
  [NEW_LEAD_SUMMARY_MAIL]: renderNewLeadSummary,
  [VISIT_NOTICE_MAIL]: renderVisitNotice,
};

export default fp(
  async function background(
    app: FastifyInstance,
    {
      deps,
      worker,
      mailWorker: runMail,
      backups: runBackups = true,
      clock = Date.now,
    }: {
      deps: RouteDeps;
      worker: boolean;
      mailWorker: boolean;
      backups?: boolean;
      clock?: () => number;
    },
  ) {
    const deliveryWorker = worker
      ? new DeliveryWorker({
          store: deps.database,
          config: deps.config.webhooks,
          log: app.log,
          metrics: app.meter,
        })
      : null;
    app.decorate('deliveryWorker', deliveryWorker);
    if (deliveryWorker) {
      // Right after a commit that queued deliveries (enqueueDeliveries signals it), so latency is a round trip,
      // not a poll interval.
      const stopListening = deps.database.listen('webhook-deliveries', () => deliveryWorker.wake());
      app.addHook('onClose', async () => stopListening());
      app.addHook('onReady', async () => deliveryWorker.start());
      app.addHook('preClose', async () => deliveryWorker.stop());
    }

    const mail = deps.config.mail;
    const mailWorker =
      runMail && mail
        ? new MailWorker({
            store: deps.database,
            config: mail,
            log: app.log,
            metrics: app.meter,
            renderers: SEND_TIME_RENDERERS,
          })
        : null;
    app.decorate('mailWorker', mailWorker);
    if (mailWorker) {
      // Woken by the commit that queued mail (queueEmail signals it), else it polls.
      const stopListening = deps.database.listen('email-outbox', () => mailWorker.wake());
      app.addHook('onClose', async () => stopListening());
      app.addHook('onReady', async () => mailWorker.start());
      app.addHook('preClose', async () => mailWorker.stop());
    }
    app.decorate('newLeadSummaries', mailWorker ? newLeadSummaryJob(app, deps, clock) : null);

    const prune = async () => {
      await pruneIdempotencyKeys(deps.database).catch((error) =>
        app.log.warn({ err: error }, 'could not prune expired idempotency keys'),
      );
      const spam = await purgeSpam(deps.database, undefined, undefined, deps.storage).catch((error) => {
        app.log.warn({ err: error }, 'could not remove old spam');
        return 0;
      });
      if (spam) app.log.info({ removed: spam }, 'removed spam leads older than 30 days');
      const orphans = await sweepOrphans(deps.database, deps.storage).catch((error) => {
        app.log.warn(
          { err: error, storage: deps.storage.describe() },
          'could not sweep unused attachment files',
        );
        return 0;
      });
      if (orphans)
        app.log.info({ removed: orphans }, 'removed stored files no attachment names (older than an hour)');
      // Retention (brands that turned it on): erases leads untouched for their months; it logs what it did.
      await runRetention({
        database: deps.database,
        storage: deps.storage,
        responses: deps.responses,
        log: app.log,
      }).catch((error) =>
        app.log.error({ err: error }, 'the retention run failed; it is tried again in 10 minutes'),
      );
    };
    // One instance runs the round every 10 minutes (its lease in job_leases); another takes over if it dies.
    const cleanUp = new PeriodicJob({
      store: deps.database,
      name: 'clean-up',
      intervalMs: PRUNE_INTERVAL_MS,
      run: prune,
      log: app.log,
      clock,
    });
    app.addHook('onReady', async () => {
      await cleanUp.tick();
      cleanUp.start();
    });
    app.addHook('preClose', async () => cleanUp.stop());

    // Scheduled backups (SQLite with a database file; BACKUP_INTERVAL_MINUTES=0 turns them off).
    const backups = deps.backups;
    if (backups.disabled !== 'postgres') {
      const registers = [app.metrics];
      new Gauge({
        name: 'lead_intake_backup_last_success_timestamp_seconds',
        help: 'When the newest backup archive in BACKUP_DIR was made (Unix time; 0: none yet).',
        registers,
        collect() {
          const last = backups.current.lastSuccess;
          this.set(last ? last.at.getTime() / 1000 : 0);
        },
      });
      new Gauge({
        name: 'lead_intake_backup_last_size_bytes',
        help: 'Size of the newest backup archive in BACKUP_DIR (0: none yet).',
        registers,
        collect() {
          this.set(backups.current.lastSuccess?.bytes ?? 0);
        },
      });
      let counted = 0;
      new Counter({
        name: 'lead_intake_backup_failures_total',
        help: 'Scheduled backups that failed since the process started.',
        registers,
        collect() {
          const now = backups.current.failures;
          if (now > counted) this.inc(now - counted);
          counted = now;
        },
      });
    }
    app.addHook('onReady', async () => {
      await backups.status().catch((error) => app.log.warn({ err: error }, 'could not read BACKUP_DIR'));
      if (runBackups) backups.start();
    });
    app.addHook('preClose', async () => backups.stop());
  },
  // The workers count their outcomes on the metrics plugin's counters (app.meter).
  { name: 'background', dependencies: ['metrics'] },
);

/**
 * Queues the daily new-lead summaries each minute and once on start (leads/new-lead-summary.ts): one run at a time,
 * a failed run logged and tried again the next minute.
 */
function newLeadSummaryJob(app: FastifyInstance, deps: RouteDeps, clock: () => number) {
  let running: Promise<number> | null = null;
  const run = () => {
    running ??= runNewLeadSummaries(deps.database, clock()).finally(() => {
      running = null;
    });
    return running;
  };
  const tick = () =>
    run()
      .then((queued) => {
        if (queued) app.log.info({ queued }, 'queued daily new-lead summaries');
      })
      .catch((error) =>
        app.log.warn({ err: error }, 'could not queue the daily new-lead summaries; tried again in a minute'),
      );
  const timer = setInterval(tick, SUMMARY_INTERVAL_MS);
  timer.unref();
  app.addHook('onReady', async () => {
    await tick();
  });
  app.addHook('preClose', async () => {
    clearInterval(timer);
    await running?.catch(() => undefined);
  });
  return { run };
}
