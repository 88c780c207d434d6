// Settings read from the environment: defaults, bounds and clear errors.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/platform/config.js';

describe('RESPONSE_CACHE_MB', () => {
  it('defaults to 32 MiB and takes whole megabytes, 0 turning response reuse off', () => {
    expect(loadConfig({}).responseCacheBytes).toBe(32 * 1024 * 1024);
    expect(loadConfig({ RESPONSE_CACHE_MB: '8' }).responseCacheBytes).toBe(8 * 1024 * 1024);
    expect(loadConfig({ RESPONSE_CACHE_MB: '0' }).responseCacheBytes).toBe(0);
  });

  it.each(['-1', '1.5', 'lots', '5000'])('refuses %s with an error naming the setting', (value) => {
    expect(() => loadConfig({ RESPONSE_CACHE_MB: value })).toThrow(ConfigError);
    expect(() => loadConfig({ RESPONSE_CACHE_MB: value })).toThrow(/RESPONSE_CACHE_MB/);
  });
});

describe('SHUTDOWN_DRAIN_MS', () => {
  it('defaults to 5 s and takes 0 to 300000 ms', () => {
    expect(loadConfig({}).shutdownDrainMs).toBe(5000);
    expect(loadConfig({ SHUTDOWN_DRAIN_MS: '0' }).shutdownDrainMs).toBe(0);
    expect(loadConfig({ SHUTDOWN_DRAIN_MS: '15000' }).shutdownDrainMs).toBe(15_000);
  });

  it.each(['-1', '2.5', 'soon', '300001'])('refuses %s with an error naming the setting', (value) => {
    expect(() => loadConfig({ SHUTDOWN_DRAIN_MS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ SHUTDOWN_DRAIN_MS: value })).toThrow(/SHUTDOWN_DRAIN_MS/);
  });
});

describe('COMPRESSION and ETAGS', () => {
  it('are on unless switched off', () => {
    expect(loadConfig({})).toMatchObject({ compression: true, etags: true });
    expect(loadConfig({ COMPRESSION: 'off', ETAGS: '0' })).toMatchObject({
      compression: false,
      etags: false,
    });
    expect(loadConfig({ COMPRESSION: 'on', ETAGS: 'yes' })).toMatchObject({ compression: true, etags: true });
  });

  it('refuses anything else, naming the setting', () => {
    expect(() => loadConfig({ COMPRESSION: 'gzip' })).toThrow(/COMPRESSION must be/);
  });
});

describe('PUBLIC_URL', () => {
  it('is explicit when set, without its trailing slash', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://leads.example.com/' });
    expect(config.publicUrl).toBe('https://leads.example.com');
    expect(config.publicUrlExplicit).toBe(true);
  });

  it.each([
    [{}, 'http://127.0.0.1:3000'],
    [{ PUBLIC_URL: '' }, 'http://127.0.0.1:3000'],
    [{ HOST: '0.0.0.0', PORT: '0' }, 'http://127.0.0.1:0'],
    [{ HOST: '::1', PORT: '8080' }, 'http://[::1]:8080'],
  ])('is guessed from HOST and PORT, and says so, when unset or empty (%o)', (env, guessed) => {
    const config = loadConfig(env);
    expect(config.publicUrl).toBe(guessed);
    expect(config.publicUrlExplicit).toBe(false);
  });
});

describe('SMTP_URL and MAIL_FROM', () => {
  const url = 'smtps://mailer:s3cret@smtp.example.com:465';

  it('leave email off when neither is set (or both are empty)', () => {
    expect(loadConfig({}).mail).toBeNull();
    expect(loadConfig({ SMTP_URL: '', MAIL_FROM: '' }).mail).toBeNull();
  });

  it.each([
    'leads@acme.example',
    'Acme Leads <leads@acme.example>',
    '"Acme, Leads" <leads@acme.example>',
    '<leads@acme.example>',
  ])('turn email on together (MAIL_FROM %s)', (from) => {
    const mail = loadConfig({ SMTP_URL: url, MAIL_FROM: ` ${from} ` }).mail;
    expect(mail).toMatchObject({ smtpUrl: url, from, retryWindowMs: 24 * 60 * 60 * 1000 });
    expect(loadConfig({ SMTP_URL: 'smtp://relay.internal:25', MAIL_FROM: from }).mail?.smtpUrl).toBe(
      'smtp://relay.internal:25',
    );
  });

  it('refuse one without the other, naming the missing one', () => {
    expect(() => loadConfig({ SMTP_URL: url })).toThrow(ConfigError);
    expect(() => loadConfig({ SMTP_URL: url })).toThrow(/^MAIL_FROM must be set when SMTP_URL is/);
    expect(() => loadConfig({ MAIL_FROM: 'leads@acme.example' })).toThrow(
      /^SMTP_URL must be set when MAIL_FROM is/,
    );
  });

  it.each(['https://smtp.example.com', 'smtp.example.com:587', 'smtp://', 'smtp://user:pa ss@', 'not a url'])(
    'refuse SMTP_URL %s with an error naming it',
    (bad) => {
      const load = () => loadConfig({ SMTP_URL: bad, MAIL_FROM: 'leads@acme.example' });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/^SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/);
    },
  );

  it('never repeats the password of a refused SMTP_URL', () => {
    const load = () =>
      loadConfig({ SMTP_URL: 'imap://mailer:s3cret@mail.example.com', MAIL_FROM: 'a@b.example' });
    expect(load).toThrow(/SMTP_URL/);
    expect(load).not.toThrow(/s3cret/);
  });

  it.each([
    'leads',
    'leads@',
    '@acme.example',
    'Acme Leads leads@acme.example',
    'Acme <leads@acme.example',
    'Acme <leads@acme.example>, other@acme.example',
    'Acme\r\nBcc: victim@example.com <leads@acme.example>',
  ])('refuse MAIL_FROM %j, naming it', (bad) => {
    const load = () => loadConfig({ SMTP_URL: url, MAIL_FROM: bad });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/^MAIL_FROM must be an email address/);
  });
});

describe('CAPTCHA_VERIFY_URL_<PROVIDER>', () => {
  it("defaults to each provider's verify API, with a 5 s timeout", () => {
    expect(loadConfig({}).captcha).toEqual({
      verifyUrls: {
        turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
        hcaptcha: 'https://api.hcaptcha.com/siteverify',
        recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
      },
      timeoutMs: 5000,
    });
  });

  it('takes an http or https URL per provider (a local verifier in tests)', () => {
    const config = loadConfig({
      CAPTCHA_VERIFY_URL_TURNSTILE: 'http://127.0.0.1:8123/turnstile',
      CAPTCHA_VERIFY_URL_HCAPTCHA: ' https://verify.example.com/h ',
      CAPTCHA_VERIFY_URL_RECAPTCHA: '',
    });
    expect(config.captcha.verifyUrls).toEqual({
      turnstile: 'http://127.0.0.1:8123/turnstile',
      hcaptcha: 'https://verify.example.com/h',
      recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
    });
  });

  it.each([
    ['CAPTCHA_VERIFY_URL_TURNSTILE', 'challenges.cloudflare.com/turnstile/v0/siteverify'],
    ['CAPTCHA_VERIFY_URL_HCAPTCHA', 'ftp://api.hcaptcha.com/siteverify'],
    ['CAPTCHA_VERIFY_URL_RECAPTCHA', 'not a url'],
  ])('refuses %s=%s with an error naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`^${name} must be an http:// or https:// URL`),
    );
  });
});

describe('URLs in the environment with control characters', () => {
  it.each(['\r', '\n', '\t', '\u0000', '\u0085'])(
    'refuses %j inside a verify URL, naming the variable',
    (c) => {
      const value = `https://verify.example.com/a${c}b`;
      expect(() => loadConfig({ CAPTCHA_VERIFY_URL_HCAPTCHA: value })).toThrow(
        /^CAPTCHA_VERIFY_URL_HCAPTCHA must not contain control characters/,
      );
    },
  );
});

describe('RATE_LIMIT_FORM_POSTS_PER_HOUR', () => {
  it('defaults to 300 posts an hour per form and takes a whole number', () => {
    expect(loadConfig({}).rateLimit.formPostsPerHour).toBe(300);
    expect(loadConfig({ RATE_LIMIT_FORM_POSTS_PER_HOUR: '3' }).rateLimit.formPostsPerHour).toBe(3);
    expect(() => loadConfig({ RATE_LIMIT_FORM_POSTS_PER_HOUR: '0' })).toThrow(
      /RATE_LIMIT_FORM_POSTS_PER_HOUR/,
    );
    expect(() => loadConfig({ RATE_LIMIT_FORM_POSTS_PER_HOUR: 'many' })).toThrow(ConfigError);
  });
});

describe('TRUST_PROXY', () => {
  const trust = (value: string | undefined) => loadConfig({ TRUST_PROXY: value }).trustProxy;

  it.each([undefined, '', '0', 'false', 'FALSE', 'no', 'off', ' 0 '])('is off for %j', (value) => {
    expect(trust(value)).toBe(false);
  });

  it('takes a whole number as the number of proxies in front of the server: 1 is one hop, not "every hop"', () => {
    expect(trust('1')).toBe(1);
    expect(trust(' 2 ')).toBe(2);
    expect(trust('100')).toBe(100);
    expect(() => trust('101')).toThrow(ConfigError);
    expect(() => trust('101')).toThrow(/TRUST_PROXY must be a number of proxies from 1 to 100/);
  });

  it.each(['true', 'TRUE', 'yes', 'on', 'all'])(
    'refuses %s, which used to believe every hop, and says what to set instead',
    (value) => {
      expect(() => trust(value)).toThrow(ConfigError);
      expect(() => trust(value)).toThrow(/would believe every hop of X-Forwarded-For/);
      expect(() => trust(value)).toThrow(/TRUST_PROXY=1 for one nginx.*TRUST_PROXY=127\.0\.0\.1/);
    },
  );

  it('takes a comma-separated list of proxy addresses and CIDR ranges, IPv4 and IPv6', () => {
    expect(trust('127.0.0.1')).toEqual(['127.0.0.1']);
    expect(trust('127.0.0.1, 10.0.0.0/8,::1,fd00::/8 ,192.168.1.0/24,loopback')).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      '192.168.1.0/24',
      'loopback',
    ]);
    expect(trust('2001:db8::/128')).toEqual(['2001:db8::/128']);
  });

  it.each(['0.0.0.0/0', '127.0.0.1,::/0'])('refuses a range of every address (%s)', (value) => {
    expect(() => trust(value)).toThrow(ConfigError);
    expect(() => trust(value)).toThrow(/matches every address/);
  });

  it.each([
    ['10.0.0.0/33', '"10.0.0.0/33"'],
    ['::1/129', '"::1/129"'],
    ['127.0.0.1,10.0.0.300', '"10.0.0.300"'],
    ['10.0.0.0/8/8', '"10.0.0.0/8/8"'],
    ['10.0.0.0/', '"10.0.0.0/"'],
    ['10.0.0.0/255.0.0.0', '"10.0.0.0/255.0.0.0"'],
    ['proxy.internal', '"proxy.internal"'],
    ['1.5', '"1.5"'],
    ['127.0.0.1,,::1', 'an empty entry'],
  ])('refuses %s, naming the bad entry', (value, named) => {
    expect(() => trust(value)).toThrow(ConfigError);
    expect(() => trust(value)).toThrow(`TRUST_PROXY: ${named} is not an IP address or CIDR range`);
  });
});

describe('attachments: ATTACHMENT_STORAGE, S3_*, ATTACHMENT_MAX_BYTES, ATTACHMENTS_MAX_TOTAL_BYTES', () => {
  it('default to files under DATA_DIR/attachments, 10 MiB a file, 25 MiB a post, 10 files a post, 50 a lead', () => {
    const config = loadConfig({ DATA_DIR: '/srv/lead-intake' });
    expect(config.attachments).toEqual({
      storage: { kind: 'disk', dir: '/srv/lead-intake/attachments' },
      maxFileBytes: 10 * 1024 * 1024,
      maxTotalBytes: 25 * 1024 * 1024,
      maxFilesPerPost: 10,
      maxFilesPerLead: 50,
    });
  });

  it('take an S3-compatible bucket with its endpoint, region, keys, path style and checksum setting', () => {
    const config = loadConfig({
      ATTACHMENT_STORAGE: 's3',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_REGION: 'eu-west-1',
      S3_BUCKET: 'leads',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: '1',
      S3_CHECKSUMS: 'when_required',
      ATTACHMENT_MAX_BYTES: '2048',
      ATTACHMENTS_MAX_TOTAL_BYTES: '4096',
    });
    expect(config.attachments).toMatchObject({
      storage: {
        kind: 's3',
        endpoint: 'http://127.0.0.1:9000/',
        region: 'eu-west-1',
        bucket: 'leads',
        credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
        forcePathStyle: true,
        checksums: 'when_required',
      },
      maxFileBytes: 2048,
      maxTotalBytes: 4096,
    });
    const plain = loadConfig({ ATTACHMENT_STORAGE: 's3', S3_BUCKET: 'leads' }).attachments.storage;
    expect(plain).toMatchObject({ endpoint: undefined, credentials: undefined, checksums: undefined });
  });

  it.each([
    [{ ATTACHMENT_STORAGE: 'ftp' }, /ATTACHMENT_STORAGE/],
    [{ ATTACHMENT_STORAGE: 's3' }, /S3_BUCKET/],
    [{ ATTACHMENT_STORAGE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'minio:9000' }, /S3_ENDPOINT/],
    [{ ATTACHMENT_STORAGE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'id' }, /S3_SECRET_ACCESS_KEY/],
    [{ ATTACHMENT_STORAGE: 's3', S3_BUCKET: 'b', S3_FORCE_PATH_STYLE: 'maybe' }, /S3_FORCE_PATH_STYLE/],
    [{ ATTACHMENT_STORAGE: 's3', S3_BUCKET: 'b', S3_CHECKSUMS: 'never' }, /S3_CHECKSUMS/],
    [{ ATTACHMENT_MAX_BYTES: '10MB' }, /ATTACHMENT_MAX_BYTES/],
    [{ ATTACHMENTS_MAX_TOTAL_BYTES: '0' }, /ATTACHMENTS_MAX_TOTAL_BYTES/],
    [{ ATTACHMENT_MAX_BYTES: '20000', ATTACHMENTS_MAX_TOTAL_BYTES: '10000' }, /ATTACHMENTS_MAX_TOTAL_BYTES/],
  ])('refuse %o at startup, naming the setting', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});

describe('backups: BACKUP_INTERVAL_MINUTES, BACKUP_KEEP, BACKUP_DIR', () => {
  it('default to a daily backup, seven kept, in DATA_DIR/backups', () => {
    const config = loadConfig({ DATA_DIR: '/srv/leads' });
    expect(config.backups).toEqual({ intervalMinutes: 1440, keep: 7, dir: '/srv/leads/backups' });
    const set = loadConfig({ BACKUP_INTERVAL_MINUTES: '0', BACKUP_KEEP: '30', BACKUP_DIR: '/mnt/backup' });
    expect(set.backups).toEqual({ intervalMinutes: 0, keep: 30, dir: '/mnt/backup' });
  });

  it.each([
    [{ BACKUP_INTERVAL_MINUTES: 'daily' }, /BACKUP_INTERVAL_MINUTES must be a whole number/],
    [{ BACKUP_INTERVAL_MINUTES: '-5' }, /BACKUP_INTERVAL_MINUTES/],
    [{ BACKUP_INTERVAL_MINUTES: '1000000' }, /BACKUP_INTERVAL_MINUTES must be between 0 and 525600/],
    [{ BACKUP_KEEP: '0' }, /BACKUP_KEEP must be between 1 and 10000/],
    [{ BACKUP_KEEP: '7.5' }, /BACKUP_KEEP/],
  ])('refuse %o at startup, naming the setting', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});

describe('SEARCH_BUDGET_MS', () => {
  it('defaults to 2 s on both databases and takes whole milliseconds from 50 to 60,000', () => {
    expect(loadConfig({}).database.searchBudgetMs).toBe(2000);
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/x' }).database.searchBudgetMs).toBe(2000);
    expect(loadConfig({ SEARCH_BUDGET_MS: '500' }).database.searchBudgetMs).toBe(500);
    for (const value of ['10', '1.5', 'fast', '600000']) {
      expect(() => loadConfig({ SEARCH_BUDGET_MS: value })).toThrow(/SEARCH_BUDGET_MS/);
    }
  });
});

describe('SQLITE_WRITE_THREAD', () => {
  const sqlite = (env: Record<string, string>, cores: number) => {
    const { database } = loadConfig(env, cores);
    return database.dialect === 'sqlite' ? database.writeThread : 'postgres';
  };

  it('defaults to auto: the thread where the process may use two cores or more, the event loop on one', () => {
    expect(sqlite({}, 2)).toBe(true);
    expect(sqlite({}, 16)).toBe(true);
    expect(sqlite({}, 1)).toBe(false);
    expect(sqlite({ SQLITE_WRITE_THREAD: 'Auto' }, 1)).toBe(false);
    expect(sqlite({ SQLITE_WRITE_THREAD: 'auto' }, 2)).toBe(true);
  });

  it('takes on or off whatever the cores, and means nothing on PostgreSQL', () => {
    expect(sqlite({ SQLITE_WRITE_THREAD: 'on' }, 1)).toBe(true);
    expect(sqlite({ SQLITE_WRITE_THREAD: 'ON' }, 4)).toBe(true);
    expect(sqlite({ SQLITE_WRITE_THREAD: 'off' }, 4)).toBe(false);
    expect(sqlite({ DATABASE_URL: 'postgres://x@127.0.0.1/db', SQLITE_WRITE_THREAD: 'off' }, 4)).toBe(
      'postgres',
    );
  });

  it('refuses anything else with an error naming the setting', () => {
    expect(() => loadConfig({ SQLITE_WRITE_THREAD: 'yes' })).toThrow(
      /SQLITE_WRITE_THREAD must be auto, on or off/,
    );
  });
});
