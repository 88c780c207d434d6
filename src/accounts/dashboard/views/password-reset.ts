// "Forgot password" (ask for a link by email), the page of the link (choose a new password), and what the page says
// when email is off. Pages before sign-in: in the asker's language, with the switch to the other.

import { csrfField, errorFor, errorSummary, field, notice } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { plainPage } from '../../../platform/web/layout.js';
import { languageSwitch, richText } from '../../../platform/web/messages.js';
import type { FieldError } from '../../../shared/errors.js';
import { type Locale, translator } from '../../../shared/i18n/index.js';
import { RESET_LIFETIME_MS } from '../../password-resets.js';
import { newPasswordFields, newPasswordLabels } from './auth.js';

const MINUTES = Math.round(RESET_LIFETIME_MS / 60_000);

export interface ForgotPasswordView {
  locale: Locale;
  csrfToken: string;
  email: string;
  errors: FieldError[];
  message?: SafeHtml | undefined;
}

export function forgotPasswordPage(view: ForgotPasswordView): SafeHtml {
  const tr = translator(view.locale);
  const email = tr.t('auth.email.label');
  return plainPage(
    view.locale,
    tr.t('forgotPassword.title'),
    html`${languageSwitch(tr, '/forgot-password')}
<h1>${tr.t('forgotPassword.heading')}</h1>
${view.message ?? ''}
<p class="lead-text">${tr.t('forgotPassword.intro', { minutes: MINUTES })}</p>
${errorSummary(tr, view.errors, { email })}
<form method="post" action="/forgot-password" novalidate>
  ${csrfField(view.csrfToken)}
  ${field({ tr, name: 'email', label: email, type: 'email', value: view.email, error: errorFor(view.errors, 'email'), required: true, autocomplete: 'username', attributes: html`autofocus` })}
  <button type="submit" class="button button-primary button-wide">${tr.t('forgotPassword.submit')}</button>
</form>
<p><a href="/sign-in">${tr.t('forgotPassword.backToSignIn')}</a></p>`,
  );
}

export function forgotPasswordSentPage(locale: Locale): SafeHtml {
  const tr = translator(locale);
  return plainPage(
    locale,
    tr.t('forgotPassword.title'),
    html`${languageSwitch(tr, '/forgot-password?sent=1')}
<h1>${tr.t('forgotPassword.sent.heading')}</h1>
${notice(tr.t('forgotPassword.sent.notice'), 'info')}
<p>${tr.t('forgotPassword.sent.lifetime', { minutes: MINUTES })}</p>
<p><a href="/sign-in">${tr.t('forgotPassword.backToSignIn')}</a></p>`,
  );
}

/** Without email there is no link to send: an admin or whoever runs the server sets a new password. */
export function forgotPasswordOffPage(locale: Locale): SafeHtml {
  const tr = translator(locale);
  return plainPage(
    locale,
    tr.t('forgotPassword.title'),
    html`${languageSwitch(tr, '/forgot-password')}
<h1>${tr.t('forgotPassword.heading')}</h1>
<p>${tr.t('forgotPassword.off.noMail')}</p>
<p>${tr.t('forgotPassword.off.askAdmin')}</p>
<pre class="code">lead-intake users reset-password --email you@example.com</pre>
<p><a href="/sign-in">${tr.t('forgotPassword.backToSignIn')}</a></p>`,
  );
}

export interface ResetPasswordView {
  locale: Locale;
  csrfToken: string;
  token: string;
  email: string;
  errors: FieldError[];
}

export function resetPasswordPage(view: ResetPasswordView): SafeHtml {
  const { errors } = view;
  const tr = translator(view.locale);
  const labels = newPasswordLabels(tr);
  return plainPage(
    view.locale,
    tr.t('resetPassword.title'),
    html`${languageSwitch(tr, `/reset-password?token=${encodeURIComponent(view.token)}`)}
<h1>${tr.t('resetPassword.title')}</h1>
<p class="lead-text">${richText(tr, 'resetPassword.intro', { email: view.email, strong: (inner) => html`<strong>${inner}</strong>` })}</p>
${errorSummary(tr, errors, labels)}
<form method="post" action="/reset-password" novalidate>
  ${csrfField(view.csrfToken)}
  <input type="hidden" name="token" value="${view.token}">
  <input type="hidden" name="email" value="${view.email}" autocomplete="username">
  ${newPasswordFields(tr, errors, labels)}
  <button type="submit" class="button button-primary button-wide">${tr.t('resetPassword.submit')}</button>
</form>`,
  );
}
