// Reads and validates the environment once; everything else receives the frozen result.
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { hasUrlControl } from '../shared/text.js';

export type DatabaseConfig = (
  | {
      dialect: 'sqlite';
      file: string;
      /**
       * Writes on a thread of their own (write-thread.ts): SQLITE_WRITE_THREAD=on, or auto (the default) when the
       * process may run on two cores or more.
       */
      writeThread?: boolean;
    }
  | { dialect: 'postgres'; url: string; schema: string; poolMax: number }
) & {
  /** How long one search may run before it is stopped with a 422 (SEARCH_BUDGET_MS, default 2000). */
  searchBudgetMs?: number;
};

export interface Config {
  host: string;
  port: number;
  database: DatabaseConfig;
  dataDir: string;
  logLevel: string;
  /** json for log collectors; pretty for a person at a terminal (the default when stdout is a TTY). */
  logFormat: 'json' | 'pretty';
  /** Public base URL used in logged links (setup URL). */
  publicUrl: string;
  /** False when publicUrl is only guessed from HOST and PORT, which is wrong with PORT=0 or behind a proxy. */
  publicUrlExplicit: boolean;
  metricsToken: string | undefined;
  /** How long a resolved API key is trusted before it is looked up again (revocation delay). */
  keyCacheTtlMs: number;
  requestTimeoutMs: number;
  /** After SIGTERM: how long /readyz answers 503 while requests are still served, before new connections stop. */
  shutdownDrainMs: number;
  /** SQLite's synchronous pragma: FULL makes every acknowledged commit survive power loss. */
  sqliteSynchronous: 'FULL' | 'NORMAL';
  /**
   * Which X-Forwarded-* hops to believe: false (none: the socket address is the client), a number of proxies in
   * front of the server, or the addresses and CIDR ranges of those proxies. Never "every hop".
   */
  trustProxy: TrustProxy;
  rateLimit: {
    readsPerMinute: number;
    writesPerMinute: number;
    failedAuthPerMinute: number;
    /** Posts to one website form per client address and minute (default 10). */
    formPostsPerMinute?: number;
    /** Posts to one website form per hour, all addresses together (default 300). */
    formPostsPerHour?: number;
  };
  redisUrl: string | undefined;
  /** Prefix of every Redis key, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  webhooks: WebhookConfig;
  /** Outgoing email (SMTP_URL and MAIL_FROM); null when email is off. */
  mail: MailConfig | null;
  /** Bytes of list and read responses kept for reuse while the data is unchanged (SQLite only; 0 turns it off). */
  responseCacheBytes: number;
  /** Compress responses over 1 KB with br or gzip (COMPRESSION, default on; off when a proxy in front does it). */
  compression: boolean;
  /** ETags and 304s on API reads (ETAGS, default on; off saves hashing each body when no client revalidates). */
  etags: boolean;
  /** Load shedding: 503 once this many requests are being served at once (0 turns the limit off). */
  maxInFlight: number;
  /** Load shedding: 503 while the event loop lags more than this, on average (0 turns it off). */
  maxEventLoopDelayMs: number;
  /** Captcha checks of website form posts. */
  captcha: CaptchaConfig;
  /** Photos and files with a request: where their bytes are kept, and how much a post and a lead may carry. */
  attachments: AttachmentsConfig;
  /** Scheduled backups of the embedded database and the attachments (SQLite only). */
  backups: BackupConfig;
}

export interface BackupConfig {
  /** BACKUP_INTERVAL_MINUTES: minutes between scheduled backups (default 1440, a day); 0 turns them off. */
  intervalMinutes: number;
  /** BACKUP_KEEP: how many of the newest scheduled archives are kept (default 7); older ones are deleted. */
  keep: number;
  /** BACKUP_DIR: where archives go (default DATA_DIR/backups). */
  dir: string;
}

/** Where attachments' bytes live: files under a folder, or an S3-compatible bucket. */
export type StorageConfig =
  | { kind: 'disk'; dir: string }
  | {
      kind: 's3';
      /** S3_ENDPOINT: an S3-compatible server's URL (MinIO, R2, …); undefined: AWS's own for the region. */
      endpoint: string | undefined;
      region: string;
      bucket: string;
      /** S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY; undefined: the SDK's usual sources (environment, role). */
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      /** S3_FORCE_PATH_STYLE=1: http://host/bucket/key instead of http://bucket.host/key (MinIO-style servers). */
      forcePathStyle: boolean;
      /**
       * S3_CHECKSUMS: when the SDK adds CRC checksums to uploads and checks them on downloads: when_supported (the
       * SDK's default) or when_required (only where the API demands one), for S3-compatible servers that do not
       * know the newer checksum headers. undefined: the SDK's default.
       */
      checksums: 'when_supported' | 'when_required' | undefined;
    };

export interface AttachmentsConfig {
  storage: StorageConfig;
  /** ATTACHMENT_MAX_BYTES: the most one file may hold (default 10 MiB). */
  maxFileBytes: number;
  /** ATTACHMENTS_MAX_TOTAL_BYTES: the most the files of one post may hold together (default 25 MiB). */
  maxTotalBytes: number;
  /** Files one post may carry (10). */
  maxFilesPerPost: number;
  /** Files one lead may have (50). */
  maxFilesPerLead: number;
}

export interface CaptchaConfig {
  /** Each provider's verify API (CAPTCHA_VERIFY_URL_<PROVIDER>); tests point them at a local verifier. */
  verifyUrls: { turnstile: string; hcaptcha: string; recaptcha: string };
  /** A provider that has not answered within this time (5 s) has failed: the person may try again. */
  timeoutMs: number;
}

/** The providers' documented verify endpoints. */
export const CAPTCHA_VERIFY_URLS: CaptchaConfig['verifyUrls'] = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
};

export interface WebhookConfig {
  /** Allow http:// URLs, but only to 127.0.0.1, localhost and ::1 (local development). */
  allowHttp: boolean;
  /** Allow loopback, private, link-local and other non-public addresses (SSRF guard off). */
  allowPrivate: boolean;
  /** A delivery that has not answered within this time has failed (10 s per the contract). */
  timeoutMs: number;
  /** First retry delay; each further retry doubles it (with jitter), capped at one hour. */
  retryBaseMs: number;
  /** Deliveries are retried, and an endpoint may fail, for this long (24 h) before giving up. */
  retryWindowMs: number;
  /** How often each instance looks for due deliveries it was not woken for. */
  pollIntervalMs: number;
}

export interface MailConfig {
  /** smtp:// or smtps:// with the credentials in it: never logged or shown. */
  smtpUrl: string;
  /** MAIL_FROM as given: an address, optionally with a name ("Acme Leads <leads@acme.example>"). */
  from: string;
  /** Connecting, the greeting and each SMTP command must answer within this time; a send within 3 times it. */
  timeoutMs: number;
  /** First retry delay; each further retry doubles it (with jitter), capped at one hour. */
  retryBaseMs: number;
  /** A mail is retried for this long (24 h), then it has failed. */
  retryWindowMs: number;
  /** How often each instance looks for due mails it was not woken for. */
  pollIntervalMs: number;
}

export type TrustProxy = false | number | readonly string[];

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback = false): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (raw === '1' || raw === 'true' || raw === 'yes' || raw === 'on') return true;
  if (raw === '0' || raw === 'false' || raw === 'no' || raw === 'off') return false;
  throw new ConfigError(`${name} must be 1/true/yes/on or 0/false/no/off, got "${env[name]}"`);
}

// proxy-addr's names for common ranges (loopback: 127.0.0.1/8 and ::1; linklocal; uniquelocal: the private ranges).
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
const TRUST_PROXY_CHOICES =
  'set the number of proxies in front of the server (TRUST_PROXY=1 for one nginx on the same machine) or their addresses (TRUST_PROXY=127.0.0.1, or a list such as 10.0.0.0/8,::1)';

/** An IPv4 or IPv6 address, optionally with a /prefix: what proxy-addr (behind Fastify's trustProxy) accepts. */
function isAddressOrRange(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry.toLowerCase())) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: off (unset, 0, false, no), a hop count (1 = one proxy), or a comma-separated list of proxy addresses
 * and CIDR ranges. true/yes are refused: they used to mean "believe every hop of X-Forwarded-For", which lets any
 * client pick the address its limits are counted under.
 */
function trustProxy(env: Env): TrustProxy {
  const raw = (env.TRUST_PROXY ?? '').trim();
  const lower = raw.toLowerCase();
  if (['', 'false', 'no', 'off'].includes(lower) || /^0+$/.test(lower)) return false;
  if (['true', 'yes', 'on', 'all'].includes(lower)) {
    throw new ConfigError(
      `TRUST_PROXY=${raw} would believe every hop of X-Forwarded-For, so any client could choose the address its rate limits count against: ${TRUST_PROXY_CHOICES}`,
    );
  }
  if (/^\d+$/.test(lower)) {
    const hops = Number(lower);
    if (hops > 100)
      throw new ConfigError(`TRUST_PROXY must be a number of proxies from 1 to 100, got ${raw}`);
    return hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (/\/0+$/.test(entry)) {
      throw new ConfigError(
        `TRUST_PROXY: "${entry}" matches every address, which would believe every hop of X-Forwarded-For; ${TRUST_PROXY_CHOICES}`,
      );
    }
    if (!isAddressOrRange(entry)) {
      throw new ConfigError(
        `TRUST_PROXY: ${entry === '' ? 'an empty entry' : `"${entry}"`} is not an IP address or CIDR range (such as 10.0.0.0/8 or fd00::/8); ${TRUST_PROXY_CHOICES}`,
      );
    }
  }
  return Object.freeze(entries);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(env: Env): string {
  const level = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!LOG_LEVELS.includes(level)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  return level;
}

function logFormat(env: Env): 'json' | 'pretty' {
  const raw = (env.LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json')).toLowerCase();
  if (raw !== 'json' && raw !== 'pretty') throw new ConfigError('LOG_FORMAT must be json or pretty');
  return raw;
}

// An address: no spaces, angle brackets, quotes or separators, one @ with something on each side.
const MAIL_ADDRESS = /^[^\s@<>()",;:\\]+@[^\s@<>()",;:\\]+$/;

/** MAIL_FROM: `leads@acme.example` or `Acme Leads <leads@acme.example>`; no line breaks (header injection). */
function mailFrom(raw: string): string {
  const value = raw.trim();
  const parts = /^(?:[^<>]*<([^<>]*)>|([^<>]*))$/.exec(value);
  const address = parts?.[1] ?? parts?.[2] ?? '';
  const control = [...value].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127);
  if (control || !MAIL_ADDRESS.test(address)) {
    throw new ConfigError(
      `MAIL_FROM must be an email address, optionally with a name: "leads@example.com" or "Acme Leads <leads@example.com>", got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** SMTP_URL and MAIL_FROM together turn email on; one without the other is a mistake. */
function mailConfig(env: Env): MailConfig | null {
  const smtpUrl = env.SMTP_URL || undefined;
  const from = env.MAIL_FROM || undefined;
  if (!smtpUrl && !from) return null;
  if (!smtpUrl) throw new ConfigError('SMTP_URL must be set when MAIL_FROM is: together they turn email on');
  if (!from) throw new ConfigError('MAIL_FROM must be set when SMTP_URL is: together they turn email on');
  let url: URL | undefined;
  try {
    url = new URL(smtpUrl);
  } catch {
    url = undefined;
  }
  // The value holds a password: the message never repeats it.
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) {
    throw new ConfigError(
      'SMTP_URL must be an smtp:// or smtps:// URL with a host, e.g. smtps://user:password@smtp.example.com:465',
    );
  }
  return {
    smtpUrl,
    from: mailFrom(from),
    timeoutMs: 30_000,
    retryBaseMs: 30_000,
    retryWindowMs: 24 * 60 * 60 * 1000,
    pollIntervalMs: 5000,
  };
}

/** An http(s) URL with a host, or the default when unset or empty. */
function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (hasUrlControl(raw.trim())) {
    throw new ConfigError(`${name} must not contain control characters (such as line breaks)`);
  }
  let url: URL | undefined;
  try {
    url = new URL(raw.trim());
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new ConfigError(
      `${name} must be an http:// or https:// URL such as ${fallback}, got ${JSON.stringify(raw)}`,
    );
  }
  return url.href;
}

function captchaConfig(env: Env): CaptchaConfig {
  return {
    verifyUrls: {
      turnstile: httpUrl(env, 'CAPTCHA_VERIFY_URL_TURNSTILE', CAPTCHA_VERIFY_URLS.turnstile),
      hcaptcha: httpUrl(env, 'CAPTCHA_VERIFY_URL_HCAPTCHA', CAPTCHA_VERIFY_URLS.hcaptcha),
      recaptcha: httpUrl(env, 'CAPTCHA_VERIFY_URL_RECAPTCHA', CAPTCHA_VERIFY_URLS.recaptcha),
    },
    timeoutMs: 5000,
  };
}

const MIB = 1024 * 1024;

/** ATTACHMENT_STORAGE and the S3_* settings it needs. */
function storageConfig(env: Env, dataDir: string): StorageConfig {
  const kind = (env.ATTACHMENT_STORAGE || 'disk').trim().toLowerCase();
  if (kind === 'disk') return { kind: 'disk', dir: path.join(dataDir, 'attachments') };
  if (kind !== 's3') {
    throw new ConfigError(
      `ATTACHMENT_STORAGE must be disk or s3, got ${JSON.stringify(env.ATTACHMENT_STORAGE)}`,
    );
  }
  const bucket = (env.S3_BUCKET ?? '').trim();
  if (!bucket)
    throw new ConfigError('S3_BUCKET must be set when ATTACHMENT_STORAGE=s3: the bucket files go to');
  const endpoint = env.S3_ENDPOINT?.trim()
    ? httpUrl(env, 'S3_ENDPOINT', 'https://s3.example.com')
    : undefined;
  const accessKeyId = env.S3_ACCESS_KEY_ID?.trim() || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || undefined;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new ConfigError(
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or neither, for the SDK’s usual sources)',
    );
  }
  const checksums = (env.S3_CHECKSUMS ?? '').trim().toLowerCase();
  if (checksums !== '' && checksums !== 'when_supported' && checksums !== 'when_required') {
    throw new ConfigError(
      `S3_CHECKSUMS must be when_supported or when_required, got ${JSON.stringify(env.S3_CHECKSUMS)}`,
    );
  }
  return {
    kind: 's3',
    endpoint,
    region: env.S3_REGION?.trim() || 'us-east-1',
    bucket,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE'),
    checksums: checksums === '' ? undefined : checksums,
  };
}

function attachmentsConfig(env: Env, dataDir: string): AttachmentsConfig {
  const maxFileBytes = integer(env, 'ATTACHMENT_MAX_BYTES', 10 * MIB, 1024, 1024 * MIB);
  const maxTotalBytes = integer(env, 'ATTACHMENTS_MAX_TOTAL_BYTES', 25 * MIB, 1024, 10 * 1024 * MIB);
  if (maxTotalBytes < maxFileBytes) {
    throw new ConfigError(
      `ATTACHMENTS_MAX_TOTAL_BYTES (${maxTotalBytes}) must be at least ATTACHMENT_MAX_BYTES (${maxFileBytes})`,
    );
  }
  return {
    storage: storageConfig(env, dataDir),
    maxFileBytes,
    maxTotalBytes,
    maxFilesPerPost: 10,
    maxFilesPerLead: 50,
  };
}

function backupConfig(env: Env, dataDir: string): BackupConfig {
  const dir = (env.BACKUP_DIR ?? '').trim();
  return {
    intervalMinutes: integer(env, 'BACKUP_INTERVAL_MINUTES', 1440, 0, 525_600),
    keep: integer(env, 'BACKUP_KEEP', 7, 1, 10_000),
    dir: dir ? path.resolve(dir) : path.join(dataDir, 'backups'),
  };
}

/**
 * `cores`: how many cores this process may run on (its CPU affinity, as taskset or a cpuset sets it); it decides
 * SQLITE_WRITE_THREAD=auto.
 */
export function loadConfig(env: Env = process.env, cores = os.availableParallelism()): Readonly<Config> {
  const host = env.HOST || '127.0.0.1';
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL;
  let database: DatabaseConfig;
  if (databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
      throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
    }
    const schema = env.DATABASE_SCHEMA || 'public';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new ConfigError('DATABASE_SCHEMA must be a lower-case SQL identifier');
    }
    database = {
      dialect: 'postgres',
      url: databaseUrl,
      schema,
      poolMax: integer(env, 'DATABASE_POOL_MAX', 10, 2, 1000),
    };
  } else {
    const thread = (env.SQLITE_WRITE_THREAD || 'auto').toLowerCase();
    if (thread !== 'auto' && thread !== 'on' && thread !== 'off')
      throw new ConfigError('SQLITE_WRITE_THREAD must be auto, on or off');
    database = {
      dialect: 'sqlite',
      file: path.join(dataDir, 'lead-intake.sqlite'),
      // On one core the thread only moves the work, and handing each write across costs more than it saves
      // (bench/README.md, "one core"): auto keeps the writes on the event loop there.
      writeThread: thread === 'on' || (thread === 'auto' && cores >= 2),
    };
  }
  database.searchBudgetMs = integer(env, 'SEARCH_BUDGET_MS', 2000, 50, 60_000);
  const sync = (env.SQLITE_SYNCHRONOUS || 'FULL').toUpperCase();
  if (sync !== 'FULL' && sync !== 'NORMAL')
    throw new ConfigError('SQLITE_SYNCHRONOUS must be FULL or NORMAL');
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return Object.freeze({
    host,
    port,
    database,
    dataDir,
    logLevel: logLevel(env),
    logFormat: logFormat(env),
    publicUrl: (
      env.PUBLIC_URL || `http://${displayHost.includes(':') ? `[${displayHost}]` : displayHost}:${port}`
    ).replace(/\/$/, ''),
    publicUrlExplicit: Boolean(env.PUBLIC_URL),
    metricsToken: env.METRICS_TOKEN || undefined,
    keyCacheTtlMs: integer(env, 'KEY_CACHE_TTL_MS', 5000, 0, 300_000),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS', 5000, 0, 300_000),
    sqliteSynchronous: sync,
    trustProxy: trustProxy(env),
    rateLimit: {
      readsPerMinute: integer(env, 'RATE_LIMIT_READS_PER_MINUTE', 600, 1, 1_000_000),
      writesPerMinute: integer(env, 'RATE_LIMIT_WRITES_PER_MINUTE', 120, 1, 1_000_000),
      failedAuthPerMinute: integer(env, 'RATE_LIMIT_FAILED_AUTH_PER_MINUTE', 30, 1, 1_000_000),
      formPostsPerMinute: integer(env, 'RATE_LIMIT_FORM_POSTS_PER_MINUTE', 10, 1, 1_000_000),
      formPostsPerHour: integer(env, 'RATE_LIMIT_FORM_POSTS_PER_HOUR', 300, 1, 1_000_000),
    },
    redisUrl: env.REDIS_URL || undefined,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'lead-intake:',
    webhooks: {
      allowHttp: bool(env, 'WEBHOOKS_ALLOW_HTTP'),
      allowPrivate: bool(env, 'WEBHOOKS_ALLOW_PRIVATE'),
      timeoutMs: integer(env, 'WEBHOOKS_TIMEOUT_MS', 10_000, 100, 60_000),
      retryBaseMs: integer(env, 'WEBHOOKS_RETRY_BASE_MS', 10_000, 10, 3_600_000),
      retryWindowMs: 24 * 60 * 60 * 1000,
      pollIntervalMs: 1000,
    },
    mail: mailConfig(env),
    responseCacheBytes: integer(env, 'RESPONSE_CACHE_MB', 32, 0, 4096) * 1024 * 1024,
    compression: bool(env, 'COMPRESSION', true),
    etags: bool(env, 'ETAGS', true),
    maxInFlight: integer(env, 'MAX_IN_FLIGHT', 1000, 0, 1_000_000),
    maxEventLoopDelayMs: integer(env, 'MAX_EVENT_LOOP_DELAY_MS', 500, 0, 60_000),
    captcha: captchaConfig(env),
    attachments: attachmentsConfig(env, dataDir),
    backups: backupConfig(env, dataDir),
  });
}
