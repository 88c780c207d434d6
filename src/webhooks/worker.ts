// The delivery worker: every instance runs one. It leases due rows from the queue, sends them, records the result.
import type { WebhookConfig } from '../platform/config.js';
import type { Store } from '../platform/db/store.js';
import {
  LeasedQueueWorker,
  MAX_LEASE_MS,
  Shutdown,
  type WorkerLog,
} from '../platform/queue/leased-worker.js';
import {
  abandonDelivery,
  type DeliveryJob,
  deliveryQueue,
  loadDeliveryJobs,
  recordAttempt,
  releaseLease,
} from './deliveries.js';
import { eventJson } from './events.js';
import { sendWebhook } from './sender.js';
import {
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  STANDARD_ID_HEADER,
  STANDARD_SIGNATURE_HEADER,
  STANDARD_TIMESTAMP_HEADER,
  signatureHeader,
  standardSignatureHeader,
} from './signature.js';
import type { Resolver } from './url-guard.js';

export type { DeliveryMetrics, DeliveryOutcome } from '../platform/queue/outcomes.js';

import type { DeliveryMetrics, DeliveryOutcome } from '../platform/queue/outcomes.js';

export type { WorkerLog };

export interface WorkerOptions {
  store: Store;
  config: WebhookConfig;
  log: WorkerLog;
  metrics?: DeliveryMetrics;
  /** Deliveries sent at once by this instance. */
  concurrency?: number;
  resolve?: Resolver;
}

export class DeliveryWorker extends LeasedQueueWorker<DeliveryJob> {
  private readonly leaseMs: number;

  constructor(private readonly options: WorkerOptions) {
    // Long enough to cover a send (bounded by the timeout) and recording its result, at most MAX_LEASE_MS; renewed
    // while the send runs, so another instance takes the row over only when this one has stopped.
    const leaseMs = Math.min(options.config.timeoutMs * 2 + 1000, MAX_LEASE_MS);
    super({
      name: 'webhook worker',
      queue: 'the delivery queue',
      jobKey: 'deliveryId',
      jobWhat: 'a delivery',
      concurrency: options.concurrency ?? 16,
      pollIntervalMs: options.config.pollIntervalMs,
      log: options.log,
      leaseMs,
    });
    this.leaseMs = leaseMs;
  }

  protected renewLeases(ids: string[]): Promise<void> {
    return deliveryQueue.renew(this.options.store, this.owner, ids, this.leaseMs, Date.now());
  }

  protected async claim(limit: number) {
    const { store } = this.options;
    const now = Date.now();
    const ids = await deliveryQueue.claimDue(store, this.owner, limit, this.leaseMs, now);
    if (!ids.length) return { claimed: 0, jobs: [] };
    return { claimed: ids.length, jobs: await loadDeliveryJobs(store, this.owner, ids, now) };
  }

  protected async run(job: DeliveryJob, signal: AbortSignal): Promise<void> {
    const { store, config } = this.options;
    if (!job.enabled) {
      await abandonDelivery(store, this.owner, job.id, 'endpoint disabled', Date.now());
      this.options.metrics?.webhookDelivery('abandoned');
      this.options.log.info(
        { endpointId: job.endpointId, deliveryId: job.id, eventId: job.eventId },
        'webhook worker: the endpoint was disabled; the delivery is not sent',
      );
      return;
    }
    const body = eventJson(job.event);
    // One timestamp for both families: Lead-Intake-Signature's t and webhook-timestamp.
    const timestamp = Math.floor(Date.now() / 1000);
    const standard = standardSignatureHeader(job.secrets, job.eventId, timestamp, body);
    const result = await sendWebhook({
      url: job.url,
      body,
      headers: {
        [EVENT_ID_HEADER]: job.eventId,
        [SIGNATURE_HEADER]: signatureHeader(job.secrets, body, timestamp),
        [STANDARD_ID_HEADER]: job.eventId,
        [STANDARD_TIMESTAMP_HEADER]: String(timestamp),
        // Left out only when no secret has a Standard Webhooks key (an earlier base64url secret, not yet rotated).
        ...(standard ? { [STANDARD_SIGNATURE_HEADER]: standard } : {}),
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
    const status = await recordAttempt(store, this.owner, job, { ...result, at: Date.now() }, config);
    // Lost its lease meanwhile: another worker has the row, and what it does is counted there.
    if (status === 'lease_lost') return;
    const outcome: DeliveryOutcome =
      status === 'succeeded' ? 'delivered' : status === 'failed' ? 'gave_up' : 'retrying';
    this.options.metrics?.webhookDelivery(outcome);
    if (result.ok) return;
    // Ids, the attempt and why (the receiver's status or the network error), never the URL, the body or secrets.
    const context = {
      endpointId: job.endpointId,
      deliveryId: job.id,
      eventId: job.eventId,
      attempt: job.attempt + 1,
      responseStatus: result.responseStatus,
      reason: result.error,
    };
    this.options.log.warn(
      context,
      outcome === 'gave_up'
        ? 'webhook worker: a delivery failed for the whole retry window; it is given up'
        : 'webhook worker: a delivery failed; it is retried',
    );
  }
}
