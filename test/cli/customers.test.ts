// lead-intake customers export, run as the real binary against the database and files an in-process service
// wrote: the JSON document on stdout, or the ZIP with --to; by id or by email; recorded and logged with ids only.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import { safeFileName } from '../../src/personal-data/zip.js';
import { loadConfig } from '../../src/platform/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { apiClient } from '../api.js';
import { dialects, dropSchemaNamed, formRateLimit, type TestDialect, testSchemaName } from '../helpers.js';
import { type PersonalDataFixture, personalDataFixture, unzip } from '../personal-data-fixture.js';
import { baseEnv, type Env, root, run } from './run.js';

beforeAll(() => {
  if (!existsSync(path.join(root, 'dist', 'cli', 'customers.js'))) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }
}, 120_000);

describe.each(dialects())('lead-intake customers export on %s', (dialect: TestDialect) => {
  let dataDir: string;
  let env: Env;
  let app: App;
  let brandId: string;
  let fullKey: string;
  let fx: PersonalDataFixture;
  const schema = testSchemaName();

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'lead-intake-cli-export-'));
    env = baseEnv(dataDir);
    if (dialect === 'postgres') {
      env.DATABASE_URL = process.env.TEST_DATABASE_URL!;
      env.DATABASE_SCHEMA = schema;
    }
    const config = { ...loadConfig({ ...env, KEY_CACHE_TTL_MS: '0' }), logLevel: 'silent' };
    app = await buildApp({ ...config, rateLimit: formRateLimit() }, { logger: false, defaultMetrics: false });
    await app.ready();
    const database = app.deps.database;
    brandId = (await createBrand(database, { language: 'en', name: 'Acme Plumbing', country: 'NL' })).id;
    const other = await createBrand(database, { language: 'en', name: 'Other Builders', country: 'NL' });
    const full = await createApiKey(database, { brandId, name: 'site', scopes: ['full'] });
    fullKey = full.key;
    const otherKey = (await createApiKey(database, { brandId: other.id, name: 'other', scopes: ['full'] }))
      .key;
    fx = await personalDataFixture(app, brandId, { full: full.key, other: otherKey }, full.id);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    if (dialect === 'postgres') {
      const database = openDatabase({ dialect: 'postgres', url: env.DATABASE_URL!, schema, poolMax: 2 });
      await dropSchemaNamed(database.db, schema);
      await database.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const apiExport = () => apiClient(app, fullKey).read(`/v1/customers/${fx.customerId}/export`);
  /** The document without what differs between two exports: their time and the exports in the activity. */
  const comparable = (doc: Record<string, unknown>) => ({
    ...doc,
    exportedAt: 'x',
    activity: (doc.activity as { kind: string }[]).filter((a) => a.kind !== 'exported'),
  });
  const cliRows = () =>
    app.deps.database.db
      .selectFrom('customer_activity')
      .selectAll()
      .where('customer_id', '=', fx.customerId)
      .where('actor_type', '=', 'cli')
      .execute();

  it('--id prints the API’s document; one log line on stderr with ids only; recorded as the command line', async () => {
    const result = await run(['customers', 'export', '--id', fx.customerId, '--brand', brandId], env);
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(comparable(doc)).toEqual(comparable(await apiExport()));
    expect(doc.leads.map((l: { id: string }) => l.id)).toEqual([fx.apiLeadId, fx.formLeadId, fx.spamLeadId]);
    for (const foreign of fx.foreign) expect(result.stdout).not.toContain(foreign);

    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 30,
      brandId,
      customerId: fx.customerId,
      actor: { type: 'cli', id: null },
      kind: 'exported',
      msg: 'personal data exported',
    });
    for (const personal of [fx.email, 'Anna', 'Keizersgracht']) expect(result.stderr).not.toContain(personal);
    expect(await cliRows()).toMatchObject([
      { kind: 'exported', actor_id: null, actor_name: 'lead-intake customers export', detail: '{}' },
    ]);
  });

  it('--email finds the customer in any case; --to writes the ZIP the dashboard gives', async () => {
    const file = path.join(dataDir, 'anna.zip');
    const result = await run(
      ['customers', 'export', '--email', fx.email.toUpperCase(), '--brand', brandId, '--to', file],
      { ...env, LOG_LEVEL: 'warn' },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(
      new RegExp(`^Wrote the personal data of ${fx.customerId} \\(3 lead\\(s\\), 3 file\\(s\\)\\) to `),
    );
    expect(existsSync(`${file}.partial`)).toBe(false);
    const entries = await unzip(readFileSync(file));
    const doc = JSON.parse(entries.get('personal-data.json')!.toString('utf8'));
    expect(comparable(doc)).toEqual(comparable(await apiExport()));
    for (const lead of doc.leads as { id: string; attachments: { id: string; fileName: string }[] }[]) {
      for (const a of lead.attachments) {
        const bytes = entries.get(`attachments/${lead.id}/${a.id}-${safeFileName(a.fileName)}`);
        expect(bytes?.equals(fx.uploads.get(a.id)!)).toBe(true);
      }
    }
    expect(entries.get('README.txt')!.toString('utf8')).toContain('Personal data held by Acme Plumbing');
    expect(await cliRows()).toHaveLength(2);
  });

  it('refuses, exit 1 and nothing recorded: no customer named, both named, unknown, another brand’s, no --brand', async () => {
    const cases = await Promise.all([
      run(['customers', 'export', '--brand', brandId], env),
      run(['customers', 'export', '--id', fx.customerId, '--email', fx.email, '--brand', brandId], env),
      run(['customers', 'export', '--id', 'cus_cgayhqrssy2sbx1yhb4hcqc5t4', '--brand', brandId], env),
      run(['customers', 'export', '--id', fx.otherBrandCustomerId, '--brand', brandId], env),
      run(['customers', 'export', '--email', 'nobody@example.com', '--brand', brandId], env),
      run(['customers', 'export', '--id', fx.customerId], env),
    ]);
    for (const result of cases) {
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^Error: /);
    }
    expect(cases[0]!.stderr).toContain('--id cus_... or --email EMAIL');
    expect(cases[2]!.stderr).toContain('No customer with id cus_cgayhqrssy2sbx1yhb4hcqc5t4');
    expect(cases[5]!.stderr).toContain('There are 2 brands');
    expect(await cliRows()).toHaveLength(2);
  });

  it('customers erase --email erases the person (exit 0, --json), a second time changes nothing', async () => {
    const before = await apiClient(app, fullKey).read(`/v1/customers/${fx.customerId}`);
    expect(before.erased).toBeUndefined();
    const unknown = await run(
      ['customers', 'erase', '--email', 'nobody@example.com', '--brand', brandId],
      env,
    );
    expect(unknown.code).toBe(1);
    const result = await run(
      [
        'customers',
        'erase',
        '--email',
        fx.email,
        '--brand',
        brandId,
        '--reason',
        'Verzoek per brief',
        '--json',
      ],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const erased = JSON.parse(result.stdout);
    expect(erased).toEqual({ id: fx.customerId, erasedAt: expect.any(String), leads: 3, attachments: 3 });
    for (const personal of [fx.email, 'Anna', 'Keizersgracht']) expect(result.stderr).not.toContain(personal);
    const after = await apiClient(app, fullKey).read(`/v1/customers/${fx.customerId}`);
    expect(after).toMatchObject({ erased: true, email: null, name: '' });
    const again = await run(['customers', 'erase', '--id', fx.customerId, '--brand', brandId], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('nothing changed');
    expect(await cliRows()).toMatchObject([
      { kind: 'exported' },
      { kind: 'exported' },
      { kind: 'erased', actor_name: 'lead-intake customers erase', detail: '{"reason":"Verzoek per brief"}' },
    ]);
  });

  it('customers --help shows the export and erase commands', async () => {
    const help = await run(['customers', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      'lead-intake customers export (--id cus_... | --email EMAIL) [--brand brd_...] [--to FILE]',
    );
    expect(help.stdout).toContain('lead-intake customers erase (--id cus_... | --email EMAIL)');
    expect((await run(['--help'], env)).stdout).toContain('customers export|erase');
  });
});
