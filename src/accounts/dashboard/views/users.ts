// Settings > Users: the brand's people and their roles; admins add people (with a password or an invitation
// link), make them admin or member, and remove them. Members see the people and switch their own new-lead emails.

import { csrfField, errorFor, errorSummary, field, notice, time } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import type { FieldError } from '../../../shared/errors.js';
import type { Invite } from '../../invites.js';
import type { SessionUser } from '../../sessions.js';
import { isAdmin, type ListedUser, MIN_PASSWORD_LENGTH, type Role, type User } from '../../users.js';
import { type EmailView, emailSection, newLeadEmailsCell } from './email.js';

const LABELS: Record<string, string> = {
  name: 'Name',
  email: 'Email',
  role: 'Role',
  password: 'Initial password',
};

export interface UsersView {
  user: SessionUser;
  users: ListedUser[];
  invites: Invite[];
  email: EmailView;
  invited?: { email: string; url: string } | undefined;
  values: { email: string; role: string; name?: string };
  errors: FieldError[];
  /** The "Your name" form's value and error, when it was just sent with a problem. */
  ownName?: { value: string; error: string } | undefined;
  message?: SafeHtml | undefined;
}

/** What people read for each stored role: 'owner' is shown as Admin. */
const ROLE_NAMES: Record<Role, string> = { owner: 'Admin', member: 'Member' };

const ROLE_TEXT: Record<Role, string> = {
  owner: 'Admin: API keys, webhooks, website forms, people and settings, and everything a member does.',
  member: 'Member: leads, work items and customers.',
};

function addForm(view: UsersView): SafeHtml {
  const { values, errors } = view;
  const roleError = errorFor(errors, 'role');
  return html`<section class="card" aria-labelledby="add-title">
  <h2 id="add-title">Add a person</h2>
  ${errorSummary(errors, LABELS)}
  <form method="post" action="/dashboard/settings/users" novalidate>
    ${csrfField(view.user.csrfToken)}
    ${field({ name: 'email', label: 'Email', type: 'email', value: values.email, error: errorFor(errors, 'email'), required: true, autocomplete: 'off' })}
    ${field({ name: 'name', label: 'Name', value: values.name ?? '', hint: 'How colleagues see them on visits. With an invitation they enter it themselves.', error: errorFor(errors, 'name'), autocomplete: 'off', attributes: html`maxlength="100"` })}
    <fieldset id="field-role"${roleError ? html` class="field-invalid" aria-describedby="role-error"` : ''}>
      <legend>Role</legend>
      ${roleError ? html`<p class="error" id="role-error">Role ${roleError}.</p>` : ''}
      ${(['member', 'owner'] as const).map(
        (role) => html`<div class="check">
        <input type="radio" id="role-${role}" name="role" value="${role}"${(values.role || 'member') === role ? html` checked` : ''}>
        <label for="role-${role}">${ROLE_TEXT[role]}</label>
      </div>`,
      )}
    </fieldset>
    ${field({
      name: 'password',
      label: 'Initial password',
      type: 'password',
      hint: `Leave empty to get a one-time invitation link instead, so they choose their own. Otherwise at least ${MIN_PASSWORD_LENGTH} characters; tell it to them in person.`,
      error: errorFor(errors, 'password'),
      autocomplete: 'new-password',
    })}
    <button type="submit" class="button button-primary">Add person</button>
  </form>
</section>`;
}

/** Each person sets their own display name. */
function ownNameForm(view: UsersView): SafeHtml {
  const me = view.users.find((u) => u.id === view.user.userId);
  const value = view.ownName?.value ?? me?.name ?? '';
  return html`<section class="card" aria-labelledby="own-name-title">
  <h2 id="own-name-title">Your name</h2>
  <form method="post" action="/dashboard/settings/users/me/name" class="inline-form" novalidate>
    ${csrfField(view.user.csrfToken)}
    ${field({ name: 'ownName', label: 'Your name', value, hint: 'Shown to colleagues on visits and in the history; empty: your email is shown.', error: view.ownName?.error, autocomplete: 'name', attributes: html`maxlength="100"` })}
    <button type="submit" class="button">Save name</button>
  </form>
</section>`;
}

function invitedPanel(invited: { email: string; url: string }): SafeHtml {
  return html`<section class="card card-highlight" aria-labelledby="invite-title">
  <h2 id="invite-title">Invitation link for ${invited.email}</h2>
  <p class="warning-text"><strong>Send this link to them now. You will not see it again.</strong> It works once, for 7 days.</p>
  <div class="copy-row">
    <label class="visually-hidden" for="invite-link">Invitation link</label>
    <input id="invite-link" class="mono" type="text" value="${invited.url}" readonly autofocus spellcheck="false">
    <button type="button" class="button button-primary" data-copy="invite-link" hidden>Copy</button>
    <span class="visually-hidden" role="status" data-copy-status="invite-link"></span>
  </div>
</section>`;
}

/** An admin's buttons for one person: make admin or member, and remove (not themselves). */
function userActions(viewer: SessionUser, person: ListedUser): SafeHtml {
  const self = person.id === viewer.userId;
  const next: Role = person.role === 'owner' ? 'member' : 'owner';
  const confirm = self
    ? html` data-confirm="Make yourself a member? You can no longer manage API keys, webhooks, forms or people."`
    : '';
  return html`<div class="actions">
    <form method="post" action="/dashboard/settings/users/${person.id}/role"${confirm}>
      ${csrfField(viewer.csrfToken)}
      <input type="hidden" name="role" value="${next}">
      <button type="submit" class="button button-quiet">Make ${next === 'owner' ? 'admin' : 'member'}<span class="visually-hidden"> ${person.email}</span></button>
    </form>${
      self
        ? ''
        : html`
    <a class="button button-danger-quiet" href="/dashboard/settings/users/${person.id}/remove">Remove<span class="visually-hidden"> ${person.email}</span></a>`
    }
  </div>`;
}

function userTable(view: UsersView): SafeHtml {
  const admin = isAdmin(view.user);
  return html`<table class="list">
  <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Added</th><th scope="col">Email me new leads</th>${
    admin ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''
  }</tr></thead>
  <tbody>${view.users.map(
    (u) => html`<tr>
    <td data-label="Email" class="cell-title">${u.email}${u.id === view.user.userId ? html` <span class="muted">(you)</span>` : ''}${
      u.name ? html`<span class="sub">${u.name}</span>` : ''
    }</td>
    <td data-label="Role">${ROLE_NAMES[u.role]}</td>
    <td data-label="Added">${time(u.createdAt)}</td>
    <td data-label="Email me new leads">${newLeadEmailsCell(view.user, u)}</td>
    ${admin ? html`<td data-label="Actions">${userActions(view.user, u)}</td>` : ''}
  </tr>`,
  )}</tbody>
</table>`;
}

function inviteTable(view: UsersView): SafeHtml | '' {
  // Open invitations are the admins' business: the route gives a member's page none.
  if (!view.invites.length) return '';
  return html`<section aria-labelledby="invites-title">
  <h2 id="invites-title">Open invitations</h2>
  <table class="list">
    <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Invited by</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${view.invites.map(
      (invite) => html`<tr>
      <td data-label="Email" class="cell-title">${invite.email}</td>
      <td data-label="Role">${ROLE_NAMES[invite.role]}</td>
      <td data-label="Invited by">${invite.invitedBy}</td>
      <td data-label="Expires">${time(invite.expiresAt)}</td>
      <td data-label="Actions"><form method="post" action="/dashboard/settings/users/invites/${invite.id}/withdraw" data-confirm="Withdraw the invitation for ${invite.email}? The link stops working.">
        ${csrfField(view.user.csrfToken)}
        <button type="submit" class="button button-danger-quiet">Withdraw<span class="visually-hidden"> invitation for ${invite.email}</span></button>
      </form></td>
    </tr>`,
    )}</tbody>
  </table>
</section>`;
}

export function usersPage(view: UsersView): SafeHtml {
  const admin = isAdmin(view.user);
  return page({
    title: 'Users',
    user: view.user,
    section: 'users',
    body: html`<div class="page-head">
  <h1>Users</h1>
  <p class="muted">People who can sign in to ${view.user.brandName}. Admins manage API keys, webhooks, website forms, people and settings; members work with leads, work items and customers.${admin ? '' : ' Admins add, change and remove people.'}</p>
</div>
${view.message ?? ''}
${view.invited ? invitedPanel(view.invited) : ''}
${ownNameForm(view)}
${admin ? addForm(view) : ''}
<section aria-labelledby="people-title">
  <h2 id="people-title">People</h2>
  ${userTable(view)}
</section>
${inviteTable(view)}
${emailSection(view.email)}`,
  });
}

export function removeConfirmPage(user: SessionUser, target: User): SafeHtml {
  return page({
    title: `Remove ${target.email}`,
    user,
    section: 'users',
    body: html`<p class="breadcrumb"><a href="/dashboard/settings/users">← Users</a></p>
<section class="card narrow" aria-labelledby="remove-title">
  <h1 id="remove-title">Remove ${target.email}?</h1>
  <p>They are signed out at once and can no longer sign in. Leads, work items and API keys stay as they are.</p>
  <form method="post" action="/dashboard/settings/users/${target.id}/remove" class="actions">
    ${csrfField(user.csrfToken)}
    <button type="submit" class="button button-danger">Remove ${target.email}</button>
    <a class="button button-quiet" href="/dashboard/settings/users">Keep them</a>
  </form>
</section>`,
  });
}

/** On reload or Back after inviting someone: the link was on the page once and is not shown again. */
export function inviteShownOnceNotice(email: string): SafeHtml {
  return notice(
    html`The invitation for ${email} is created. Its link was shown once and is not shown again: if you did not send it, withdraw the invitation and add them again.`,
    'info',
  );
}
