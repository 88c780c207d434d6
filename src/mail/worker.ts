// The mail worker: every instance with email on runs one. It leases due mails from the outbox, sends them over
// SMTP and records the result, retrying with backoff for 24 hours. The loop is src/queue/leased-worker.ts: woken
// after a commit that queued mail, otherwise polling.
import type { MailConfig } from '../platform/config.js';
import type { Store } from '../platform/db/store.js';
import {
  LeasedQueueWorker,
  MAX_LEASE_MS,
  Shutdown,
  type WorkerLog,
} from '../platform/queue/leased-worker.js';
import {
  type EmailJob,
  loadEmailJobs,
  outboxQueue,
  recordEmailAttempt,
  releaseEmailLease,
} from './outbox.js';
import { renderAtSendTime, type SendTimeRenderers } from './send-time.js';
import { describeSendError, type MailSender, type SendResult, smtpSender } from './sender.js';
import { mailLanguage, type RenderedMail } from './templates/layout.js';

export type { EmailOutcome, MailMetrics } from '../platform/queue/outcomes.js';

import type { EmailOutcome, MailMetrics } from '../platform/queue/outcomes.js';

export type MailWorkerLog = WorkerLog;

export interface MailWorkerOptions {
  store: Store;
  config: MailConfig;
  log: MailWorkerLog;
  metrics?: MailMetrics;
  /** Mails sent at once by this instance. */
  concurrency?: number;
  /** Who writes the mails that are written when sent (send-time.ts), by their kind. */
  renderers?: SendTimeRenderers;
}

export class MailWorker extends LeasedQueueWorker<EmailJob> {
  private readonly leaseMs: number;
  private readonly sender: MailSender;

  constructor(private readonly options: MailWorkerOptions) {
    // A send is cut off after this long (connecting, greeting and commands each have the configured timeout).
    const sendLimitMs = options.config.timeoutMs * 3;
    // Renewed while a send runs (see MAX_LEASE_MS): another instance takes the row over only when this one stopped.
    const leaseMs = Math.min(sendLimitMs * 2 + 1000, MAX_LEASE_MS);
    super({
      name: 'mail worker',
      queue: 'the email outbox',
      jobKey: 'emailId',
      jobWhat: 'a send',
      concurrency: options.concurrency ?? 4,
      pollIntervalMs: options.config.pollIntervalMs,
      log: options.log,
      jobLimitMs: sendLimitMs,
      leaseMs,
    });
    this.leaseMs = leaseMs;
    this.sender = smtpSender(options.config);
  }

  protected renewLeases(ids: string[]): Promise<void> {
    return outboxQueue.renew(this.options.store, this.owner, ids, this.leaseMs, Date.now());
  }

  protected override stopped(): void {
    this.sender.close();
  }

  protected async claim(limit: number) {
    const { store } = this.options;
    const ids = await outboxQueue.claimDue(store, this.owner, limit, this.leaseMs, Date.now());
    if (!ids.length) return { claimed: 0, jobs: [] };
    return { claimed: ids.length, jobs: await loadEmailJobs(store, this.owner, ids) };
  }

  /**
   * The mail to send: as queued, or written now when it carries a one-time link (send-time.ts); null when there is
   * nothing to send (no longer needed, or another worker has it).
   */
  private async compose(job: EmailJob): Promise<RenderedMail | null> {
    if (job.sendTimeRef === null) return job;
    const { store, log, renderers = {} } = this.options;
    const sendTimeJob = { ...job, sendTimeRef: job.sendTimeRef };
    const written = await renderAtSendTime(store, this.owner, sendTimeJob, renderers, Date.now());
    if (written === 'dropped') {
      log.info(
        { emailId: job.id, kind: job.kind },
        'mail worker: a mail is no longer needed (its link was used, replaced or withdrawn); it is not sent',
      );
    }
    return typeof written === 'string' ? null : written;
  }

  protected async run(job: EmailJob, signal: AbortSignal): Promise<void> {
    const { store, config, log } = this.options;
    let result: SendResult;
    try {
      const mail = await this.compose(job);
      if (!mail) return;
      result = await this.sender.send(
        {
          to: job.recipient,
          senderName: job.senderName,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          // The HTML part says in which language the mail is written.
          language: mailLanguage(mail.html),
          replyTo: job.replyTo,
          calendar: mail.calendar,
        },
        signal,
      );
    } catch (error) {
      // Writing a send-time mail failed (the database, or no renderer on this instance): a failed attempt.
      result = {
        ok: false,
        error: `the mail could not be written: ${describeSendError(error)}`,
        permanent: false,
      };
    }
    if (!result.ok && signal.aborted && signal.reason instanceof Shutdown) {
      await releaseEmailLease(store, this.owner, job.id);
      return;
    }
    const status = await recordEmailAttempt(
      store,
      this.owner,
      job,
      { ok: result.ok, error: result.error, permanent: result.permanent, at: Date.now() },
      config,
    );
    // Lost its lease meanwhile: another worker has the row, and what it does is counted there.
    if (status === 'lease_lost') return;
    const outcome: EmailOutcome =
      status === 'sent'
        ? 'sent'
        : status === 'pending'
          ? 'retrying'
          : result.permanent
            ? 'refused'
            : 'gave_up';
    this.options.metrics?.email(outcome);
    if (result.ok) return;
    // The id, the attempt and the reason, never the message or the recipient: they hold customer data.
    const context = { emailId: job.id, attempt: job.attempt + 1, reason: result.error };
    log.warn(
      context,
      outcome === 'refused'
        ? 'mail worker: the mail server refused a mail for good; it is not retried'
        : outcome === 'gave_up'
          ? 'mail worker: a mail failed for the whole retry window; it is given up'
          : 'mail worker: sending a mail failed; it is retried',
    );
  }
}
