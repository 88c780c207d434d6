// The lead-intake command, run as its real binary (node bin/lead-intake.js) against real databases.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, findSession } from '../../src/accounts/sessions.js';
import { verifyPassword } from '../../src/accounts/users.js';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { apiClient } from '../api.js';
import { dialects, dropSchemaNamed, type TestDialect, testSchemaName } from '../helpers.js';
import { baseEnv, bin, type Env, json, root, run } from './run.js';

beforeAll(() => {
  if (!existsSync(path.join(root, 'dist', 'cli', 'index.js'))) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }
}, 120_000);

describe('lead-intake help and usage errors', () => {
  let dataDir: string;
  let env: Env;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'lead-intake-cli-'));
    env = baseEnv(dataDir);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const helpCases: [string[], RegExp][] = [
    [
      ['--help'],
      /Usage: lead-intake <command>[\s\S]*serve[\s\S]*migrate[\s\S]*brands[\s\S]*keys[\s\S]*users/,
    ],
    [['help', 'keys'], /lead-intake keys create --name NAME --scopes/],
    [['serve', '--help'], /Usage: lead-intake serve/],
    [['migrate', '--help'], /Usage: lead-intake migrate/],
    [
      ['brands', '--help'],
      /lead-intake brands create --name NAME \[--country CC\] \[--time-zone ZONE\] \[--language nl\|en\] \[--json\]/,
    ],
    [['brands', 'create', '--help'], /lead-intake brands create/],
    [['keys', '--help'], /lead-intake keys revoke KEY_ID/],
    [['keys', 'create', '--help'], /--reads-per-minute N\] \[--writes-per-minute N\]/],
    [['keys', 'list', '-h'], /lead-intake keys list/],
    [['keys', 'revoke', '--help'], /lead-intake keys revoke KEY_ID/],
    [['users', '--help'], /lead-intake users create --email EMAIL \[--brand brd_\.\.\.\]/],
    [['users', 'create', '--help'], /standard input/],
    [['users', 'reset-password', '--help'], /lead-intake users reset-password --email EMAIL/],
  ];

  it('--help on every command prints its usage to stdout and exits 0, touching no database', async () => {
    const results = await Promise.all(helpCases.map(([args]) => run(args, env)));
    results.forEach((result, i) => {
      const [args, expected] = helpCases[i]!;
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(result.stdout).toMatch(expected);
    });
    expect(existsSync(path.join(dataDir, 'lead-intake.sqlite'))).toBe(false);
  });

  it('no command, an unknown command, sub-command or flag: exit 1 and a pointer to the right usage on stderr', async () => {
    const [none, unknown, unknownSub, unknownFlag, missingValue, serveFlag] = await Promise.all([
      run([], env),
      run(['lauch'], env),
      run(['keys', 'delete', 'key_x'], env),
      run(['keys', 'create', '--name', 'Web', '--scopes', 'full', '--colour', 'red'], env),
      run(['brands', 'create', '--name'], env),
      run(['serve', '--port', '8080'], { ...env, PORT: '0' }),
    ]);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/Usage: lead-intake <command>/);

    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^Error: Unknown command "lauch"/);
    expect(unknown.stderr).toMatch(/keys create\|list\|revoke/);

    expect(unknownSub.code).toBe(1);
    expect(unknownSub.stderr).toMatch(/^Error: Unknown command "keys delete"/);
    expect(unknownSub.stderr).toMatch(/lead-intake keys revoke KEY_ID/);

    expect(unknownFlag.code).toBe(1);
    expect(unknownFlag.stdout).toBe('');
    expect(unknownFlag.stderr).toMatch(/Unknown option '--colour'/);
    expect(unknownFlag.stderr).toMatch(/lead-intake keys create --help/);

    expect(missingValue.code).toBe(1);
    expect(missingValue.stderr).toMatch(/--name/);

    expect(serveFlag.code).toBe(1);
    expect(serveFlag.stdout).toBe('');
    expect(serveFlag.stderr).toMatch(/Unknown option '--port'[\s\S]*lead-intake serve --help/);
    expect(existsSync(path.join(dataDir, 'lead-intake.sqlite'))).toBe(false);
  });

  it('--version prints the package version', async () => {
    const result = await run(['--version'], env);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe.each(dialects())('lead-intake on %s', (dialect: TestDialect) => {
  let dataDir: string;
  let env: Env;
  let app: App | undefined;
  const schema = testSchemaName();
  let brandId = '';
  let secondBrandId = '';
  let key = { id: '', key: '' };
  const password = 'correct horse battery';

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'lead-intake-cli-'));
    env = baseEnv(dataDir);
    if (dialect === 'postgres') {
      env.DATABASE_URL = process.env.TEST_DATABASE_URL!;
      env.DATABASE_SCHEMA = schema;
    }
  });

  afterAll(async () => {
    await app?.close();
    if (dialect === 'postgres') {
      const database = openDatabase({ dialect: 'postgres', url: env.DATABASE_URL!, schema, poolMax: 2 });
      await dropSchemaNamed(database.db, schema);
      await database.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The service in-process on the same database the binary writes to, with no key cache. */
  async function inProcessApp(): Promise<App> {
    if (!app) {
      const config = { ...loadConfig({ ...env, KEY_CACHE_TTL_MS: '0' }), logLevel: 'silent' };
      app = await buildApp(config, { logger: false, defaultMetrics: false });
    }
    return app;
  }

  it('migrate applies the migrations once, then says the database is up to date', async () => {
    const first = await run(['migrate'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Applied \d+ migration\(s\): \d+_initial/);
    const second = await run(['migrate'], env);
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe('The database is up to date.');
  });

  it('keys create without any brand fails with a clear message and creates nothing', async () => {
    const result = await run(['keys', 'create', '--name', 'Website form', '--scopes', 'leads:write'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/There is no brand yet\. Create one first: lead-intake brands create/);
    expect(json(await run(['keys', 'list', '--json'], env))).toEqual([]);
  });

  it('brands create --json prints one object with id, name and the upper-cased default country', async () => {
    const brand = json(
      await run(['brands', 'create', '--name', '  Acme Plumbing ', '--country', 'be', '--json'], env),
    );
    // A brand outside the Netherlands shows times in UTC until someone chooses its zone.
    expect(brand).toMatchObject({ name: 'Acme Plumbing', defaultCountry: 'BE', timeZone: 'UTC' });
    expect(brand.id).toMatch(/^brd_[0-9a-z]{26}$/);
    brandId = brand.id;

    const bad = await run(['brands', 'create', '--name', 'Nowhere Ltd', '--country', 'XX'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^Error: --country must be an ISO 3166-1 alpha-2 country code/);
    expect(bad.stdout).toBe('');

    const badZone = await run(['brands', 'create', '--name', 'Nowhere Ltd', '--time-zone', 'Mars/Base'], env);
    expect(badZone.code).toBe(1);
    expect(badZone.stderr).toMatch(/^Error: --time-zone must be an IANA time zone name/);
    expect(json(await run(['brands', 'list', '--json'], env))).toHaveLength(1);
  });

  it('keys create --json prints the key once; it creates and reads leads of the only brand', async () => {
    const created = json(
      await run(
        ['keys', 'create', '--name', 'Website form', '--scopes', 'leads:write,leads:read', '--json'],
        env,
      ),
    );
    expect(created).toMatchObject({
      brandId,
      name: 'Website form',
      scopes: ['leads:read', 'leads:write'],
      readsPerMinute: null,
      writesPerMinute: null,
    });
    expect(created.id).toMatch(/^key_[0-9a-z]{26}$/);
    expect(created.key).toMatch(/^lik_[A-Za-z0-9_-]{43}$/);
    key = { id: created.id, key: created.key };

    const lead = {
      street: 'Rue Neuve',
      streetNumber: '12',
      postalCode: '1000',
      city: 'Brussels',
      customerName: 'Marie Dubois',
      email: 'marie.dubois@example.com',
      phone: '+32 470 12 34 56',
      title: 'Replace kitchen tap',
      priority: 'high',
    };
    const api = apiClient(await inProcessApp(), key.key);
    const posted = await api.post('/v1/leads', lead);
    expect(posted.statusCode).toBe(201);
    const id = posted.json().id;
    expect(posted.json()).toMatchObject({ brandId, status: 'request', source: 'website', priority: 'high' });

    const list = await api.get('/v1/leads');
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((item: { id: string }) => item.id)).toEqual([id]);

    const one = await api.get(`/v1/leads/${id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ sourceKeyName: 'Website form', address: { country: 'BE' } });
  });

  it('keys create refuses bad scopes and limits, naming the flag', async () => {
    const [scopes, limit, name] = await Promise.all([
      run(['keys', 'create', '--name', 'Sync', '--scopes', 'leads:read,leads:delete'], env),
      run(['keys', 'create', '--name', 'Sync', '--scopes', 'full', '--reads-per-minute', '0'], env),
      run(['keys', 'create', '--scopes', 'full'], env),
    ]);
    expect(scopes.code).toBe(1);
    expect(scopes.stderr).toMatch(/^Error: --scopes: unknown scope leads:delete; known scopes: leads:read/);
    expect(limit.code).toBe(1);
    expect(limit.stderr).toMatch(/^Error: --reads-per-minute must be a whole number/);
    expect(name.code).toBe(1);
    expect(name.stderr).toMatch(/^Error: --name is required/);
    const keys = json(await run(['keys', 'list', '--json'], env));
    expect(keys.map((k: { id: string }) => k.id)).toEqual([key.id]);
  });

  it('keys create (text) prints the key with a warning, and stores per-key rate limits', async () => {
    const result = await run(
      [
        'keys',
        'create',
        '--name',
        'CRM sync',
        '--scopes',
        'full',
        '--reads-per-minute',
        '300',
        '--writes-per-minute',
        '30',
      ],
      env,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/shown only this once/);
    const printed = result.stdout.match(/lik_[A-Za-z0-9_-]{43}/g);
    expect(printed).toHaveLength(1);
    const listed = (await apiClient(await inProcessApp(), printed![0]!).get('/v1/leads')).statusCode;
    expect(listed).toBe(200);
  });

  it('keys list never shows a secret or a hash', async () => {
    const [asJson, asText] = await Promise.all([
      run(['keys', 'list', '--json'], env),
      run(['keys', 'list'], env),
    ]);
    const keys = json(asJson);
    expect(keys).toHaveLength(2);
    const crm = keys.find((k: { name: string }) => k.name === 'CRM sync');
    expect(crm).toMatchObject({
      scopes: ['full'],
      readsPerMinute: 300,
      writesPerMinute: 30,
      revokedAt: null,
      // Who created it: the command line, no dashboard user.
      createdBy: 'cli',
      createdByUserId: null,
    });
    for (const listed of keys) {
      expect(Object.keys(listed)).not.toContain('key');
      expect(Object.keys(listed).filter((name) => /hash/i.test(name))).toEqual([]);
      expect(listed.displayPrefix).toHaveLength(8);
    }
    for (const output of [asJson.stdout, asText.stdout]) {
      expect(output).not.toContain(key.key);
      expect(output).not.toMatch(/lik_[A-Za-z0-9_-]{43}/);
      expect(output).not.toMatch(/[0-9a-f]{64}/);
    }
    expect(asText.code).toBe(0);
    expect(asText.stdout).toContain(key.id);
    expect(asText.stdout).toContain(`lik_${key.key.slice(4, 12)}…`);
  });

  it('keys revoke makes the key a 401; revoking again or an unknown id says so', async () => {
    const revoked = await run(['keys', 'revoke', key.id], env);
    expect(revoked.stderr).toBe('');
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^Revoked API key ${key.id} "Website form"`));
    const refused = await apiClient(await inProcessApp(), key.key).get('/v1/leads');
    expect(refused.statusCode).toBe(401);
    expect(refused.json().detail).toMatch(/revoked/);

    const [again, unknown] = await Promise.all([
      run(['keys', 'revoke', key.id], env),
      run(['keys', 'revoke', 'key_00000000000000000000000000'], env),
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/was already revoked/);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Error: No API key with id key_00000000000000000000000000/);
  });

  it('users create reads the password from stdin and refuses a short one, a missing one and a duplicate', async () => {
    const [short, none, badEmail] = await Promise.all([
      run(['users', 'create', '--email', 'owner@acme.example'], env, 'short\n'),
      run(['users', 'create', '--email', 'owner@acme.example'], env, ''),
      run(['users', 'create', '--email', 'not-an-email'], env, `${password}\n`),
    ]);
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/^Error: The password must be at least 10 characters/);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^Error: No password given/);
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toMatch(/^Error: --email must be a valid email address/);

    const user = json(
      await run(
        ['users', 'create', '--email', 'Owner@Acme.example', '--json'],
        env,
        `${password}\nignored\n`,
      ),
    );
    expect(user).toMatchObject({ brandId, email: 'Owner@Acme.example', role: 'owner' });
    expect(user.id).toMatch(/^usr_[0-9a-z]{26}$/);
    const row = await (await inProcessApp()).deps.database.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).not.toContain(password);
    expect(await verifyPassword(password, row.password_hash)).toBe(true);

    const duplicate = await run(['users', 'create', '--email', 'owner@acme.example'], env, `${password}\n`);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
  });

  it('users create refuses a common or guessable password: exit 1, the reason on stderr, no user', async () => {
    const [common, brandName] = await Promise.all([
      run(['users', 'create', '--email', 'weak@acme.example'], env, 'password123456\n'),
      // Built from the brand's name, Acme Plumbing.
      run(['users', 'create', '--email', 'brand@acme.example'], env, 'acme-plumbing-2026\n'),
    ]);
    expect(common.code).toBe(1);
    expect(common.stdout).toBe('');
    expect(common.stderr.trim()).toBe(
      'Error: The password is too easy to guess. This is similar to a commonly used password. Add more words that are less common.',
    );
    expect(brandName.code).toBe(1);
    expect(brandName.stdout).toBe('');
    expect(brandName.stderr.trim()).toBe(
      'Error: The password is too easy to guess. It contains your email address or your company name. Add more words that are less common.',
    );
    const rows = await (await inProcessApp()).deps.database.db
      .selectFrom('users')
      .select('email')
      .where('email', 'in', ['weak@acme.example', 'brand@acme.example'])
      .execute();
    expect(rows).toEqual([]);
  });

  it('users reset-password sets a new password from stdin, signs the user out everywhere and clears their failed sign-ins', async () => {
    const database = (await inProcessApp()).deps.database;
    const user = await database.db
      .selectFrom('users')
      .select(['id', 'password_hash'])
      .where('email_normalized', '=', 'owner@acme.example')
      .executeTakeFirstOrThrow();
    const phone = await createSession(database, user.id);
    const laptop = await createSession(database, user.id);
    await database.db
      .insertInto('sign_in_failures')
      .values([
        { subject: 'pair:10.1.2.3|owner@acme.example', at: Date.now() },
        { subject: 'address:10.1.2.3', at: Date.now() },
        { subject: 'pair:10.1.2.3|other@acme.example', at: Date.now() },
      ])
      .execute();

    const [weak, unknown, missing] = await Promise.all([
      run(['users', 'reset-password', '--email', 'owner@acme.example'], env, 'password123456\n'),
      run(['users', 'reset-password', '--email', 'nobody@acme.example'], env, 'lantern harbour quietly\n'),
      run(['users', 'reset-password'], env),
    ]);
    expect(weak.code).toBe(1);
    expect(weak.stdout).toBe('');
    expect(weak.stderr.trim()).toBe(
      'Error: The password is too easy to guess. This is similar to a commonly used password. Add more words that are less common.',
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('Error: No user with email nobody@acme.example; nothing was changed.');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: --email is required/);
    const unchanged = await database.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(unchanged.password_hash).toBe(user.password_hash);
    expect(await findSession(database, phone.token)).not.toBeNull();

    const newPassword = 'lantern harbour quietly';
    const done = await run(
      ['users', 'reset-password', '--email', 'OWNER@acme.example'],
      env,
      `${newPassword}\n`,
    );
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout.trim()).toBe(
      `Password changed for Owner@Acme.example (${user.id}); signed out of 2 sessions.`,
    );
    expect(done.stdout).not.toContain(newPassword);
    const row = await database.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(await verifyPassword(newPassword, row.password_hash)).toBe(true);
    expect(await verifyPassword(password, row.password_hash)).toBe(false);
    expect(await findSession(database, phone.token)).toBeNull();
    expect(await findSession(database, laptop.token)).toBeNull();
    const failures = await database.db.selectFrom('sign_in_failures').select('subject').execute();
    expect(failures.map((f) => f.subject).sort()).toEqual([
      'address:10.1.2.3',
      'pair:10.1.2.3|other@acme.example',
    ]);
  });

  it('users create --name stores the display name (trimmed); too long a name is refused', async () => {
    const named = json(
      await run(
        [
          'users',
          'create',
          '--email',
          'ann@acme.example',
          '--name',
          '  Ann  de Vries ',
          '--role',
          'member',
          '--json',
        ],
        env,
        `${password}\n`,
      ),
    );
    expect(named).toMatchObject({ email: 'ann@acme.example', name: 'Ann de Vries', role: 'member' });
    const long = await run(
      ['users', 'create', '--email', 'long@acme.example', '--name', 'x'.repeat(101)],
      env,
      `${password}\n`,
    );
    expect(long.code).toBe(1);
    expect(long.stderr).toMatch(/^Error: --name must be at most 100 characters/);
  });

  it('with two brands, keys create and users create require --brand', async () => {
    secondBrandId = json(await run(['brands', 'create', '--name', 'Beta Roofing', '--json'], env)).id;
    const [keyWithout, userWithout, unknownBrand] = await Promise.all([
      run(['keys', 'create', '--name', 'Form', '--scopes', 'leads:write'], env),
      run(['users', 'create', '--email', 'beta@roofing.example'], env, `${password}\n`),
      run(['keys', 'create', '--name', 'Form', '--scopes', 'leads:write', '--brand', 'brd_nope'], env),
    ]);
    for (const result of [keyWithout, userWithout]) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/There are 2 brands; say which with --brand/);
      expect(result.stderr).toContain(brandId);
      expect(result.stderr).toContain(secondBrandId);
    }
    expect(unknownBrand.code).toBe(1);
    expect(unknownBrand.stderr).toMatch(/^Error: No brand with id brd_nope/);

    const created = json(
      await run(
        ['keys', 'create', '--name', 'Form', '--scopes', 'leads:write', '--brand', secondBrandId, '--json'],
        env,
      ),
    );
    expect(created.brandId).toBe(secondBrandId);
    const onlyBeta = json(await run(['keys', 'list', '--brand', secondBrandId, '--json'], env));
    expect(onlyBeta.map((k: { id: string }) => k.id)).toEqual([created.id]);
  });

  it('serve listens, answers with a CLI-made key, and exits 0 on SIGTERM', async () => {
    const made = json(
      await run(
        ['keys', 'create', '--name', 'Serve check', '--scopes', 'leads:read', '--brand', brandId, '--json'],
        env,
      ),
    );
    const child = spawn(process.execPath, [bin, 'serve'], {
      cwd: root,
      env: { ...env, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const address = await new Promise<string>((resolve, reject) => {
        const lines = createInterface({ input: child.stdout });
        lines.on('line', (line) => {
          const match = /Server listening at (http:\/\/[^\s"]+)/.exec(line);
          if (match) resolve(match[1]!);
        });
        child.on('close', (code) =>
          reject(new Error(`serve exited with ${code} before listening: ${stderr}`)),
        );
      });
      const health = await fetch(`${address}/healthz`);
      expect(health.status).toBe(200);
      const list = await fetch(`${address}/v1/leads`, { headers: { 'x-api-key': made.key } });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
    }
    // server.ts exits 1 when shutdown takes longer than 10 s, so 0 also means "within 10 s".
    expect(await exited).toBe(0);
  });
});
