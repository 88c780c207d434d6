// Settings > Users: the brand's people and their roles; admins add people (with a password or an invitation
// link), make them admin or member, and remove them. Members see the people and switch their own new-lead emails.

import {
  copyField,
  csrfField,
  errorFor,
  errorSummary,
  errorText,
  field,
  notice,
  time,
} from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { page, settingsPage } from '../../../platform/web/layout.js';
import { richText } from '../../../platform/web/messages.js';
import type { FieldError } from '../../../shared/errors.js';
import { type MessageKey, type Translator, translator } from '../../../shared/i18n/index.js';
import type { Invite } from '../../invites.js';
import type { SessionUser } from '../../sessions.js';
import { isAdmin, type ListedUser, MIN_PASSWORD_LENGTH, type Role, type User } from '../../users.js';
import { type EmailView, emailSection, newLeadEmailsCell } from './email.js';

export interface UsersView {
  user: SessionUser;
  users: ListedUser[];
  invites: Invite[];
  email: EmailView;
  invited?: { email: string; url: string } | undefined;
  values: { email: string; role: string; name?: string };
  errors: FieldError[];
  /** The "Your name" form's value and error, when it was just sent with a problem. */
  ownName?: { value: string; error: FieldError | undefined } | undefined;
  message?: SafeHtml | undefined;
}

/** What people read for each stored role: 'owner' is shown as Admin. */
const ROLE_NAMES: Record<Role, MessageKey> = { owner: 'users.role.owner', member: 'users.role.member' };

const ROLE_TEXT: Record<Role, MessageKey> = {
  owner: 'users.role.owner.description',
  member: 'users.role.member.description',
};

function addForm(tr: Translator, view: UsersView): SafeHtml {
  const { values, errors } = view;
  const labels: Record<string, string> = {
    name: tr.t('users.add.name.label'),
    email: tr.t('auth.email.label'),
    role: tr.t('users.add.role.label'),
    password: tr.t('users.add.password.label'),
  };
  const roleError = errorFor(errors, 'role');
  return html`<section class="card" aria-labelledby="add-title">
  <h2 id="add-title">${tr.t('users.add.title')}</h2>
  ${errorSummary(tr, errors, labels)}
  <form method="post" action="/dashboard/settings/users" novalidate>
    ${csrfField(view.user.csrfToken)}
    ${field({ tr, name: 'email', label: labels.email!, type: 'email', value: values.email, error: errorFor(errors, 'email'), required: true, autocomplete: 'off' })}
    ${field({ tr, name: 'name', label: labels.name!, value: values.name ?? '', hint: tr.t('users.add.name.hint'), error: errorFor(errors, 'name'), autocomplete: 'off', attributes: html`maxlength="100"` })}
    <fieldset id="field-role"${roleError ? html` class="field-invalid" aria-describedby="role-error"` : ''}>
      <legend>${labels.role}</legend>
      ${roleError ? html`<p class="error" id="role-error">${errorText(tr, roleError, labels.role!)}</p>` : ''}
      ${(['member', 'owner'] as const).map(
        (role) => html`<div class="check">
        <input type="radio" id="role-${role}" name="role" value="${role}"${(values.role || 'member') === role ? html` checked` : ''}>
        <label for="role-${role}">${tr.t(ROLE_TEXT[role])}</label>
      </div>`,
      )}
    </fieldset>
    ${field({
      tr,
      name: 'password',
      label: labels.password!,
      type: 'password',
      hint: tr.t('users.add.password.hint', { min: MIN_PASSWORD_LENGTH }),
      error: errorFor(errors, 'password'),
      autocomplete: 'new-password',
    })}
    <button type="submit" class="button button-primary">${tr.t('users.add.submit')}</button>
  </form>
</section>`;
}

/** Each person sets their own display name. */
function ownNameForm(tr: Translator, view: UsersView): SafeHtml {
  const me = view.users.find((u) => u.id === view.user.userId);
  const value = view.ownName?.value ?? me?.name ?? '';
  return html`<section class="card" aria-labelledby="own-name-title">
  <h2 id="own-name-title">${tr.t('auth.yourName.label')}</h2>
  <form method="post" action="/dashboard/settings/users/me/name" class="inline-form" novalidate>
    ${csrfField(view.user.csrfToken)}
    ${field({ tr, name: 'ownName', label: tr.t('auth.yourName.label'), value, hint: tr.t('users.ownName.hint'), error: view.ownName?.error, autocomplete: 'name', attributes: html`maxlength="100"` })}
    <button type="submit" class="button">${tr.t('users.ownName.submit')}</button>
  </form>
</section>`;
}

function invitedPanel(tr: Translator, invited: { email: string; url: string }): SafeHtml {
  return html`<section class="card card-highlight" aria-labelledby="invite-title">
  <h2 id="invite-title">${tr.t('users.invited.title', { email: invited.email })}</h2>
  <p class="warning-text">${richText(tr, 'users.invited.warning', { strong: (inner) => html`<strong>${inner}</strong>` })}</p>
  ${copyField(tr, { id: 'invite-link', label: tr.t('users.invited.linkLabel'), value: invited.url })}
</section>`;
}

/** An admin's buttons for one person: make admin or member, and remove (not themselves). */
function userActions(tr: Translator, viewer: SessionUser, person: ListedUser): SafeHtml {
  const self = person.id === viewer.userId;
  const next: Role = person.role === 'owner' ? 'member' : 'owner';
  const confirm = self ? html` data-confirm="${tr.t('users.makeYourselfMember.confirm')}"` : '';
  const hidden = (inner: SafeHtml) => html`<span class="visually-hidden">${inner}</span>`;
  return html`<div class="actions">
    <form method="post" action="/dashboard/settings/users/${person.id}/role"${confirm}>
      ${csrfField(viewer.csrfToken)}
      <input type="hidden" name="role" value="${next}">
      <button type="submit" class="button button-quiet">${richText(tr, next === 'owner' ? 'users.makeAdmin' : 'users.makeMember', { email: person.email, hidden })}</button>
    </form>${
      self
        ? ''
        : html`
    <a class="button button-danger-quiet" href="/dashboard/settings/users/${person.id}/remove">${richText(tr, 'users.remove', { email: person.email, hidden })}</a>`
    }
  </div>`;
}

function userTable(tr: Translator, view: UsersView): SafeHtml {
  const admin = isAdmin(view.user);
  const h = {
    email: tr.t('auth.email.label'),
    role: tr.t('users.add.role.label'),
    added: tr.t('users.table.added'),
    newLeads: tr.t('users.table.newLeadEmails'),
    actions: tr.t('users.table.actions'),
  };
  return html`<table class="list">
  <thead><tr><th scope="col">${h.email}</th><th scope="col">${h.role}</th><th scope="col">${h.added}</th><th scope="col">${h.newLeads}</th>${
    admin ? html`<th scope="col"><span class="visually-hidden">${h.actions}</span></th>` : ''
  }</tr></thead>
  <tbody>${view.users.map(
    (u) => html`<tr>
    <td data-label="${h.email}" class="cell-title">${u.email}${u.id === view.user.userId ? html` <span class="muted">${tr.t('users.you')}</span>` : ''}${
      u.name ? html`<span class="sub">${u.name}</span>` : ''
    }</td>
    <td data-label="${h.role}">${tr.t(ROLE_NAMES[u.role])}</td>
    <td data-label="${h.added}">${time(u.createdAt)}</td>
    <td data-label="${h.newLeads}">${newLeadEmailsCell(tr, view.user, u)}</td>
    ${admin ? html`<td data-label="${h.actions}">${userActions(tr, view.user, u)}</td>` : ''}
  </tr>`,
  )}</tbody>
</table>`;
}

function inviteTable(tr: Translator, view: UsersView): SafeHtml | '' {
  // Open invitations are the admins' business: the route gives a member's page none.
  if (!view.invites.length) return '';
  const h = {
    email: tr.t('auth.email.label'),
    role: tr.t('users.add.role.label'),
    invitedBy: tr.t('users.invites.invitedBy'),
    expires: tr.t('users.invites.expires'),
    actions: tr.t('users.table.actions'),
  };
  const hidden = (inner: SafeHtml) => html`<span class="visually-hidden">${inner}</span>`;
  return html`<section aria-labelledby="invites-title">
  <h2 id="invites-title">${tr.t('users.invites.title')}</h2>
  <table class="list">
    <thead><tr><th scope="col">${h.email}</th><th scope="col">${h.role}</th><th scope="col">${h.invitedBy}</th><th scope="col">${h.expires}</th><th scope="col"><span class="visually-hidden">${h.actions}</span></th></tr></thead>
    <tbody>${view.invites.map(
      (invite) => html`<tr>
      <td data-label="${h.email}" class="cell-title">${invite.email}</td>
      <td data-label="${h.role}">${tr.t(ROLE_NAMES[invite.role])}</td>
      <td data-label="${h.invitedBy}">${invite.invitedBy}</td>
      <td data-label="${h.expires}">${time(invite.expiresAt)}</td>
      <td data-label="${h.actions}"><form method="post" action="/dashboard/settings/users/invites/${invite.id}/withdraw" data-confirm="${tr.t('users.invites.withdraw.confirm', { email: invite.email })}">
        ${csrfField(view.user.csrfToken)}
        <button type="submit" class="button button-danger-quiet">${richText(tr, 'users.invites.withdraw', { email: invite.email, hidden })}</button>
      </form></td>
    </tr>`,
    )}</tbody>
  </table>
</section>`;
}

export function usersPage(view: UsersView): SafeHtml {
  const admin = isAdmin(view.user);
  const tr = translator(view.user.locale);
  return settingsPage(view, {
    title: tr.t('users.title'),
    section: 'users',
    intro: tr.t(admin ? 'users.intro.admin' : 'users.intro.member', { brand: view.user.brandName }),
    body: html`${view.invited ? invitedPanel(tr, view.invited) : ''}
${ownNameForm(tr, view)}
${admin ? addForm(tr, view) : ''}
<section aria-labelledby="people-title">
  <h2 id="people-title">${tr.t('users.people.title')}</h2>
  ${userTable(tr, view)}
</section>
${inviteTable(tr, view)}
${emailSection(tr, view.email)}`,
  });
}

export function removeConfirmPage(user: SessionUser, target: User): SafeHtml {
  const tr = translator(user.locale);
  return page({
    title: tr.t('users.removeConfirm.title', { email: target.email }),
    user,
    section: 'users',
    body: html`<p class="breadcrumb"><a href="/dashboard/settings/users">← ${tr.t('users.title')}</a></p>
<section class="card narrow" aria-labelledby="remove-title">
  <h1 id="remove-title">${tr.t('users.removeConfirm.heading', { email: target.email })}</h1>
  <p>${tr.t('users.removeConfirm.explain')}</p>
  <form method="post" action="/dashboard/settings/users/${target.id}/remove" class="actions">
    ${csrfField(user.csrfToken)}
    <button type="submit" class="button button-danger">${tr.t('users.removeConfirm.title', { email: target.email })}</button>
    <a class="button button-quiet" href="/dashboard/settings/users">${tr.t('users.removeConfirm.keep')}</a>
  </form>
</section>`,
  });
}

/** On reload or Back after inviting someone: the link was on the page once and is not shown again. */
export function inviteShownOnceNotice(tr: Translator, email: string): SafeHtml {
  return notice(tr.t('users.invited.shownOnce', { email }), 'info');
}

/** After inviting someone while email is on: their invitation mail is queued. */
export function inviteEmailedNotice(tr: Translator, email: string): SafeHtml {
  return notice(tr.t('users.invited.emailed', { email }));
}
