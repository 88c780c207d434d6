// Pages used before sign-in: first-run setup, sign-in, accepting an invitation.

import { csrfField, errorFor, errorSummary, field, notice } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { plainPage } from '../../../platform/web/layout.js';
import type { FieldError } from '../../../shared/errors.js';
import { MIN_PASSWORD_LENGTH } from '../../users.js';

/**
 * A new password and its confirmation, as set at first-run setup, when accepting an invite, changing one's password
 * ("New password") and resetting it.
 */
export function newPasswordFields(errors: FieldError[], label = 'Password'): SafeHtml {
  return html`${field({
    name: 'password',
    label,
    type: 'password',
    hint: `At least ${MIN_PASSWORD_LENGTH} characters. A few uncommon words work well; common passwords are refused.`,
    error: errorFor(errors, 'password'),
    required: true,
    autocomplete: 'new-password',
  })}
  ${field({
    name: 'passwordConfirmation',
    label: `${label} again`,
    type: 'password',
    error: errorFor(errors, 'passwordConfirmation'),
    required: true,
    autocomplete: 'new-password',
  })}`;
}

const SETUP_LABELS: Record<string, string> = {
  brandName: 'Company name',
  country: 'Country',
  email: 'Email',
  name: 'Your name',
  password: 'Password',
  passwordConfirmation: 'Password again',
};

/** The display name colleagues see (assignee, history). */
function nameField(value: string | undefined, errors: FieldError[]): SafeHtml {
  return field({
    name: 'name',
    label: 'Your name',
    value: value ?? '',
    hint: 'As colleagues see it on visits and in the history. Leave empty to be shown by your email.',
    error: errorFor(errors, 'name'),
    autocomplete: 'name',
    attributes: html`maxlength="100"`,
  });
}

export interface SetupView {
  csrfToken: string;
  setupToken: string;
  values: Record<string, string>;
  errors: FieldError[];
}

export function setupPage(view: SetupView): SafeHtml {
  const { values, errors } = view;
  return plainPage(
    'Set up',
    html`<h1>Welcome to lead-intake</h1>
<p class="lead-text">Create your company and your owner account. This page works once: after this, people sign in.</p>
${errorSummary(errors, SETUP_LABELS)}
<form method="post" action="/setup" novalidate>
  ${csrfField(view.csrfToken)}
  <input type="hidden" name="token" value="${view.setupToken}">
  <fieldset>
    <legend>Your company</legend>
    ${field({ name: 'brandName', label: 'Company name', value: values.brandName, error: errorFor(errors, 'brandName'), required: true, autocomplete: 'organization' })}
    ${field({
      name: 'country',
      label: 'Country',
      value: values.country ?? 'NL',
      hint: 'Two-letter code (NL, BE, DE, GB, …): used for addresses sent without a country.',
      error: errorFor(errors, 'country'),
      required: true,
      attributes: html`maxlength="2" class="input-short" autocapitalize="characters"`,
    })}
  </fieldset>
  <fieldset>
    <legend>Your account</legend>
    ${nameField(values.name, errors)}
    ${field({ name: 'email', label: 'Email', type: 'email', value: values.email, error: errorFor(errors, 'email'), required: true, autocomplete: 'email' })}
    ${newPasswordFields(errors)}
  </fieldset>
  <button type="submit" class="button button-primary button-wide">Create company and account</button>
</form>`,
  );
}

export function setupLinkNeededPage(): SafeHtml {
  return plainPage(
    'Set up',
    html`<h1>Open the setup link</h1>
<p>lead-intake has no account yet. When the server started it printed a one-time setup link to its log, like this:</p>
<pre class="code">First run: open http://127.0.0.1:3000/setup?token=… to create your brand and owner account.</pre>
<p>Open that exact link. Restarting the server prints a fresh one.</p>`,
  );
}

export interface SignInView {
  csrfToken: string;
  email: string;
  next: string | undefined;
  message?: SafeHtml | undefined;
  setupPending: boolean;
  /** Email is on: offer "Forgot your password?" (without email, an admin or the CLI sets a new one). */
  forgotPassword: boolean;
}

export function signInPage(view: SignInView): SafeHtml {
  return plainPage(
    'Sign in',
    html`<h1>Sign in</h1>
${view.message ?? ''}
${view.setupPending ? notice(html`No account exists yet. Open the setup link from the server log to create the first one.`, 'info') : ''}
<form method="post" action="/sign-in">
  ${csrfField(view.csrfToken)}
  ${view.next ? html`<input type="hidden" name="next" value="${view.next}">` : ''}
  ${field({ name: 'email', label: 'Email', type: 'email', value: view.email, required: true, autocomplete: 'username', attributes: view.email ? undefined : html`autofocus` })}
  ${field({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password', attributes: view.email ? html`autofocus` : undefined })}
  <button type="submit" class="button button-primary button-wide">Sign in</button>
</form>
${view.forgotPassword ? html`<p><a href="/forgot-password">Forgot your password?</a></p>` : ''}`,
  );
}

const INVITE_LABELS: Record<string, string> = {
  name: 'Your name',
  password: 'Password',
  passwordConfirmation: 'Password again',
};

export interface InviteView {
  csrfToken: string;
  inviteToken: string;
  email: string;
  brandName: string;
  name?: string;
  errors: FieldError[];
}

export function invitePage(view: InviteView): SafeHtml {
  const { errors } = view;
  return plainPage(
    'Join',
    html`<h1>Join ${view.brandName}</h1>
<p class="lead-text">You were invited as <strong>${view.email}</strong>. Choose a password to finish.</p>
${errorSummary(errors, INVITE_LABELS)}
<form method="post" action="/invite" novalidate>
  ${csrfField(view.csrfToken)}
  <input type="hidden" name="token" value="${view.inviteToken}">
  <input type="hidden" name="email" value="${view.email}" autocomplete="username">
  ${nameField(view.name, errors)}
  ${newPasswordFields(errors)}
  <button type="submit" class="button button-primary button-wide">Create my account</button>
</form>`,
  );
}
