// Settings > Your account: who you are signed in as, the language you read lead-intake in, and changing your own
// password.

import { csrfField, errorFor, errorSummary, field } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { settingsPage } from '../../../platform/web/layout.js';
import { richText } from '../../../platform/web/messages.js';
import type { FieldError } from '../../../shared/errors.js';
import { type Locale, translator } from '../../../shared/i18n/index.js';
import type { SessionUser } from '../../sessions.js';
import { isAdmin } from '../../users.js';
import { languageSelect, newPasswordFields, newPasswordLabels } from './auth.js';

export interface AccountView {
  user: SessionUser;
  errors: FieldError[];
  message?: SafeHtml | undefined;
  /** The language form's value and error, when it was just sent with a problem. */
  language?: { value: Locale; error: FieldError | undefined } | undefined;
}

export function accountPage(view: AccountView): SafeHtml {
  const { user, errors } = view;
  const tr = translator(user.locale);
  const labels: Record<string, string> = {
    currentPassword: tr.t('account.currentPassword.label'),
    ...newPasswordLabels(tr),
  };
  const strong = (inner: SafeHtml) => html`<strong>${inner}</strong>`;
  return settingsPage(view, {
    title: tr.t('account.title'),
    section: 'account',
    intro: richText(tr, isAdmin(user) ? 'account.signedInAsAdmin' : 'account.signedInAsMember', {
      email: user.email,
      brand: user.brandName,
      strong,
    }),
    body: html`<section class="card narrow" aria-labelledby="language-title">
  <h2 id="language-title">${tr.t('account.language.title')}</h2>
  <form method="post" action="/dashboard/settings/account/language" novalidate>
    ${csrfField(user.csrfToken)}
    ${languageSelect({
      tr,
      value: view.language?.value ?? user.locale,
      label: tr.t('account.language.label'),
      hint: tr.t('account.language.hint'),
      error: view.language?.error,
    })}
    <button type="submit" class="button button-primary">${tr.t('account.language.submit')}</button>
  </form>
</section>
<section class="card narrow" aria-labelledby="password-title">
  <h2 id="password-title">${tr.t('account.password.title')}</h2>
  <p class="hint">${tr.t('account.password.hint')}</p>
  ${errorSummary(tr, errors, labels)}
  <form method="post" action="/dashboard/settings/account/password" novalidate>
    ${csrfField(user.csrfToken)}
    <input type="hidden" name="email" value="${user.email}" autocomplete="username">
    ${field({
      tr,
      name: 'currentPassword',
      label: labels.currentPassword!,
      type: 'password',
      error: errorFor(errors, 'currentPassword'),
      required: true,
      autocomplete: 'current-password',
    })}
    ${newPasswordFields(tr, errors, newPasswordLabels(tr))}
    <button type="submit" class="button button-primary">${tr.t('account.password.submit')}</button>
  </form>
</section>`,
  });
}
