// Strapi 5 as a peer of the benchmark (`npm run bench -- --peers strapi`): a minimal Strapi project with a
// `lead` collection type, written and installed on demand into bench/.peers/strapi (git-ignored), started in
// production mode on SQLite, pinned like the service. Never part of npm test. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { RequestSpec } from '../load.js';
import { ROOT, Server } from '../processes.js';

/** The Strapi release measured, pinned exactly (and its plugins with it). */
export const STRAPI_VERSION = '5.54.0';
export const STRAPI_DIR = path.join(ROOT, 'bench/.peers/strapi');

const require = createRequire(import.meta.url);

/**
 * The project's own better-sqlite3: the peer pins the same version, and its compiled binary is copied over,
 * because the package's install script would fetch a prebuilt binary from GitHub (no internet here but the npm
 * registry) or else compile SQLite from source.
 */
function projectBetterSqlite(): { version: string; binary: string } {
  const manifest = require.resolve('better-sqlite3/package.json');
  const { version } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string };
  return { version, binary: path.join(path.dirname(manifest), 'build/Release/better_sqlite3.node') };
}

const js = (lines: string[]) => `'use strict';\n\n${lines.join('\n')}\n`;

/** Every file of the Strapi project, by path inside STRAPI_DIR. */
function projectFiles(betterSqliteVersion: string): Record<string, string> {
  const string = { type: 'string' };
  const schema = {
    kind: 'collectionType',
    collectionName: 'leads',
    info: { singularName: 'lead', pluralName: 'leads', displayName: 'Lead' },
    // Without draft & publish: a create is visible to the list at once, as in the service.
    options: { draftAndPublish: false },
    attributes: {
      title: { type: 'string', required: true, maxLength: 200 },
      description: { type: 'text', maxLength: 5000 },
      status: {
        type: 'enumeration',
        enum: ['request', 'quoted', 'scheduled', 'planned', 'in_progress', 'completed', 'cancelled'],
        default: 'request',
        required: true,
      },
      priority: {
        type: 'enumeration',
        enum: ['low', 'medium', 'high', 'urgent'],
        default: 'medium',
        required: true,
      },
      category: string,
      budgetQuote: string,
      customerName: { type: 'string', required: true },
      email: { type: 'email' },
      phone: string,
      street: string,
      streetNumber: string,
      postalCode: string,
      city: string,
      receivedAt: { type: 'datetime' },
    },
  };
  const factory = (kind: string) =>
    js([
      `const { factories } = require('@strapi/strapi');`,
      '',
      `module.exports = factories.${kind}('api::lead.lead');`,
    ]);
  return {
    'package.json': `${JSON.stringify(
      {
        name: 'lead-intake-bench-strapi',
        version: '0.0.0',
        private: true,
        description:
          "Strapi 5 as a peer for lead-intake's npm run bench (written by bench/peers/strapi.ts; git-ignored)",
        dependencies: {
          '@strapi/plugin-users-permissions': STRAPI_VERSION,
          '@strapi/strapi': STRAPI_VERSION,
          'better-sqlite3': betterSqliteVersion,
          react: '^18.0.0',
          'react-dom': '^18.0.0',
          'react-router-dom': '^6.0.0',
          'styled-components': '^6.0.0',
        },
        engines: { node: '>=20.0.0' },
      },
      null,
      2,
    )}\n`,
    // Strapi's `sqlite` client is knex's better-sqlite3 driver.
    'config/database.js': js([
      'module.exports = ({ env }) => ({',
      '  connection: {',
      "    client: 'sqlite',",
      "    connection: { filename: env('DATABASE_FILENAME', '.tmp/data.db') },",
      '    useNullAsDefault: true,',
      '  },',
      '});',
    ]),
    // Logging at warn like the service in the bench (Strapi's default, http, writes a line per request).
    'config/server.js': js([
      'module.exports = ({ env }) => ({',
      "  host: env('HOST', '127.0.0.1'),",
      "  port: env.int('PORT', 1337),",
      "  app: { keys: env.array('APP_KEYS') },",
      "  logger: { updates: { enabled: false }, startup: { enabled: false }, config: { level: 'warn' } },",
      '});',
    ]),
    // No admin panel: nothing is built, the content API is what is measured.
    'config/admin.js': js([
      'module.exports = ({ env }) => ({',
      "  auth: { secret: env('ADMIN_JWT_SECRET') },",
      "  apiToken: { salt: env('API_TOKEN_SALT') },",
      "  transfer: { token: { salt: env('TRANSFER_TOKEN_SALT') } },",
      "  secrets: { encryptionKey: env('ENCRYPTION_KEY') },",
      '  serveAdminPanel: false,',
      '});',
    ]),
    'config/api.js': js([
      'module.exports = {',
      '  rest: { defaultLimit: 25, maxLimit: 100, withCount: true },',
      '};',
    ]),
    // The middlewares of a new Strapi project, in its order.
    'config/middlewares.js': js([
      'module.exports = [',
      "  'strapi::logger',",
      "  'strapi::errors',",
      "  'strapi::security',",
      "  'strapi::cors',",
      "  'strapi::poweredBy',",
      "  'strapi::query',",
      "  'strapi::body',",
      "  'strapi::session',",
      "  'strapi::favicon',",
      "  'strapi::public',",
      '];',
    ]),
    'config/plugins.js': js([
      'module.exports = ({ env }) => ({',
      "  'users-permissions': { config: { jwtSecret: env('JWT_SECRET') } },",
      '});',
    ]),
    // The public role may create and list leads: the requests carry no token, like a website form's.
    'src/index.js': js([
      "const ACTIONS = ['api::lead.lead.create', 'api::lead.lead.find'];",
      '',
      'module.exports = {',
      '  register() {},',
      '  async bootstrap({ strapi }) {',
      "    const role = await strapi.db.query('plugin::users-permissions.role').findOne({ where: { type: 'public' } });",
      "    const permissions = strapi.db.query('plugin::users-permissions.permission');",
      '    for (const action of ACTIONS) {',
      '      const existing = await permissions.findOne({ where: { action, role: role.id } });',
      '      if (!existing) await permissions.create({ data: { action, role: role.id } });',
      '    }',
      '  },',
      '};',
    ]),
    'src/api/lead/content-types/lead/schema.json': `${JSON.stringify(schema, null, 2)}\n`,
    // The upload plugin refuses to start without its folder.
    'public/uploads/.gitkeep': '',
    'src/api/lead/routes/lead.js': factory('createCoreRouter'),
    'src/api/lead/controllers/lead.js': factory('createCoreController'),
    'src/api/lead/services/lead.js': factory('createCoreService'),
  };
}

const STAMP = '.bench-installed';

/**
 * Writes the project and, when its package.json changed or nothing is installed yet, installs it with npm
 * (once: later runs reuse bench/.peers/strapi). Install scripts are skipped; better-sqlite3's binary is the
 * project's own.
 */
export function ensureStrapi(log: (line: string) => void = console.log): void {
  const betterSqlite = projectBetterSqlite();
  const files = projectFiles(betterSqlite.version);
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(STRAPI_DIR, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (!fs.existsSync(target) || fs.readFileSync(target, 'utf8') !== text) fs.writeFileSync(target, text);
  }
  const want = createHash('sha256').update(files['package.json']!).digest('hex');
  const stamp = path.join(STRAPI_DIR, STAMP);
  const installed = path.join(STRAPI_DIR, 'node_modules/@strapi/strapi/package.json');
  const binary = path.join(STRAPI_DIR, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want && fs.existsSync(installed)) {
    if (fs.existsSync(binary)) return;
  } else {
    log(`  installing Strapi ${STRAPI_VERSION} into ${path.relative(ROOT, STRAPI_DIR)} (once; about 700 MB)`);
    const started = Date.now();
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
      cwd: STRAPI_DIR,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    log(`  installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  if (!fs.existsSync(betterSqlite.binary)) {
    throw new Error(`no better-sqlite3 binary to copy at ${betterSqlite.binary}`);
  }
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  fs.copyFileSync(betterSqlite.binary, binary);
  fs.writeFileSync(stamp, want);
}

/** Strapi in production mode on a fresh SQLite file in `dataDir`, pinned to the servers' core. */
export function startStrapi(dataDir: string, port: number): Promise<Server> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(DATABASE_|PORT$|HOST$|NODE_OPTIONS$|NODE_ENV$)/.test(name)) env[name] = value;
  }
  const secret = () => randomBytes(16).toString('base64');
  return Server.start(
    [path.join(STRAPI_DIR, 'node_modules/@strapi/strapi/bin/strapi.js'), 'start'],
    {
      ...env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      DATABASE_FILENAME: path.join(dataDir, 'strapi.db'),
      APP_KEYS: [secret(), secret()].join(','),
      ADMIN_JWT_SECRET: secret(),
      API_TOKEN_SALT: secret(),
      TRANSFER_TOKEN_SALT: secret(),
      ENCRYPTION_KEY: secret(),
      JWT_SECRET: secret(),
      STRAPI_TELEMETRY_DISABLED: 'true',
    },
    port,
    { cwd: STRAPI_DIR, healthPath: '/_health', startTimeoutMs: 300_000 },
  );
}

/** A lead as Strapi's content API takes it: the bench's form lead in `data`, with its time of receipt. */
function strapiLead(formLead: string): string {
  return JSON.stringify({ data: { ...JSON.parse(formLead), receivedAt: new Date().toISOString() } });
}

/** Creates `count` leads through Strapi's API, one after another. */
export async function seedStrapi(url: string, count: number, formLead: (n: number) => string): Promise<void> {
  for (let n = 0; n < count; n++) {
    const res = await fetch(`${url}/api/leads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: strapiLead(formLead(n)),
    });
    if (res.status !== 201) throw new Error(`seeding Strapi failed: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
}

/** The v5 list of 100: `pagination[pageSize]=100` (encoded), Strapi's default order, with its count. */
export const STRAPI_LIST_PATH = '/api/leads?pagination%5BpageSize%5D=100';

/** Checks that the list answers 100 leads, so a refusal shows here and not as a column of non-2xx. */
export async function checkStrapiList(url: string): Promise<void> {
  const res = await fetch(url + STRAPI_LIST_PATH);
  const page = (await res.json()) as { data?: unknown[] };
  if (res.status !== 200 || page.data?.length !== 100) {
    throw new Error(`Strapi's list: ${res.status}, ${page.data?.length} items`);
  }
}

/** Strapi's create (a new customer's lead on every request) and its list of 100. */
export function strapiSpecs(formLead: (n: number) => string): { create: RequestSpec; list: RequestSpec } {
  let sequence = 0;
  return {
    create: {
      method: 'POST',
      path: '/api/leads',
      headers: { 'content-type': 'application/json' },
      body: strapiLead(formLead(0)),
      setupRequest: (request) => ({ ...request, body: strapiLead(formLead(sequence++)) }),
    },
    list: { method: 'GET', path: STRAPI_LIST_PATH, headers: {} },
  };
}
