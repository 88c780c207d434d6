// The loop every leased-queue worker shares (webhook deliveries, mail): claim due rows with a lease, run each,
// wake right after a commit that queued work, otherwise poll; on stop, let jobs finish for a grace period, then
// abort the rest so their rows can be handed back.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

export interface WorkerLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/** The abort reason of a job cut off by stop(): its row is to be handed back, not counted as an attempt. */
export class Shutdown extends Error {}

export interface LeasedWorkerSettings {
  /** For log lines: "webhook worker", "mail worker". */
  name: string;
  /** What the claim reads, for log lines: "the delivery queue". */
  queue: string;
  /** The log field naming a job and what running it records, e.g. "deliveryId" and "a delivery". */
  jobKey: string;
  jobWhat: string;
  concurrency: number;
  pollIntervalMs: number;
  log: WorkerLog;
  /** A job still running after this long is aborted (its own limit). */
  jobLimitMs?: number;
  /** How long a claim holds a row without renewal (at most MAX_LEASE_MS). */
  leaseMs: number;
}

/**
 * The longest lease on a claimed row. The worker renews the leases of the jobs it runs every third of its lease, so a
 * send may take longer; a worker that died (SIGKILL, a crash, a lost machine) renews nothing, and its rows are taken
 * over by another instance when the lease ends: within the lease (at most this) and one poll.
 */
export const MAX_LEASE_MS = 30_000;

export abstract class LeasedQueueWorker<Job extends { id: string }> {
  /** Written into lease_owner: which process holds a row, for anyone reading the table. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private running = false;
  private woken = false;
  private wakeSleeper: (() => void) | undefined;
  private loopDone: Promise<void> | undefined;
  private failing = false;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly settings: LeasedWorkerSettings) {}

  /** Leases up to `limit` due rows to this worker; returns how many were claimed and the jobs to run. */
  protected abstract claim(limit: number): Promise<{ claimed: number; jobs: Job[] }>;

  /** Extends this worker's leases on the rows of the jobs it is running (a heartbeat; see MAX_LEASE_MS). */
  protected abstract renewLeases(ids: string[]): Promise<void>;

  /** Runs one job and records its result (or, aborted by stop(), hands its row back). */
  protected abstract run(job: Job, signal: AbortSignal): Promise<void>;

  /** Called once stop() has finished with every job. */
  protected stopped(): void {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
    this.heartbeat = setInterval(() => {
      const ids = [...this.inFlight.keys()];
      if (!ids.length) return;
      this.renewLeases(ids).catch((error) =>
        this.settings.log.warn({ err: error }, `${this.settings.name}: could not renew its leases`),
      );
    }, this.settings.leaseMs / 3);
    this.heartbeat.unref();
  }

  /** Look for due rows now rather than at the next poll (called right after a commit that queued some). */
  wake(): void {
    this.woken = true;
    this.wakeSleeper?.();
  }

  /**
   * Stops claiming, lets jobs in progress finish for up to graceMs, then aborts the rest (with a Shutdown reason)
   * so their rows are handed back and another instance (or the next start) runs them at once.
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
    clearInterval(this.heartbeat);
    this.stopped();
  }

  /**
   * Stops claiming and aborts every job in progress at once (with a Shutdown reason), so each hands its row back:
   * a forced shutdown (a second SIGTERM, the hard deadline), whatever the job is waiting on.
   */
  async abort(): Promise<void> {
    this.running = false;
    this.wake();
    const pending = [...this.inFlight.values()];
    for (const p of pending) p.controller.abort(new Shutdown('shutting down now'));
    await Promise.all(pending.map((p) => p.done));
  }

  private async loop(): Promise<void> {
    const { name, queue, concurrency, pollIntervalMs, log } = this.settings;
    while (this.running) {
      this.woken = false;
      let claimed = 0;
      let free = concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          const result = await this.claim(free);
          claimed = result.claimed;
          for (const job of result.jobs) this.dispatch(job);
          if (this.failing) {
            this.failing = false;
            log.info({}, `${name}: the database answers again`);
          }
        } catch (error) {
          if (!this.failing) {
            this.failing = true;
            log.warn({ err: error }, `${name}: could not read ${queue}`);
          }
        }
        free -= claimed;
      }
      // Some were due and there is still room: more may be due, so look again at once.
      if (!this.running || this.woken || (claimed > 0 && free > 0)) continue;
      await this.sleep(pollIntervalMs);
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

  private dispatch(job: Job): void {
    const { name, jobKey, jobWhat, jobLimitMs, log } = this.settings;
    const controller = new AbortController();
    // A job that hangs is cut off well within the lease (AbortSignal.any needs Node 20.3; engines says 20.0).
    const limit =
      jobLimitMs === undefined
        ? undefined
        : setTimeout(() => controller.abort(new Error(`no answer within ${jobLimitMs} ms`)), jobLimitMs);
    const done = this.run(job, controller.signal)
      .catch((error) => {
        log.warn({ err: error, [jobKey]: job.id }, `${name}: could not record ${jobWhat}`);
      })
      .finally(() => {
        clearTimeout(limit);
        this.inFlight.delete(job.id);
        // A slot is free: if the queue had more than fit, take the next ones now.
        this.wake();
      });
    this.inFlight.set(job.id, { controller, done });
  }
}
