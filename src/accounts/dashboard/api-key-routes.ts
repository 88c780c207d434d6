// Settings > API keys (admins only): create, list and revoke the brand's keys.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { list, originOf, pathParam, seeOther, sendPage, text } from '../../platform/web/http.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { translator } from '../../shared/i18n/index.js';
import { type ApiKey, createApiKey, listApiKeys, revokeApiKey } from '../api-keys.js';
import { listUsers } from '../users.js';
import { flash, takeFlashed } from './flash.js';
import { adminPage, hidden, userOf } from './session.js';
import {
  type ApiKeysView,
  apiKeysPage,
  keyShownOnceNotice,
  revokeConfirmPage,
  revokedNotice,
  welcomeNotice,
} from './views/api-keys.js';

/** '' is "use the default"; anything else goes to the domain, which says what is wrong with it. */
function optionalNumber(value: string): number | null {
  const trimmed = value.trim();
  return trimmed === '' ? null : Number(trimmed);
}

async function findKey(deps: RouteDeps, brandId: string, id: string): Promise<ApiKey> {
  const key = (await listApiKeys(deps.database, brandId)).find((k) => k.id === id);
  if (!key) throw new NotFoundError(`No API key with id ${id}`);
  return key;
}

async function renderKeys(
  deps: RouteDeps,
  request: FastifyRequest,
  view: Omit<ApiKeysView, 'publicUrl' | 'defaultLimits' | 'currentUserIds'>,
) {
  const people = await listUsers(deps.database, view.user.brandId);
  return apiKeysPage({
    ...view,
    publicUrl: originOf(request),
    defaultLimits: deps.config.rateLimit,
    currentUserIds: new Set(people.map((person) => person.id)),
  });
}

async function showKeys(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const { database } = deps;
  const user = userOf(request);
  const keys = await listApiKeys(database, user.brandId);
  const revoked = keys.find((k) => k.id === text(request.query, 'revoked'));
  // After "Create key" (post, redirect, get): the secret once, then only a note that it was shown.
  const fresh = keys.find((k) => k.id === text(request.query, 'created'));
  const secret = fresh ? await takeFlashed(database, request, `api-key:${fresh.id}`) : null;
  const created = fresh && secret ? { ...fresh, key: secret } : undefined;
  const tr = translator(user.locale);
  const message = revoked
    ? revokedNotice(tr, revoked.name)
    : fresh && !created
      ? keyShownOnceNotice(tr, fresh.name)
      : text(request.query, 'welcome')
        ? welcomeNotice(tr, user.brandName)
        : undefined;
  const empty = { name: '', scopes: [], readsPerMinute: '', writesPerMinute: '' };
  return sendPage(
    reply,
    await renderKeys(deps, request, { user, keys, created, values: empty, errors: [], message }),
  );
}

async function createKey(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const { database } = deps;
  const user = userOf(request);
  const body = request.body;
  const values = {
    name: text(body, 'name'),
    scopes: list(body, 'scopes'),
    readsPerMinute: text(body, 'readsPerMinute'),
    writesPerMinute: text(body, 'writesPerMinute'),
  };
  try {
    const created = await createApiKey(database, {
      brandId: user.brandId,
      name: values.name,
      scopes: values.scopes,
      createdBy: user.email,
      createdByUserId: user.userId,
      readsPerMinute: optionalNumber(values.readsPerMinute),
      writesPerMinute: optionalNumber(values.writesPerMinute),
    });
    request.log.info({ keyId: created.id, userId: user.userId }, 'API key created in the dashboard');
    // The key is shown by the page this redirects to, once: reloading it or going Back creates nothing.
    await flash(database, request, `api-key:${created.id}`, created.key);
    return seeOther(reply, `/dashboard/settings/api-keys?created=${created.id}`);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const keys = await listApiKeys(database, user.brandId);
    return sendPage(
      reply,
      await renderKeys(deps, request, { user, keys, values, errors: error.errors }),
      422,
    );
  }
}

export default async function apiKeyRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/settings/api-keys', { schema: hidden, config: adminPage }, (request, reply) =>
    showKeys(deps, request, reply),
  );
  app.post('/settings/api-keys', { schema: hidden, config: adminPage }, (request, reply) =>
    createKey(deps, request, reply),
  );
  app.get('/settings/api-keys/:id/revoke', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const key = await findKey(deps, user.brandId, pathParam(request, 'id'));
    if (key.revokedAt) return reply.redirect('/dashboard/settings/api-keys');
    return sendPage(reply, revokeConfirmPage(user, key));
  });
  app.post('/settings/api-keys/:id/revoke', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const key = await revokeApiKey(deps.database, pathParam(request, 'id'), user.brandId);
    // This instance refuses the key from the next request on; others within KEY_CACHE_TTL_MS.
    deps.keys.invalidate();
    request.log.info({ keyId: key.id, userId: user.userId }, 'API key revoked in the dashboard');
    return seeOther(reply, `/dashboard/settings/api-keys?revoked=${key.id}`);
  });
}
