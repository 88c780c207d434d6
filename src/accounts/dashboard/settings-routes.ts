// Settings: API keys (create, list, revoke; admins only) and users (everyone sees the people and switches their own
// new-lead emails; admins add, invite, change roles and remove).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listFailedEmails } from '../../mail/outbox.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { errorPage } from '../../platform/web/error-pages.js';
import { html } from '../../platform/web/html.js';
import { list, originOf, pathParam, seeOther, sendPage, text } from '../../platform/web/http.js';
import { DomainError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { type ApiKey, createApiKey, listApiKeys, revokeApiKey } from '../api-keys.js';
import { setBrandTimeZone } from '../brands.js';
import { createInvite, listInvites, parseRole, withdrawInvite } from '../invites.js';
import type { SessionUser } from '../sessions.js';
import {
  createUser,
  findUser,
  isAdmin,
  LastAdminError,
  listUsers,
  removeUser,
  setNotifyNewLeads,
  setUserName,
  setUserRole,
} from '../users.js';
import { flash, takeFlashed } from './flash.js';
import { userOf } from './session.js';
import {
  type ApiKeysView,
  apiKeysPage,
  keyShownOnceNotice,
  revokeConfirmPage,
  revokedNotice,
} from './views/api-keys.js';
import { brandSettingsPage } from './views/brand-settings.js';
import { inviteShownOnceNotice, removeConfirmPage, type UsersView, usersPage } from './views/users.js';

const hidden = { hide: true };
const userPage = { page: 'user' as const };
const adminPage = { page: 'admin' as const };

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

function cannotRemoveYourself(user: SessionUser) {
  return errorPage('You cannot remove yourself', 'Ask another admin to do it.', user);
}

function lastAdminPage(user: SessionUser, error: LastAdminError, change: 'remove' | 'demote') {
  const who = error.user.id === user.userId ? 'You are' : `${error.user.email} is`;
  return errorPage(
    'A brand needs an admin',
    `${who} the only admin of ${user.brandName}. Make someone else an admin first, then ${change === 'remove' ? 'remove' : 'change'} this one.`,
    user,
  );
}

export default async function settingsRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;

  async function renderKeys(
    request: FastifyRequest,
    view: Omit<ApiKeysView, 'publicUrl' | 'defaultLimits' | 'currentUserIds'>,
  ) {
    const people = await listUsers(database, view.user.brandId);
    return apiKeysPage({
      ...view,
      publicUrl: originOf(request),
      defaultLimits: deps.config.rateLimit,
      currentUserIds: new Set(people.map((person) => person.id)),
    });
  }

  // Admins start at API keys; members at Users, the one settings page they use (their new-lead emails).
  app.get('/settings', { schema: hidden, config: userPage }, async (request, reply) =>
    reply.redirect(isAdmin(userOf(request)) ? '/dashboard/settings/api-keys' : '/dashboard/settings/users'),
  );

  app.get('/settings/api-keys', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const keys = await listApiKeys(database, user.brandId);
    const revoked = keys.find((k) => k.id === text(request.query, 'revoked'));
    // After "Create key" (post, redirect, get): the secret once, then only a note that it was shown.
    const fresh = keys.find((k) => k.id === text(request.query, 'created'));
    const secret = fresh ? await takeFlashed(database, request, `api-key:${fresh.id}`) : null;
    const created = fresh && secret ? { ...fresh, key: secret } : undefined;
    const message = revoked
      ? revokedNotice(revoked.name)
      : fresh && !created
        ? keyShownOnceNotice(fresh.name)
        : text(request.query, 'welcome')
          ? notice(
              html`<strong>${user.brandName} is set up.</strong> Next: create an API key for your website form, then send your first lead with it.`,
            )
          : undefined;
    const empty = { name: '', scopes: [], readsPerMinute: '', writesPerMinute: '' };
    return sendPage(
      reply,
      await renderKeys(request, { user, keys, created, values: empty, errors: [], message }),
    );
  });

  app.post('/settings/api-keys', { schema: hidden, config: adminPage }, async (request, reply) => {
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
      return sendPage(reply, await renderKeys(request, { user, keys, values, errors: error.errors }), 422);
    }
  });

  app.get('/settings/api-keys/:id/revoke', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const key = await findKey(deps, user.brandId, pathParam(request, 'id'));
    if (key.revokedAt) return reply.redirect('/dashboard/settings/api-keys');
    return sendPage(reply, revokeConfirmPage(user, key));
  });

  app.post('/settings/api-keys/:id/revoke', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const key = await revokeApiKey(database, pathParam(request, 'id'), user.brandId);
    // This instance refuses the key from the next request on; others within KEY_CACHE_TTL_MS.
    deps.keys.invalidate();
    request.log.info({ keyId: key.id, userId: user.userId }, 'API key revoked in the dashboard');
    return seeOther(reply, `/dashboard/settings/api-keys?revoked=${key.id}`);
  });

  async function renderUsers(
    reply: FastifyReply,
    user: SessionUser,
    extra: Partial<UsersView> = {},
    status = 200,
  ) {
    // Members see the people and their own switch; invitations and mails that failed are for admins.
    const admin = isAdmin(user);
    const [users, invites, failed] = await Promise.all([
      listUsers(database, user.brandId),
      admin ? listInvites(database, user.brandId) : [],
      admin ? listFailedEmails(database, user.brandId) : [],
    ]);
    const view: UsersView = {
      user,
      users,
      invites,
      email: { from: deps.config.mail?.from ?? null, failed },
      values: { email: '', role: 'member', name: '' },
      errors: [],
      ...extra,
    };
    return sendPage(reply, usersPage(view), status);
  }

  const userMessages: Record<string, string> = {
    added: 'The person is added. They can sign in with the password you chose.',
    removed: 'The person is removed and signed out.',
    'made-admin': 'The person is now an admin.',
    'made-member': 'The person is now a member.',
    withdrawn: 'The invitation is withdrawn.',
    'new-lead-emails-on': 'You get an email for each new lead.',
    'new-lead-emails-off': 'You no longer get an email for new leads.',
    'name-saved': 'Your name is saved.',
  };

  app.get('/settings/users', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const done = userMessages[text(request.query, 'done')];
    let message = done ? notice(done) : undefined;
    let invited: UsersView['invited'];
    // After "Add person" without a password (post, redirect, get): the invitation link once, then only a note.
    const inviteId = text(request.query, 'invited');
    if (inviteId && isAdmin(user)) {
      const invite = (await listInvites(database, user.brandId)).find((i) => i.id === inviteId);
      const url = invite ? await takeFlashed(database, request, `invite:${invite.id}`) : null;
      if (invite && url) invited = { email: invite.email, url };
      else if (invite) message = inviteShownOnceNotice(invite.email);
    }
    return renderUsers(reply, user, { message, invited });
  });

  app.post('/settings/users', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const body = request.body;
    const values = { email: text(body, 'email'), role: text(body, 'role'), name: text(body, 'name') };
    const password = text(body, 'password');
    try {
      const role = parseRole(values.role);
      if (password) {
        await createUser(database, {
          brandId: user.brandId,
          email: values.email,
          name: values.name,
          password,
          role,
        });
        return seeOther(reply, '/dashboard/settings/users?done=added');
      }
      const invite = await createInvite(database, {
        brandId: user.brandId,
        email: values.email,
        role,
        invitedBy: user.email,
      });
      const url = `${originOf(request)}/invite?token=${invite.token}`;
      await flash(database, request, `invite:${invite.id}`, url);
      return seeOther(reply, `/dashboard/settings/users?invited=${invite.id}`);
    } catch (error) {
      if (error instanceof ValidationError)
        return renderUsers(reply, user, { values, errors: error.errors }, 422);
      if (error instanceof DomainError && error.code === 'conflict') {
        const errors = [{ field: 'email', message: 'already belongs to an account' }];
        return renderUsers(reply, user, { values, errors }, 422);
      }
      throw error;
    }
  });

  app.get('/settings/users/:id/remove', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const target = await findUser(database, user.brandId, pathParam(request, 'id'));
    if (target.id === user.userId) return sendPage(reply, cannotRemoveYourself(user), 409);
    return sendPage(reply, removeConfirmPage(user, target));
  });

  app.post('/settings/users/:id/remove', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    try {
      await removeUser(database, user.brandId, pathParam(request, 'id'), user.userId);
    } catch (error) {
      if (error instanceof LastAdminError) return sendPage(reply, lastAdminPage(user, error, 'remove'), 409);
      if (error instanceof DomainError && error.code === 'conflict') {
        return sendPage(reply, cannotRemoveYourself(user), 409);
      }
      throw error;
    }
    return seeOther(reply, '/dashboard/settings/users?done=removed');
  });

  // "Make admin" / "Make member": applies from the person's next request; the last admin stays an admin.
  app.post('/settings/users/:id/role', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const role = text(request.body, 'role');
    if (role !== 'owner' && role !== 'member') {
      return sendPage(reply, errorPage('Bad request', 'Choose admin or member.', user), 400);
    }
    try {
      const changed = await setUserRole(database, user.brandId, pathParam(request, 'id'), role);
      request.log.info(
        { targetUserId: changed.id, role, userId: user.userId },
        'user role changed in the dashboard',
      );
    } catch (error) {
      if (error instanceof LastAdminError) return sendPage(reply, lastAdminPage(user, error, 'demote'), 409);
      throw error;
    }
    return seeOther(
      reply,
      `/dashboard/settings/users?done=${role === 'owner' ? 'made-admin' : 'made-member'}`,
    );
  });

  // Each person switches their own "Email me new leads"; nobody switches someone else's.
  app.post(
    '/settings/users/me/new-lead-emails',
    { schema: hidden, config: userPage },
    async (request, reply) => {
      const user = userOf(request);
      const notify = text(request.body, 'notify');
      if (notify !== 'on' && notify !== 'off') {
        return sendPage(reply, errorPage('Bad request', 'Choose on or off.', user), 400);
      }
      await setNotifyNewLeads(database, user.brandId, user.userId, notify === 'on');
      return seeOther(reply, `/dashboard/settings/users?done=new-lead-emails-${notify}`);
    },
  );

  // Each person sets their own display name; nobody sets someone else's.
  app.post('/settings/users/me/name', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const value = text(request.body, 'ownName');
    try {
      await setUserName(database, user.brandId, user.userId, value);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const message = error.errors[0]?.message ?? 'is not valid';
      return renderUsers(reply, user, { ownName: { value, error: message } }, 422);
    }
    return seeOther(reply, '/dashboard/settings/users?done=name-saved');
  });

  // Settings > Brand (admins): the time zone the dashboard shows and takes times in.
  app.get('/settings/brand', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const message =
      text(request.query, 'done') === 'saved' ? notice('The brand settings are saved.') : undefined;
    return sendPage(reply, brandSettingsPage({ user, timeZone: user.timeZone, errors: [], message }));
  });

  app.post('/settings/brand', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const timeZone = text(request.body, 'timeZone');
    try {
      await setBrandTimeZone(database, user.brandId, timeZone);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return sendPage(reply, brandSettingsPage({ user, timeZone, errors: error.errors }), 422);
    }
    request.log.info({ userId: user.userId, timeZone }, 'brand time zone changed in the dashboard');
    return seeOther(reply, '/dashboard/settings/brand?done=saved');
  });

  app.post(
    '/settings/users/invites/:id/withdraw',
    { schema: hidden, config: adminPage },
    async (request, reply) => {
      const user = userOf(request);
      await withdrawInvite(database, user.brandId, pathParam(request, 'id'));
      return seeOther(reply, '/dashboard/settings/users?done=withdrawn');
    },
  );
}
