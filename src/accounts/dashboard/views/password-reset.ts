// "Forgot password" (ask for a link by email), the page of the link (choose a new password), and what the page says
// when email is off.

import { csrfField, errorFor, errorSummary, field, notice } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { plainPage } from '../../../platform/web/layout.js';
import type { FieldError } from '../../../shared/errors.js';
import { RESET_LIFETIME_MS } from '../../password-resets.js';
import { newPasswordFields } from './auth.js';

const MINUTES = Math.round(RESET_LIFETIME_MS / 60_000);

export const RESET_SENT =
  'If that address has an account, we have sent a link to it. Check your inbox (and your spam folder).';

export interface ForgotPasswordView {
  csrfToken: string;
  email: string;
  errors: FieldError[];
  message?: SafeHtml | undefined;
}

export function forgotPasswordPage(view: ForgotPasswordView): SafeHtml {
  return plainPage(
    'Forgot password',
    html`<h1>Forgot your password?</h1>
${view.message ?? ''}
<p class="lead-text">Give the email address you sign in with. We mail you a link to choose a new password; it works once, for ${MINUTES} minutes.</p>
${errorSummary(view.errors, { email: 'Email' })}
<form method="post" action="/forgot-password" novalidate>
  ${csrfField(view.csrfToken)}
  ${field({ name: 'email', label: 'Email', type: 'email', value: view.email, error: errorFor(view.errors, 'email'), required: true, autocomplete: 'username', attributes: html`autofocus` })}
  <button type="submit" class="button button-primary button-wide">Send me a link</button>
</form>
<p><a href="/sign-in">Back to sign-in</a></p>`,
  );
}

export function forgotPasswordSentPage(): SafeHtml {
  return plainPage(
    'Forgot password',
    html`<h1>Check your email</h1>
${notice(RESET_SENT, 'info')}
<p>The link works once, for ${MINUTES} minutes. Asking again sends a new link, and the older one stops working.</p>
<p><a href="/sign-in">Back to sign-in</a></p>`,
  );
}

/** Without email there is no link to send: an admin or whoever runs the server sets a new password. */
export function forgotPasswordOffPage(): SafeHtml {
  return plainPage(
    'Forgot password',
    html`<h1>Forgot your password?</h1>
<p>This server does not send email, so it cannot mail you a link.</p>
<p>Ask an admin of your company, or whoever runs lead-intake, to set a new password for you with the command line:</p>
<pre class="code">lead-intake users reset-password --email you@example.com</pre>
<p><a href="/sign-in">Back to sign-in</a></p>`,
  );
}

const RESET_LABELS: Record<string, string> = {
  password: 'New password',
  passwordConfirmation: 'New password again',
};

export interface ResetPasswordView {
  csrfToken: string;
  token: string;
  email: string;
  errors: FieldError[];
}

export function resetPasswordPage(view: ResetPasswordView): SafeHtml {
  const { errors } = view;
  return plainPage(
    'Choose a new password',
    html`<h1>Choose a new password</h1>
<p class="lead-text">For <strong>${view.email}</strong>. Afterwards you are signed out everywhere and sign in with the new password.</p>
${errorSummary(errors, RESET_LABELS)}
<form method="post" action="/reset-password" novalidate>
  ${csrfField(view.csrfToken)}
  <input type="hidden" name="token" value="${view.token}">
  <input type="hidden" name="email" value="${view.email}" autocomplete="username">
  ${newPasswordFields(errors, 'New password')}
  <button type="submit" class="button button-primary button-wide">Set new password</button>
</form>`,
  );
}
