import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { createInvite } from '../../src/accounts/invites.js';
import { LastAdminError, removeUser, setUserRole } from '../../src/accounts/users.js';
import { type App, buildApp } from '../../src/app.js';
import { createForm } from '../../src/forms/forms.js';
import { createWebhookEndpoint } from '../../src/webhooks/endpoints.js';
import { checkWebhookUrl } from '../../src/webhooks/url-guard.js';
import { apiClient } from '../api.js';
import { dialects, dropSchema, TEST_WEBHOOKS, type TestDialect, testConfig, validLead } from '../helpers.js';
import { forEachRegisteredRoute } from '../routes.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

const SETTINGS = '/dashboard/settings';

/** The settings routes a member may use; every other route under /dashboard/settings is for admins only. */
const MEMBER_ALLOWED = [
  `GET ${SETTINGS}`,
  `GET ${SETTINGS}/users`,
  `POST ${SETTINGS}/account/new-lead-mail`,
  `POST ${SETTINGS}/account/calendar`,
  `GET ${SETTINGS}/account`,
  `POST ${SETTINGS}/account/password`,
  `POST ${SETTINGS}/account/language`,
  `POST ${SETTINGS}/users/me/name`,
];

/**
 * Every dashboard route the app registers, as "METHOD /path/:param" -> its access level (config.page). Fastify
 * publishes each new instance on its initialization channel, which lets an onRoute hook be added to the app
 * buildApp creates before any route exists (as test/http/security-matrix.test.ts does for the API).
 */
async function registeredDashboardRoutes(): Promise<Map<string, string | undefined>> {
  const routes = new Map<string, string | undefined>();
  await forEachRegisteredRoute((route) => {
    if (!route.url.startsWith('/dashboard')) return;
    for (const method of [route.method].flat()) {
      // Fastify adds a HEAD route for each GET, with the same options: the GET covers it.
      if (method !== 'HEAD') routes.set(`${method} ${route.url}`, route.config?.page);
    }
  });
  return routes;
}

const routes = await registeredDashboardRoutes();
const settingsRoutes = [...routes]
  .filter(([name]) => name.split(' ')[1]!.startsWith(SETTINGS))
  .map(([n]) => n);
const adminOnly = settingsRoutes.filter((name) => !MEMBER_ALLOWED.includes(name));

describe('the access level of every settings route', () => {
  it('is admin for every route under /dashboard/settings except the few a member uses', () => {
    expect(adminOnly.length, 'no admin-only route was recorded').toBeGreaterThan(10);
    const open = adminOnly.filter((name) => routes.get(name) !== 'admin');
    expect(
      open,
      'settings routes a member can use: mark them page: admin, or list them in MEMBER_ALLOWED',
    ).toEqual([]);
    for (const name of MEMBER_ALLOWED) expect(routes.get(name), name).toBe('user');
  });
});

interface Fixtures {
  adminId: string;
  keyId: string;
  keyPrefix: string;
  endpointId: string;
  deliveryId: string;
  inviteId: string;
  formId: string;
}

/** A route's URL with the ids of real records of the brand, so a missing check would really change something. */
function urlOf(route: string, fx: Fixtures): string {
  return route.replace(/:(\w+)/g, (_, name: string) => {
    if (name === 'deliveryId') return fx.deliveryId;
    if (route.startsWith(`${SETTINGS}/api-keys/`)) return fx.keyId;
    if (route.startsWith(`${SETTINGS}/webhooks/`)) return fx.endpointId;
    if (route.startsWith(`${SETTINGS}/users/invites/`)) return fx.inviteId;
    if (route.startsWith(`${SETTINGS}/users/`)) return fx.adminId;
    if (route.startsWith(`${SETTINGS}/forms/`)) return fx.formId;
    return 'no_such_id';
  });
}

// What a member might post to any admin route: enough for each to do something if it were let through.
const MEMBER_POST = {
  name: 'Sneaky key',
  scopes: 'full',
  url: 'http://127.0.0.1:9/sneaky-hook',
  events: 'lead.created',
  description: 'sneaky',
  email: 'sneaky@acme.example',
  password: 'sneaky password 1',
  role: 'member',
  allowedOrigins: 'https://sneaky.example',
};

/** The records a member must not change, as stored. Sessions and sign-in failures change by signing in. */
const GUARDED_TABLES = [
  'api_keys',
  'webhook_endpoints',
  'webhook_deliveries',
  'events',
  'users',
  'user_invites',
  'forms',
  'email_outbox',
] as const;

describe.each(dialects())('roles on %s', (dialect: TestDialect) => {
  let app: App;
  let brandId: string;
  let fx: Fixtures;
  let admin: Browser;
  let member: Browser;
  const adminEmail = 'boss@acme.example';
  const memberEmail = 'fitter@acme.example';

  beforeAll(async () => {
    // No webhook worker: the queued delivery stays as it is, so "nothing changed" is exact.
    app = await buildApp(testConfig(dialect, { webhooks: TEST_WEBHOOKS }), {
      logger: false,
      defaultMetrics: false,
      webhookWorker: false,
      mailWorker: false,
    });
    await app.ready();
    const database = app.deps.database;
    brandId = (await createBrand(database, { language: 'en', name: 'Acme Plumbing', country: 'NL' })).id;
    const adminUser = await addUser(app, brandId, adminEmail, 'owner');
    await addUser(app, brandId, 'second-admin@acme.example', 'owner');
    await addUser(app, brandId, memberEmail, 'member');
    const key = await createApiKey(database, {
      brandId,
      name: 'Website form key',
      scopes: ['full'],
      createdBy: adminEmail,
      createdByUserId: adminUser.id,
    });
    const endpoint = await createWebhookEndpoint(
      database,
      brandId,
      { url: 'http://127.0.0.1:9/secret-crm-hook', events: ['lead.created'] },
      (url) => checkWebhookUrl(url, TEST_WEBHOOKS),
    );
    const lead = await apiClient(app, key.key).post('/v1/leads', validLead({ title: 'Leaking tap' }));
    expect(lead.statusCode).toBe(201);
    const delivery = await database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    const invite = await createInvite(database, {
      brandId,
      email: 'invited-planner@acme.example',
      role: 'member',
      invitedBy: adminEmail,
    });
    const form = await createForm(database, brandId, {
      name: 'Secret contact form',
      allowedOrigins: ['https://acme.example'],
    });
    // A mail that could not be sent: Settings > Users lists it for admins.
    await database.db
      .insertInto('email_outbox')
      .values({
        id: 'eml_roles_failed',
        brand_id: brandId,
        kind: 'new_lead',
        recipient: adminEmail,
        subject: 'New lead: Undeliverable secret',
        text: 'x',
        html: 'x',
        status: 'failed',
        attempt: 3,
        next_attempt_at: 0,
        lease_owner: null,
        lease_until: 0,
        last_error: 'EENVELOPE: 550 no such mailbox',
        last_attempt_at: Date.now(),
        created_at: Date.now(),
        sent_at: null,
      })
      .execute();
    fx = {
      adminId: adminUser.id,
      keyId: key.id,
      keyPrefix: key.displayPrefix,
      endpointId: endpoint.id,
      deliveryId: delivery.id,
      inviteId: invite.id,
      formId: form.id,
    };
    admin = await signedIn(app, 'second-admin@acme.example');
    member = await signedIn(app, memberEmail);
    await member.get('/dashboard/leads');
  });
  afterAll(async () => {
    if (!app) return;
    await dropSchema(app);
    await app.close();
  });

  const db = () => app.deps.database.db;
  const snapshot = async () => {
    const out: Record<string, unknown[]> = {};
    for (const table of GUARDED_TABLES) {
      out[table] = await db().selectFrom(table).selectAll().orderBy('id').execute();
    }
    return out;
  };
  const roleOf = async (email: string) =>
    (await db().selectFrom('users').select('role').where('email', '=', email).executeTakeFirst())?.role;

  it('refuses a member every admin-only route with a 403 page, shows none of the data, and changes nothing', async () => {
    const before = await snapshot();
    for (const route of adminOnly) {
      const [method, path] = route.split(' ') as [string, string];
      const url = urlOf(path, fx);
      const res = method === 'GET' ? await member.get(url) : await member.post(url, MEMBER_POST);
      expect(res.statusCode, route).toBe(403);
      expect(res.headers['content-type'], route).toBe('text/html; charset=utf-8');
      const text = textOf(res.body);
      expect(text, route).toContain('Admins only');
      expect(text, route).toContain('Only an admin of Acme Plumbing can');
      for (const secret of [
        'Website form key',
        `lik_${fx.keyPrefix}`,
        'secret-crm-hook',
        'invited-planner@acme.example',
        'Secret contact form',
      ]) {
        expect(res.body, `${route} shows ${secret}`).not.toContain(secret);
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('says what only admins do and whom to ask', async () => {
    const keys = textOf((await member.get(`${SETTINGS}/api-keys`)).body);
    expect(keys).toContain('Only an admin of Acme Plumbing can manage API keys.');
    expect(keys).toContain(
      'Ask boss@acme.example or second-admin@acme.example if something here needs doing.',
    );
    const hooks = await member.post(`${SETTINGS}/webhooks/${fx.endpointId}/rotate-secret`);
    expect(textOf(hooks.body)).toContain('Only an admin of Acme Plumbing can manage webhooks.');
    expect(hooks.body).toContain('<a href="mailto:boss@acme.example">boss@acme.example</a>');
  });

  it('lets an admin open every admin-only page', async () => {
    for (const route of adminOnly.filter((name) => name.startsWith('GET '))) {
      const res = await admin.get(urlOf(route.slice(4), fx));
      expect(res.statusCode, route).toBe(200);
    }
  });

  it("hides admin links from a member's navigation and shows them only their own settings", async () => {
    const leads = await member.get('/dashboard/leads');
    expect(leads.statusCode).toBe(200);
    expect(leads.body).not.toContain(`href="${SETTINGS}/api-keys"`);
    expect(leads.body).not.toContain(`href="${SETTINGS}/webhooks"`);
    expect(leads.body).toContain(`href="${SETTINGS}/users"`);
    const adminLeads = await admin.get('/dashboard/leads');
    expect(adminLeads.body).toContain(`href="${SETTINGS}/api-keys"`);
    expect(adminLeads.body).toContain(`href="${SETTINGS}/webhooks"`);

    expect((await member.get(SETTINGS)).headers.location).toBe(`${SETTINGS}/users`);
    expect((await admin.get(SETTINGS)).headers.location).toBe(`${SETTINGS}/api-keys`);

    const users = await member.get(`${SETTINGS}/users`);
    expect(users.statusCode).toBe(200);
    const text = textOf(users.body);
    expect(text).toMatch(/fitter@acme\.example \(you\) Member .* None Change your new-lead email/);
    expect(text).toMatch(/boss@acme\.example Admin/);
    expect(text).toContain('Admins add, change and remove people.');
    expect(users.body).not.toContain('invited-planner@acme.example');
    expect(users.body).not.toContain('Undeliverable secret');
    expect(users.body).not.toContain('/role"');
    expect(users.body).not.toContain('/remove"');
    expect(users.body).not.toContain(`action="${SETTINGS}/users"`);
    const adminUsers = await admin.get(`${SETTINGS}/users`);
    expect(adminUsers.body).toContain('invited-planner@acme.example');
    expect(adminUsers.body).toContain('Undeliverable secret');
    expect(textOf(adminUsers.body)).toContain('Make admin fitter@acme.example');
  });

  it('tells a member on the empty leads page that an admin creates API keys', async () => {
    const other = (await createBrand(app.deps.database, { language: 'en', name: 'Empty Co', country: 'NL' }))
      .id;
    await addUser(app, other, 'only-member@empty.example', 'member');
    await addUser(app, other, 'only-admin@empty.example', 'owner');
    const page = await (await signedIn(app, 'only-member@empty.example')).get('/dashboard/leads');
    expect(textOf(page.body)).toContain('An admin creates an API key with the leads:write scope');
    expect(page.body).not.toContain(`href="${SETTINGS}/api-keys"`);
    const adminPage = await (await signedIn(app, 'only-admin@empty.example')).get('/dashboard/leads');
    expect(adminPage.body).toContain(`<a href="${SETTINGS}/api-keys">Create an API key</a>`);
  });

  it('makes a member an admin and back; it applies from their next request', async () => {
    await addUser(app, brandId, 'promoted@acme.example', 'member');
    const promoted = await signedIn(app, 'promoted@acme.example');
    expect((await promoted.get(`${SETTINGS}/api-keys`)).statusCode).toBe(403);
    const id = (
      await db()
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'promoted@acme.example')
        .executeTakeFirstOrThrow()
    ).id;

    await admin.get(`${SETTINGS}/users`);
    const up = await admin.post(`${SETTINGS}/users/${id}/role`, { role: 'owner' });
    expect(up.statusCode).toBe(303);
    expect(up.headers.location).toBe(`${SETTINGS}/users?done=made-admin`);
    expect(await roleOf('promoted@acme.example')).toBe('owner');
    expect(textOf((await admin.get(up.headers.location as string)).body)).toContain(
      'The person is now an admin.',
    );
    expect((await promoted.get(`${SETTINGS}/api-keys`)).statusCode).toBe(200);

    const down = await admin.post(`${SETTINGS}/users/${id}/role`, { role: 'member' });
    expect(down.headers.location).toBe(`${SETTINGS}/users?done=made-member`);
    expect(await roleOf('promoted@acme.example')).toBe('member');
    expect((await promoted.get(`${SETTINGS}/api-keys`)).statusCode).toBe(403);

    const bad = await admin.post(`${SETTINGS}/users/${id}/role`, { role: 'boss' });
    expect(bad.statusCode).toBe(400);
    expect(await roleOf('promoted@acme.example')).toBe('member');
    const missing = await admin.post(`${SETTINGS}/users/${id}/role`, { role: 'owner', _csrf: undefined });
    expect(missing.statusCode).toBe(403);
    expect(await roleOf('promoted@acme.example')).toBe('member');
  });

  it("another brand's person is a 404 to the role change", async () => {
    const other = (await createBrand(app.deps.database, { language: 'en', name: 'Rival Co', country: 'NL' }))
      .id;
    const rival = await addUser(app, other, 'rival@rival.example', 'member');
    await admin.get(`${SETTINGS}/users`);
    expect((await admin.post(`${SETTINGS}/users/${rival.id}/role`, { role: 'owner' })).statusCode).toBe(404);
    expect(await roleOf('rival@rival.example')).toBe('member');
  });

  describe('the last admin', () => {
    let solo: Browser;
    let soloBrand: string;
    let soloAdminId: string;
    let soloMemberId: string;

    beforeAll(async () => {
      soloBrand = (
        await createBrand(app.deps.database, { language: 'en', name: 'Solo Roofing', country: 'NL' })
      ).id;
      soloAdminId = (await addUser(app, soloBrand, 'solo@solo.example', 'owner')).id;
      soloMemberId = (await addUser(app, soloBrand, 'helper@solo.example', 'member')).id;
      solo = await signedIn(app, 'solo@solo.example');
      await solo.get(`${SETTINGS}/users`);
    });

    it('cannot make themselves a member while nobody else is an admin', async () => {
      const res = await solo.post(`${SETTINGS}/users/${soloAdminId}/role`, { role: 'member' });
      expect(res.statusCode).toBe(409);
      expect(textOf(res.body)).toContain(
        'You are the only admin of Solo Roofing. Make someone else an admin first, then change this one.',
      );
      expect(await roleOf('solo@solo.example')).toBe('owner');
      expect((await solo.get(`${SETTINGS}/api-keys`)).statusCode).toBe(200);
    });

    it('is never removed or demoted by the domain, whoever asks', async () => {
      const database = app.deps.database;
      await expect(removeUser(database, soloBrand, soloAdminId, soloMemberId)).rejects.toBeInstanceOf(
        LastAdminError,
      );
      await expect(setUserRole(database, soloBrand, soloAdminId, 'member')).rejects.toBeInstanceOf(
        LastAdminError,
      );
      // A disabled admin cannot sign in: they do not count.
      const disabled = await addUser(app, soloBrand, 'disabled-admin@solo.example', 'owner');
      await db()
        .updateTable('users')
        .set({ disabled_at: Date.now() })
        .where('id', '=', disabled.id)
        .execute();
      await expect(removeUser(database, soloBrand, soloAdminId, soloMemberId)).rejects.toBeInstanceOf(
        LastAdminError,
      );
      expect(await roleOf('solo@solo.example')).toBe('owner');
    });

    it('can step down once someone else is an admin, and then is a member', async () => {
      const up = await solo.post(`${SETTINGS}/users/${soloMemberId}/role`, { role: 'owner' });
      expect(up.statusCode).toBe(303);
      const users = await solo.get(`${SETTINGS}/users`);
      expect(users.body).toContain('data-confirm="Make yourself a member?');
      const down = await solo.post(`${SETTINGS}/users/${soloAdminId}/role`, { role: 'member' });
      expect(down.statusCode).toBe(303);
      expect(await roleOf('solo@solo.example')).toBe('member');
      expect((await solo.get(`${SETTINGS}/api-keys`)).statusCode).toBe(403);

      // Now helper is the last admin: the former admin cannot undo that, and helper cannot be removed.
      const helper = await signedIn(app, 'helper@solo.example');
      await helper.get(`${SETTINGS}/users`);
      const self = await helper.post(`${SETTINGS}/users/${soloMemberId}/role`, { role: 'member' });
      expect(self.statusCode).toBe(409);
      expect(await roleOf('helper@solo.example')).toBe('owner');
    });

    if (dialect === 'postgres') {
      it('is kept when two admins remove each other at the same moment', async () => {
        const brand = (
          await createBrand(app.deps.database, { language: 'en', name: 'Pair Ltd', country: 'NL' })
        ).id;
        const first = await addUser(app, brand, 'first@pair.example', 'owner');
        const second = await addUser(app, brand, 'second@pair.example', 'owner');
        let removing: Promise<unknown> | undefined;
        // Another request, removing the first admin, holds the brand's lock with its delete not yet committed.
        await db()
          .transaction()
          .execute(async (trx) => {
            await trx.selectFrom('brands').select('id').where('id', '=', brand).forUpdate().execute();
            await trx.deleteFrom('users').where('id', '=', first.id).execute();
            const holder = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!
              .pid;
            let settled = false;
            removing = removeUser(app.deps.database, brand, second.id, first.id).then(
              () => 'removed',
              (error: unknown) => error,
            );
            void removing.then(() => {
              settled = true;
            });
            // Commit once the removal waits for that lock, or once it has finished without waiting (the bug).
            for (;;) {
              const blocked = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                where ${holder}::int = any(pg_blocking_pids(pid))`.execute(db());
              if (settled || blocked.rows[0]!.n > 0) break;
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
          });
        expect(await removing).toBeInstanceOf(LastAdminError);
        const left = await db().selectFrom('users').select('email').where('brand_id', '=', brand).execute();
        expect(left).toEqual([{ email: 'second@pair.example' }]);
      });
    }
  });

  describe('who created each key', () => {
    it('records the admin who creates a key and shows it; the key keeps working after they are removed', async () => {
      const creator = await addUser(app, brandId, 'creator@acme.example', 'owner');
      const browser = await signedIn(app, 'creator@acme.example');
      await browser.get(`${SETTINGS}/api-keys`);
      const posted = await browser.post(`${SETTINGS}/api-keys`, {
        name: 'Made by creator',
        scopes: 'leads:read',
        readsPerMinute: '',
        writesPerMinute: '',
      });
      expect(posted.statusCode).toBe(303);
      const res = await browser.get(posted.headers.location as string);
      expect(res.statusCode).toBe(200);
      const key = /lik_[A-Za-z0-9_-]{43}/.exec(res.body)![0];
      const row = await db()
        .selectFrom('api_keys')
        .select(['created_by', 'created_by_user_id'])
        .where('name', '=', 'Made by creator')
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ created_by: 'creator@acme.example', created_by_user_id: creator.id });
      const keyRow = (html: string) =>
        textOf(
          /<tr>\s*<td data-label="Name" class="cell-title">Made by creator[\s\S]*?<\/tr>/.exec(html)![0],
        );
      expect(keyRow((await admin.get(`${SETTINGS}/api-keys`)).body)).toMatch(
        /by creator@acme\.example(?! \(removed\))/,
      );

      const api = apiClient(app, key);
      expect((await api.get('/v1/leads')).statusCode).toBe(200);
      // Disabled first (they can no longer sign in), then removed: the key belongs to the brand and keeps working.
      await db().updateTable('users').set({ disabled_at: Date.now() }).where('id', '=', creator.id).execute();
      expect((await api.get('/v1/leads')).statusCode).toBe(200);
      await db().updateTable('users').set({ disabled_at: null }).where('id', '=', creator.id).execute();
      await admin.get(`${SETTINGS}/users`);
      expect((await admin.post(`${SETTINGS}/users/${creator.id}/remove`)).statusCode).toBe(303);
      expect(await roleOf('creator@acme.example')).toBeUndefined();
      expect((await api.get('/v1/leads')).statusCode).toBe(200);
      expect(keyRow((await admin.get(`${SETTINGS}/api-keys`)).body)).toContain(
        'by creator@acme.example (removed)',
      );
    });

    it('shows keys made with the command line as such', async () => {
      await createApiKey(app.deps.database, {
        brandId,
        name: 'From the shell',
        scopes: ['leads:read'],
        createdBy: 'cli',
      });
      const page = await admin.get(`${SETTINGS}/api-keys`);
      const row = /<tr>\s*<td data-label="Name" class="cell-title">From the shell[\s\S]*?<\/tr>/.exec(
        page.body,
      )![0];
      expect(textOf(row)).toContain('by the command line');
    });
  });
});
