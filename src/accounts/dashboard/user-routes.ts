// Settings > Users: everyone sees the people and switches their own new-lead emails and sets their own name; admins
// add people (with a password, or an invitation link), change roles, remove people and withdraw invitations, and
// see the mails that could not be sent.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listFailedEmails } from '../../mail/outbox.js';
import { fromText } from '../../mail/sender.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { doneNotice } from '../../platform/web/components.js';
import { errorPage } from '../../platform/web/error-pages.js';
import { html } from '../../platform/web/html.js';
import { originOf, pathParam, seeOther, sendPage, text } from '../../platform/web/http.js';
import { DomainError, type FieldError, ValidationError } from '../../shared/errors.js';
import { type MessageKey, translator } from '../../shared/i18n/index.js';
import { findBrand, mailSenderName } from '../brands.js';
import { createInvite, listInvites, parseRole, withdrawInvite } from '../invites.js';
import type { SessionUser } from '../sessions.js';
import {
  createUser,
  findUser,
  isAdmin,
  LastAdminError,
  listUsers,
  removeUser,
  setUserName,
  setUserRole,
} from '../users.js';
import { flash, takeFlashed } from './flash.js';
import { adminPage, hidden, userOf, userPage } from './session.js';
import {
  inviteEmailedNotice,
  inviteShownOnceNotice,
  removeConfirmPage,
  type UsersView,
  usersPage,
} from './views/users.js';

const USERS = '/dashboard/settings/users';

const userMessages: Record<string, MessageKey> = {
  added: 'users.notice.added',
  removed: 'users.notice.removed',
  'made-admin': 'users.notice.madeAdmin',
  'made-member': 'users.notice.madeMember',
  withdrawn: 'users.notice.withdrawn',
  'name-saved': 'users.notice.nameSaved',
};

function cannotRemoveYourself(user: SessionUser) {
  return errorPage(
    { title: 'users.error.removeYourself.title', message: 'users.error.removeYourself.message' },
    user,
    user.locale,
  );
}

// One message per case: who (you or them) and what (remove or change) are whole sentences in the catalog.
const LAST_ADMIN: Record<'you' | 'other', Record<'remove' | 'demote', MessageKey>> = {
  you: { remove: 'users.error.lastAdmin.you.remove', demote: 'users.error.lastAdmin.you.demote' },
  other: { remove: 'users.error.lastAdmin.other.remove', demote: 'users.error.lastAdmin.other.demote' },
};

function lastAdminPage(user: SessionUser, error: LastAdminError, change: 'remove' | 'demote') {
  const who = error.user.id === user.userId ? 'you' : 'other';
  return errorPage(
    {
      title: 'users.error.lastAdmin.title',
      message: LAST_ADMIN[who][change],
      values: { email: error.user.email, brand: user.brandName },
    },
    user,
    user.locale,
  );
}

async function renderUsers(
  deps: RouteDeps,
  reply: FastifyReply,
  user: SessionUser,
  extra: Partial<UsersView> = {},
  status = 200,
) {
  const { database } = deps;
  // Members see the people and their own switch; invitations and mails that failed are for admins.
  const admin = isAdmin(user);
  const [users, invites, failed, brand] = await Promise.all([
    listUsers(database, user.brandId),
    admin ? listInvites(database, user.brandId) : [],
    admin ? listFailedEmails(database, user.brandId) : [],
    findBrand(database, user.brandId),
  ]);
  const mail = deps.config.mail;
  const view: UsersView = {
    user,
    users,
    invites,
    email: { from: mail && brand ? fromText(mail.from, mailSenderName(brand)) : null, failed },
    values: { email: '', role: 'member', name: '' },
    errors: [],
    ...extra,
  };
  return sendPage(reply, usersPage(view), status);
}

async function showUsers(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const tr = translator(user.locale);
  let message = doneNotice(request, tr, userMessages);
  let invited: UsersView['invited'];
  // After "Add person" without a password (post, redirect, get): the invitation link once, then only a note; and,
  // when email was on, that the invitation is emailed (queued: a mail that fails is listed under the users).
  const inviteId = text(request.query, 'invited');
  if (inviteId && isAdmin(user)) {
    const invite = (await listInvites(deps.database, user.brandId)).find((i) => i.id === inviteId);
    const url = invite ? await takeFlashed(deps.database, request, `invite:${invite.id}`) : null;
    const emailed =
      invite && text(request.query, 'emailed') === '1' ? inviteEmailedNotice(tr, invite.email) : undefined;
    if (invite && url) {
      invited = { email: invite.email, url };
      message = emailed;
    } else if (invite) message = html`${emailed ?? ''}${inviteShownOnceNotice(tr, invite.email)}`;
  }
  return renderUsers(deps, reply, user, { message, invited });
}

/** "Add person": with a password the account at once, without one an invitation link (shown once). */
async function addPerson(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const { database } = deps;
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
      return seeOther(reply, `${USERS}?done=added`);
    }
    const invite = await createInvite(database, {
      brandId: user.brandId,
      email: values.email,
      role,
      invitedBy: user.email,
    });
    const url = `${originOf(request)}/invite?token=${invite.token}`;
    await flash(database, request, `invite:${invite.id}`, url);
    return seeOther(reply, `${USERS}?invited=${invite.id}${invite.emailed ? '&emailed=1' : ''}`);
  } catch (error) {
    if (error instanceof ValidationError)
      return renderUsers(deps, reply, user, { values, errors: error.errors }, 422);
    if (error instanceof DomainError && error.code === 'conflict') {
      const errors: FieldError[] = [
        { field: 'email', message: 'already belongs to an account', text: { key: 'users.email.taken' } },
      ];
      return renderUsers(deps, reply, user, { values, errors }, 422);
    }
    throw error;
  }
}

async function removePerson(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  try {
    await removeUser(deps.database, user.brandId, pathParam(request, 'id'), user.userId);
  } catch (error) {
    if (error instanceof LastAdminError) return sendPage(reply, lastAdminPage(user, error, 'remove'), 409);
    if (error instanceof DomainError && error.code === 'conflict') {
      return sendPage(reply, cannotRemoveYourself(user), 409);
    }
    throw error;
  }
  return seeOther(reply, `${USERS}?done=removed`);
}

// "Make admin" / "Make member": applies from the person's next request; the last admin stays an admin.
async function changeRole(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const role = text(request.body, 'role');
  if (role !== 'owner' && role !== 'member') {
    const page = errorPage(
      { title: 'error.badRequest.title', message: 'users.error.chooseRole' },
      user,
      user.locale,
    );
    return sendPage(reply, page, 400);
  }
  try {
    const changed = await setUserRole(deps.database, user.brandId, pathParam(request, 'id'), role);
    request.log.info(
      { targetUserId: changed.id, role, userId: user.userId },
      'user role changed in the dashboard',
    );
  } catch (error) {
    if (error instanceof LastAdminError) return sendPage(reply, lastAdminPage(user, error, 'demote'), 409);
    throw error;
  }
  return seeOther(reply, `${USERS}?done=${role === 'owner' ? 'made-admin' : 'made-member'}`);
}

// Each person sets their own display name; nobody sets someone else's.
async function setOwnName(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const value = text(request.body, 'ownName');
  try {
    await setUserName(deps.database, user.brandId, user.userId, value);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return renderUsers(deps, reply, user, { ownName: { value, error: error.errors[0] } }, 422);
  }
  return seeOther(reply, `${USERS}?done=name-saved`);
}

export default async function userRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const user = { schema: hidden, config: userPage };
  const admin = { schema: hidden, config: adminPage };
  app.get('/settings/users', user, (request, reply) => showUsers(deps, request, reply));
  app.post('/settings/users', admin, (request, reply) => addPerson(deps, request, reply));
  app.get('/settings/users/:id/remove', admin, async (request, reply) => {
    const signedIn = userOf(request);
    const target = await findUser(deps.database, signedIn.brandId, pathParam(request, 'id'));
    if (target.id === signedIn.userId) return sendPage(reply, cannotRemoveYourself(signedIn), 409);
    return sendPage(reply, removeConfirmPage(signedIn, target));
  });
  app.post('/settings/users/:id/remove', admin, (request, reply) => removePerson(deps, request, reply));
  app.post('/settings/users/:id/role', admin, (request, reply) => changeRole(deps, request, reply));
  app.post('/settings/users/me/name', user, (request, reply) => setOwnName(deps, request, reply));
  app.post('/settings/users/invites/:id/withdraw', admin, async (request, reply) => {
    const signedIn = userOf(request);
    await withdrawInvite(deps.database, signedIn.brandId, pathParam(request, 'id'));
    return seeOther(reply, `${USERS}?done=withdrawn`);
  });
}
