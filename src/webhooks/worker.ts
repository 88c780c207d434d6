// The delivery worker: every instance runs one. It leases due rows from the queue, sends them, records the result.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { WebhookConfig } from '../config.js';
import type { Store } from '../db/store.js';
import { eventJson } from '../domain/events.js';
import {
  abandonDelivery,
  claimDueDeliveries,
  type DeliveryJob,
  loadDeliveryJobs,
  recordAttempt,
  releaseLease,
} from '../domain/webhook-deliveries.js';
import { sendWebhook } from './sender.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature.js';
import type { Resolver } from './url-guard.js';

export interface WorkerLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface WorkerOptions {
  store: Store;
  config: WebhookConfig;
  log: WorkerLog;
  /** Deliveries sent at once by this instance. */
  concurrency?: number;
  resolve?: Resolver;
}

class Shutdown extends Error {}

export class DeliveryWorker {
  /** Written into lease_owner: which process holds a row, for anyone reading the table. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private running = false;
  private woken = false;
  private wakeSleeper: (() => void) | undefined;
  private loopDone: Promise<void> | undefined;
  private failing = false;

  constructor(private readonly options: WorkerOptions) {
    this.concurrency = options.concurrency ?? 16;
    // Long enough to cover the send (bounded by the timeout) and recording its result.
    this.leaseMs = options.config.timeoutMs * 2 + 1000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Look for due deliveries now rather than at the next poll (called right after a commit that queued some). */
  wake(): void {
    this.woken = true;
    this.wakeSleeper?.();
  }

  /**
   * Stops claiming, lets sends in progress finish for up to graceMs, then aborts the rest and hands their rows
   * back so another instance (or the next start) sends them at once.
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
            this.options.log.info({}, 'webhook worker: the database answers again');
          }
        } catch (error) {
          if (!this.failing) {
            this.failing = true;
            this.options.log.warn({ err: error }, 'webhook worker: could not read the delivery queue');
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
    const now = Date.now();
    const ids = await claimDueDeliveries(store, this.owner, limit, this.leaseMs, now);
    if (!ids.length) return 0;
    const jobs = await loadDeliveryJobs(store, this.owner, ids, now);
    for (const job of jobs) this.dispatch(job);
    return ids.length;
  }

  private dispatch(job: DeliveryJob): void {
    const controller = new AbortController();
    const done = this.deliver(job, controller.signal)
      .catch((error) => {
        this.options.log.warn(
          { err: error, deliveryId: job.id },
          'webhook worker: could not record a delivery',
        );
      })
      .finally(() => {
        this.inFlight.delete(job.id);
        // A slot is free: if the queue had more than fit, take the next ones now.
        this.wake();
      });
    this.inFlight.set(job.id, { controller, done });
  }

  private async deliver(job: DeliveryJob, signal: AbortSignal): Promise<void> {
    const { store, config } = this.options;
    if (!job.enabled) {
      await abandonDelivery(store, this.owner, job.id, 'endpoint disabled', Date.now());
      return;
    }
    const body = eventJson(job.event);
    const result = await sendWebhook({
      url: job.url,
      body,
      headers: {
        [EVENT_ID_HEADER]: job.eventId,
        [SIGNATURE_HEADER]: signatureHeader(job.secrets, body),
      },
      timeoutMs: config.timeoutMs,
      policy: { allowHttp: config.allowHttp, allowPrivate: config.allowPrivate },
      ...(this.options.resolve ? { resolve: this.options.resolve } : {}),
      signal,
    });
    if (!result.ok && signal.aborted && signal.reason instanceof Shutdown) {
      await releaseLease(store, this.owner, job.id);
      return;
    }
    await recordAttempt(store, this.owner, job, { ...result, at: Date.now() }, config);
  }
}
