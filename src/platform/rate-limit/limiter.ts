// Fixed windows of request counts (one minute unless a caller asks for another length): in this process, or in
// Redis so every instance shares them.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

/** The default window: one minute. */
export const WINDOW_MS = 60_000;

export interface RateLimitState {
  limit: number;
  /** Requests left in this window after this one (never below 0). */
  remaining: number;
  /** Milliseconds until the window ends and the count starts again. */
  resetMs: number;
  /** False when this request went over the limit. */
  allowed: boolean;
}

export interface RateLimiter {
  /**
   * Counts one request against `bucket` and says whether it fits in `limit` per window of `windowMs` (default one
   * minute). A bucket counted with two window lengths has two separate counts.
   */
  hit(bucket: string, limit: number, now?: number, windowMs?: number): Promise<RateLimitState>;
  /** The bucket's state without counting anything. */
  peek(bucket: string, limit: number, now?: number, windowMs?: number): Promise<RateLimitState>;
  /** For /readyz: where the counters live and whether that works. */
  status(): Record<string, string>;
  close(): Promise<void>;
}

function windowOf(now: number, windowMs: number) {
  const index = Math.floor(now / windowMs);
  return { index, resetMs: (index + 1) * windowMs - now };
}

function stateOf(count: number, limit: number, resetMs: number, counted: boolean): RateLimitState {
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetMs,
    allowed: counted ? count <= limit : count < limit,
  };
}

/** Counters in this process: exact for one instance, per instance when there are several. */
export class MemoryRateLimiter implements RateLimiter {
  /** Per window length: the current window's index and its counts. */
  private windows = new Map<number, { index: number; counts: Map<string, number> }>();

  private current(now: number, windowMs: number) {
    const w = windowOf(now, windowMs);
    let window = this.windows.get(windowMs);
    // A new window starts every count at zero; the old map is dropped whole, so memory stays bounded.
    if (!window || w.index > window.index) {
      window = { index: w.index, counts: new Map() };
      this.windows.set(windowMs, window);
    }
    return { resetMs: w.resetMs, counts: window.counts };
  }

  async hit(bucket: string, limit: number, now = Date.now(), windowMs = WINDOW_MS): Promise<RateLimitState> {
    const { resetMs, counts } = this.current(now, windowMs);
    const count = (counts.get(bucket) ?? 0) + 1;
    counts.set(bucket, count);
    return stateOf(count, limit, resetMs, true);
  }

  async peek(bucket: string, limit: number, now = Date.now(), windowMs = WINDOW_MS): Promise<RateLimitState> {
    const { resetMs, counts } = this.current(now, windowMs);
    return stateOf(counts.get(bucket) ?? 0, limit, resetMs, false);
  }

  status() {
    return { rateLimit: 'in-process' };
  }

  async close() {}
}

// INCR and, for a new key, its expiry, in one atomic round trip.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

type RedisWithHit = Redis & { rateLimitHit(key: string, ttlMs: number): Promise<number> };

export interface RedisLimiterOptions {
  url: string;
  keyPrefix: string;
  log: { warn(object: object, message: string): void; info(object: object, message: string): void };
  /** A command slower than this counts as Redis being unreachable (default 200 ms). */
  commandTimeoutMs?: number;
  /** How often to try Redis again while serving from process memory (default 2 s). */
  probeIntervalMs?: number;
}

/**
 * Counters in Redis, shared by every instance. While Redis cannot be reached the counters fall back to this
 * process (logged once, shown in /readyz) and go back to Redis when it answers again. Commands never queue
 * while disconnected and time out quickly, so a dead Redis costs a request at most one short timeout.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: RedisWithHit;
  private readonly fallback = new MemoryRateLimiter();
  private usingRedis = false;
  private unreachableSince: number | undefined;
  private lastError = '';
  private probe: NodeJS.Timeout | undefined;
  private probing = false;
  private closed = false;

  constructor(private readonly options: RedisLimiterOptions) {
    // Loaded only when Redis is configured: a single instance never needs the client.
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.redis = new RedisClient(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 200,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(100 * times, 2000),
      lazyConnect: false,
    }) as RedisWithHit;
    this.redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.redis.on('ready', () => void this.tryRedis());
    this.redis.on('error', (error: Error) => this.lost(error));
    this.probe = setInterval(() => void this.tryRedis(), options.probeIntervalMs ?? 2000);
    this.probe.unref();
  }

  /**
   * One key per bucket and window: one-minute windows keep the key they always had; other lengths name theirs
   * (`rl:3600000ms:<bucket>:<index>`), so a bucket counted per minute and per hour never shares a count.
   */
  private key(bucket: string, now: number, windowMs: number) {
    const index = windowOf(now, windowMs).index;
    return windowMs === WINDOW_MS
      ? `${this.options.keyPrefix}rl:${bucket}:${index}`
      : `${this.options.keyPrefix}rl:${windowMs}ms:${bucket}:${index}`;
  }

  async hit(bucket: string, limit: number, now = Date.now(), windowMs = WINDOW_MS): Promise<RateLimitState> {
    if (this.usingRedis) {
      try {
        // The key outlives its window by one window length, never by less.
        const count = await this.redis.rateLimitHit(this.key(bucket, now, windowMs), windowMs * 2);
        return stateOf(Number(count), limit, windowOf(now, windowMs).resetMs, true);
      } catch (error) {
        this.lost(error as Error);
      }
    }
    return this.fallback.hit(bucket, limit, now, windowMs);
  }

  async peek(bucket: string, limit: number, now = Date.now(), windowMs = WINDOW_MS): Promise<RateLimitState> {
    if (this.usingRedis) {
      try {
        const value = await this.redis.get(this.key(bucket, now, windowMs));
        return stateOf(Number(value ?? 0), limit, windowOf(now, windowMs).resetMs, false);
      } catch (error) {
        this.lost(error as Error);
      }
    }
    return this.fallback.peek(bucket, limit, now, windowMs);
  }

  /** Switches to process memory; logs when Redis goes away, not for every failing request. */
  private lost(error: Error) {
    if (this.closed) return;
    this.lastError = error.message.slice(0, 200);
    this.usingRedis = false;
    if (this.unreachableSince === undefined) {
      this.unreachableSince = Date.now();
      this.options.log.warn(
        { err: error },
        'Redis is unreachable: rate limits count per instance until it is back',
      );
    }
  }

  /** Goes back to Redis once it answers a PING. */
  private async tryRedis() {
    if (this.usingRedis || this.probing || this.closed || this.redis.status !== 'ready') return;
    this.probing = true;
    try {
      await this.redis.ping();
      if (this.closed) return;
      this.usingRedis = true;
      if (this.unreachableSince !== undefined) {
        this.options.log.info({}, 'Redis is reachable again: rate limits are shared across instances');
      }
      this.unreachableSince = undefined;
    } catch (error) {
      this.lost(error as Error);
    } finally {
      this.probing = false;
    }
  }

  status() {
    if (this.usingRedis) return { rateLimit: 'redis' };
    if (this.unreachableSince === undefined) return { rateLimit: 'in-process: connecting to Redis' };
    return {
      rateLimit: `in-process: Redis unreachable since ${new Date(this.unreachableSince).toISOString()} (${this.lastError}); counting per instance until it is back`,
    };
  }

  async close() {
    this.closed = true;
    clearInterval(this.probe);
    this.redis.disconnect();
  }
}

export function createRateLimiter(
  redisUrl: string | undefined,
  options: Omit<RedisLimiterOptions, 'url'>,
): RateLimiter {
  return redisUrl ? new RedisRateLimiter({ ...options, url: redisUrl }) : new MemoryRateLimiter();
}
