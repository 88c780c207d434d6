// When a leased job that failed is tried again: exponential backoff with jitter, within a retry window. Webhook
// deliveries and mail share it; each passes its own base delay and window.

/** A queue's retry settings: the first delay, and how long after a job was queued it is still tried. */
export interface RetryPolicy {
  retryBaseMs: number;
  retryWindowMs: number;
}

const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

/** Exponential backoff with jitter: half the doubled delay is fixed, half random, so retries spread out. */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const capped = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_RETRY_DELAY_MS);
  return Math.round(capped / 2 + (random() * capped) / 2);
}
