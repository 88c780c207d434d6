// Settings > Your account: who you are signed in as, and changing your own password.

import { csrfField, errorFor, errorSummary, field } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import type { FieldError } from '../../../shared/errors.js';
import type { SessionUser } from '../../sessions.js';
import { isAdmin } from '../../users.js';
import { newPasswordFields } from './auth.js';

const LABELS: Record<string, string> = {
  currentPassword: 'Current password',
  password: 'New password',
  passwordConfirmation: 'New password again',
};

export interface AccountView {
  user: SessionUser;
  errors: FieldError[];
  message?: SafeHtml | undefined;
}

export function accountPage(view: AccountView): SafeHtml {
  const { user, errors } = view;
  return page({
    title: 'Your account',
    user,
    section: 'account',
    body: html`<div class="page-head">
  <h1>Your account</h1>
  <p class="muted">You are signed in as <strong>${user.email}</strong>, ${isAdmin(user) ? 'an admin' : 'a member'} of ${user.brandName}.</p>
</div>
${view.message ?? ''}
<section class="card narrow" aria-labelledby="password-title">
  <h2 id="password-title">Change your password</h2>
  <p class="hint">You stay signed in here; everywhere else you are signed out.</p>
  ${errorSummary(errors, LABELS)}
  <form method="post" action="/dashboard/settings/account/password" novalidate>
    ${csrfField(user.csrfToken)}
    <input type="hidden" name="email" value="${user.email}" autocomplete="username">
    ${field({
      name: 'currentPassword',
      label: 'Current password',
      type: 'password',
      error: errorFor(errors, 'currentPassword'),
      required: true,
      autocomplete: 'current-password',
    })}
    ${newPasswordFields(errors, 'New password')}
    <button type="submit" class="button button-primary">Change password</button>
  </form>
</section>`,
  });
}
