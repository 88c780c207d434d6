// The mail worker: every instance with email on runs one. It leases due mails from the outbox, sends them over
// SMTP and records the result, retrying with backoff for 24 hours. The loop is the webhook delivery worker's
// (src/webhooks/worker.ts): woken after a commit that queued mail, otherwise polling.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { MailConfig } from '../config.js';
import type { Store } from '../db/store.js';
import {
  claimDueEmails,
  type EmailJob,
  loadEmailJobs,
  recordEmailAttempt,
  releaseEmailLease,
} from '../domain/email-outbox.js';
import { type MailSender, smtpSender } from './sender.js';

export interface MailWorkerLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface MailWorkerOptions {
  store: Store;
  config: MailConfig;
  log: MailWorkerLog;
  /** Mails sent at once by this instance. */
  concurrency?: number;
}

class Shutdown extends Error {}

export class MailWorker {
  /** Written into lease_owner: which process holds a row, for anyone reading the table. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly concurrency: number;
  /** A send is cut off after this long (connecting, greeting and commands each have the configured timeout). */
  private readonly sendLimitMs: number;
  private readonly leaseMs: number;
  private readonly sender: MailSender;
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private running = false;
  private woken = false;
  private wakeSleeper: (() => void) | undefined;
  private loopDone: Promise<void> | undefined;
  private failing = false;

  constructor(private readonly options: MailWorkerOptions) {
    this.concurrency = options.concurrency ?? 4;
    this.sendLimitMs = options.config.timeoutMs * 3;
    // Long enough to cover the send and recording its result, so no other worker takes the row meanwhile.
    this.leaseMs = this.sendLimitMs * 2 + 1000;
    this.sender = smtpSender(options.config);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Look for due mails now rather than at the next poll (called right after a commit that queued some). */
  wake(): void {
    this.woken = true;
    this.wakeSleeper?.();
  }

  /**
   * Stops claiming, lets sends in progress finish for up to graceMs, then aborts the rest and hands their rows back
   * so another instance (or the next start) sends them at once.
   */
  async stop(graceMs = 3000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loopDone;
    const pending = [...this.inFlight.values()];
    if (pending.length) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.all(pending.map((p) => p.done)), grace]);
      clearTimeout(timer);
      for (const p of this.inFlight.values()) p.controller.abort(new Shutdown('shutting down'));
      await Promise.all([...this.inFlight.values()].map((p) => p.done));
    }
    this.sender.close();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let claimed = 0;
      let free = this.concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          claimed = await this.claimAndDispatch(free);
          if (this.failing) {
            this.failing = false;
            this.options.log.info({}, 'mail worker: the database answers again');
          }
        } catch (error) {
          if (!this.failing) {
            this.failing = true;
            this.options.log.warn({ err: error }, 'mail worker: could not read the email outbox');
          }
        }
        free -= claimed;
      }
      // Some were due and there is still room: more may be due, so look again at once.
      if (!this.running || this.woken || (claimed > 0 && free > 0)) continue;
      await this.sleep(this.options.config.pollIntervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSleeper = () => {
        this.wakeSleeper = undefined;
        done();
      };
    });
  }

  private async claimAndDispatch(limit: number): Promise<number> {
    const { store } = this.options;
    const ids = await claimDueEmails(store, this.owner, limit, this.leaseMs, Date.now());
    if (!ids.length) return 0;
    const jobs = await loadEmailJobs(store, this.owner, ids);
    for (const job of jobs) this.dispatch(job);
    return ids.length;
  }

  private dispatch(job: EmailJob): void {
    const controller = new AbortController();
    // A send that hangs is cut off well within the lease (AbortSignal.any needs Node 20.3; engines says 20.0).
    const limit = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.sendLimitMs} ms`)),
      this.sendLimitMs,
    );
    const done = this.deliver(job, controller.signal)
      .catch((error) => {
        this.options.log.warn({ err: error, emailId: job.id }, 'mail worker: could not record a send');
      })
      .finally(() => {
        clearTimeout(limit);
        this.inFlight.delete(job.id);
        // A slot is free: if the queue had more than fit, take the next ones now.
        this.wake();
      });
    this.inFlight.set(job.id, { controller, done });
  }

  private async deliver(job: EmailJob, signal: AbortSignal): Promise<void> {
    const { store, config, log } = this.options;
    const result = await this.sender.send(
      { to: job.recipient, subject: job.subject, text: job.text, html: job.html },
      signal,
    );
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
    if (result.ok) return;
    // The reason, never the message: it holds customer data.
    const context = { emailId: job.id, attempt: job.attempt + 1, reason: result.error };
    if (status === 'failed') {
      log.warn(
        context,
        result.permanent
          ? 'mail worker: the mail server refused a mail for good; it is not retried'
          : 'mail worker: a mail failed for the whole retry window; it is given up',
      );
    } else if (status === 'pending') {
      log.warn(context, 'mail worker: sending a mail failed; it is retried');
    }
  }
}
