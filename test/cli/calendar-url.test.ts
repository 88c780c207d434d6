// `lead-intake users calendar-url` (contract "Calendars and visit notices"), run as the real binary: the address of
// a user's feed, the same each time until --rotate, after which the old one answers 404.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { parseCalendar } from '../calendar/ical.js';
import { baseEnv, type Env, json, root, run } from './run.js';

beforeAll(() => {
  if (!existsSync(path.join(root, 'dist', 'cli', 'index.js'))) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }
}, 120_000);

describe('lead-intake users calendar-url', () => {
  let dataDir: string;
  let env: Env;
  let app: App | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'lead-intake-calendar-'));
    env = { ...baseEnv(dataDir), PUBLIC_URL: 'https://leads.acme.example' };
    json(await run(['brands', 'create', '--name', 'Acme', '--country', 'NL', '--json'], env));
    json(
      await run(
        ['users', 'create', '--email', 'fitter@acme.example', '--role', 'member', '--json'],
        env,
        'correct horse battery staple\n',
      ),
    );
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function fetchFeed(url: string) {
    if (!app) {
      app = await buildApp(
        { ...loadConfig(env), logLevel: 'silent' },
        { logger: false, defaultMetrics: false },
      );
      await app.ready();
    }
    return app.inject({ method: 'GET', url: new URL(url).pathname });
  }

  it('prints { "url" }, the same until --rotate; the rotated-out address answers 404', async () => {
    const { url } = json(
      await run(['users', 'calendar-url', '--email', 'fitter@acme.example', '--json'], env),
    );
    expect(url).toMatch(/^https:\/\/leads\.acme\.example\/calendar\/[A-Za-z0-9_-]{43}\.ics$/);
    const plain = await run(['users', 'calendar-url', '--email', 'FITTER@acme.example'], env);
    expect(plain.code).toBe(0);
    expect(plain.stdout.trim()).toBe(url);
    const before = await fetchFeed(url);
    expect(before.statusCode).toBe(200);
    expect(parseCalendar(before.body).events).toEqual([]);

    const rotated = json(
      await run(['users', 'calendar-url', '--email', 'fitter@acme.example', '--rotate', '--json'], env),
    );
    expect(rotated.url).not.toBe(url);
    expect((await fetchFeed(url)).statusCode).toBe(404);
    expect((await fetchFeed(rotated.url)).statusCode).toBe(200);

    const unknown = await run(['users', 'calendar-url', '--email', 'nobody@acme.example'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Error: No user with email nobody@acme\.example/);
  });
});
