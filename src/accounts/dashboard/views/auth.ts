// Pages used before sign-in: first-run setup, sign-in, accepting an invitation. They speak the asker's language
// (see requestLocale) and offer the other one.

import {
  csrfField,
  errorFor,
  errorSummary,
  errorText,
  field,
  notice,
} from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { plainPage } from '../../../platform/web/layout.js';
import { languageSwitch, richText } from '../../../platform/web/messages.js';
import type { FieldError } from '../../../shared/errors.js';
import { type Locale, type MessageKey, type Translator, translator } from '../../../shared/i18n/index.js';
import { MIN_PASSWORD_LENGTH } from '../../users.js';

/** Each language by its own name, as people look for it: "Nederlands", "English". */
const LANGUAGE_NAMES: Record<Locale, MessageKey> = { nl: 'language.name.nl', en: 'language.name.en' };

/**
 * A select of the languages (Dutch first), with its label, hint and error: a user's language (setup, invitation,
 * Settings > Your account) or the brand's (Settings > Brand).
 */
export function languageSelect(options: {
  tr: Translator;
  value: Locale;
  label: string;
  hint?: string;
  error?: FieldError | undefined;
  name?: string;
}): SafeHtml {
  const { tr, error } = options;
  const name = options.name ?? 'language';
  const id = `field-${name}`;
  const described = [options.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${error ? ' field-invalid' : ''}">
  <label for="${id}">${options.label}</label>
  ${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ''}
  ${error ? html`<p class="error" id="${id}-error">${errorText(tr, error, options.label)}</p>` : ''}
  <select id="${id}" name="${name}"${described ? html` aria-describedby="${described}"` : ''}${error ? html` aria-invalid="true"` : ''}>
    ${(['nl', 'en'] as const).map(
      (locale) =>
        html`<option value="${locale}" lang="${locale}"${locale === options.value ? html` selected` : ''}>${tr.t(LANGUAGE_NAMES[locale])}</option>`,
    )}
  </select>
</div>`;
}

/**
 * A new password and its confirmation, as set at first-run setup, when accepting an invite, changing one's password
 * ("New password") and resetting it.
 */
export function newPasswordFields(
  tr: Translator,
  errors: FieldError[],
  labels = passwordLabels(tr),
): SafeHtml {
  return html`${field({
    tr,
    name: 'password',
    label: labels.password,
    type: 'password',
    hint: tr.t('auth.password.hint', { min: MIN_PASSWORD_LENGTH }),
    error: errorFor(errors, 'password'),
    required: true,
    autocomplete: 'new-password',
  })}
  ${field({
    tr,
    name: 'passwordConfirmation',
    label: labels.passwordConfirmation,
    type: 'password',
    error: errorFor(errors, 'passwordConfirmation'),
    required: true,
    autocomplete: 'new-password',
  })}`;
}

/** "Password" / "Password again". */
export function passwordLabels(tr: Translator): { password: string; passwordConfirmation: string } {
  return {
    password: tr.t('auth.password.label'),
    passwordConfirmation: tr.t('auth.passwordConfirmation.label'),
  };
}

/** "New password" / "New password again" (changing and resetting a password). */
export function newPasswordLabels(tr: Translator): { password: string; passwordConfirmation: string } {
  return {
    password: tr.t('auth.newPassword.label'),
    passwordConfirmation: tr.t('auth.newPasswordConfirmation.label'),
  };
}

/** The display name colleagues see (assignee, history). */
function nameField(tr: Translator, value: string | undefined, errors: FieldError[]): SafeHtml {
  return field({
    tr,
    name: 'name',
    label: tr.t('auth.yourName.label'),
    value: value ?? '',
    hint: tr.t('auth.yourName.hint'),
    error: errorFor(errors, 'name'),
    autocomplete: 'name',
    attributes: html`maxlength="100"`,
  });
}

export interface SetupView {
  locale: Locale;
  csrfToken: string;
  setupToken: string;
  values: Record<string, string>;
  errors: FieldError[];
}

export function setupPage(view: SetupView): SafeHtml {
  const { values, errors } = view;
  const tr = translator(view.locale);
  const labels: Record<string, string> = {
    brandName: tr.t('setup.brandName.label'),
    country: tr.t('setup.country.label'),
    language: tr.t('setup.language.label'),
    email: tr.t('auth.email.label'),
    name: tr.t('auth.yourName.label'),
    ...passwordLabels(tr),
  };
  const language = values.language === 'nl' || values.language === 'en' ? values.language : view.locale;
  return plainPage(
    view.locale,
    tr.t('setup.title'),
    html`${languageSwitch(tr, `/setup?token=${encodeURIComponent(view.setupToken)}`)}
<h1>${tr.t('setup.heading')}</h1>
<p class="lead-text">${tr.t('setup.intro')}</p>
${errorSummary(tr, errors, labels)}
<form method="post" action="/setup" novalidate>
  ${csrfField(view.csrfToken)}
  <input type="hidden" name="token" value="${view.setupToken}">
  <fieldset>
    <legend>${tr.t('setup.company.legend')}</legend>
    ${field({ tr, name: 'brandName', label: labels.brandName!, value: values.brandName, error: errorFor(errors, 'brandName'), required: true, autocomplete: 'organization' })}
    ${field({
      tr,
      name: 'country',
      label: labels.country!,
      value: values.country ?? 'NL',
      hint: tr.t('setup.country.hint'),
      error: errorFor(errors, 'country'),
      required: true,
      attributes: html`maxlength="2" class="input-short" autocapitalize="characters"`,
    })}
    ${languageSelect({ tr, value: language, label: labels.language!, hint: tr.t('setup.language.hint'), error: errorFor(errors, 'language') })}
  </fieldset>
  <fieldset>
    <legend>${tr.t('setup.account.legend')}</legend>
    ${nameField(tr, values.name, errors)}
    ${field({ tr, name: 'email', label: labels.email!, type: 'email', value: values.email, error: errorFor(errors, 'email'), required: true, autocomplete: 'email' })}
    ${newPasswordFields(tr, errors)}
  </fieldset>
  <button type="submit" class="button button-primary button-wide">${tr.t('setup.submit')}</button>
</form>`,
  );
}

export function setupLinkNeededPage(locale: Locale): SafeHtml {
  const tr = translator(locale);
  return plainPage(
    locale,
    tr.t('setup.title'),
    html`${languageSwitch(tr, '/setup')}
<h1>${tr.t('setup.linkNeeded.heading')}</h1>
<p>${tr.t('setup.linkNeeded.intro')}</p>
<pre class="code">First run: open http://127.0.0.1:3000/setup?token=… to create your brand and owner account.</pre>
<p>${tr.t('setup.linkNeeded.exact')}</p>`,
  );
}

export interface SignInView {
  locale: Locale;
  csrfToken: string;
  email: string;
  next: string | undefined;
  message?: SafeHtml | undefined;
  setupPending: boolean;
  /** Email is on: offer "Forgot your password?" (without email, an admin or the CLI sets a new one). */
  forgotPassword: boolean;
}

export function signInPage(view: SignInView): SafeHtml {
  const tr = translator(view.locale);
  const path = view.next ? `/sign-in?next=${encodeURIComponent(view.next)}` : '/sign-in';
  return plainPage(
    view.locale,
    tr.t('signIn.title'),
    html`${languageSwitch(tr, path)}
<h1>${tr.t('signIn.title')}</h1>
${view.message ?? ''}
${view.setupPending ? notice(tr.t('signIn.setupPending'), 'info') : ''}
<form method="post" action="/sign-in">
  ${csrfField(view.csrfToken)}
  ${view.next ? html`<input type="hidden" name="next" value="${view.next}">` : ''}
  ${field({ tr, name: 'email', label: tr.t('auth.email.label'), type: 'email', value: view.email, required: true, autocomplete: 'username', attributes: view.email ? undefined : html`autofocus` })}
  ${field({ tr, name: 'password', label: tr.t('auth.password.label'), type: 'password', required: true, autocomplete: 'current-password', attributes: view.email ? html`autofocus` : undefined })}
  <button type="submit" class="button button-primary button-wide">${tr.t('signIn.submit')}</button>
</form>
${view.forgotPassword ? html`<p><a href="/forgot-password">${tr.t('signIn.forgotPassword')}</a></p>` : ''}`,
  );
}

export interface InviteView {
  locale: Locale;
  csrfToken: string;
  inviteToken: string;
  email: string;
  brandName: string;
  /** The language chosen, or the brand's. */
  language: Locale;
  name?: string;
  errors: FieldError[];
}

export function invitePage(view: InviteView): SafeHtml {
  const { errors } = view;
  const tr = translator(view.locale);
  const labels: Record<string, string> = {
    name: tr.t('auth.yourName.label'),
    language: tr.t('invite.language.label'),
    ...passwordLabels(tr),
  };
  return plainPage(
    view.locale,
    tr.t('invite.title'),
    html`${languageSwitch(tr, `/invite?token=${encodeURIComponent(view.inviteToken)}`)}
<h1>${tr.t('invite.heading', { brand: view.brandName })}</h1>
<p class="lead-text">${richText(tr, 'invite.intro', { email: view.email, strong: (inner) => html`<strong>${inner}</strong>` })}</p>
${errorSummary(tr, errors, labels)}
<form method="post" action="/invite" novalidate>
  ${csrfField(view.csrfToken)}
  <input type="hidden" name="token" value="${view.inviteToken}">
  <input type="hidden" name="email" value="${view.email}" autocomplete="username">
  ${nameField(tr, view.name, errors)}
  ${languageSelect({ tr, value: view.language, label: labels.language!, hint: tr.t('invite.language.hint'), error: errorFor(errors, 'language') })}
  ${newPasswordFields(tr, errors)}
  <button type="submit" class="button button-primary button-wide">${tr.t('invite.submit')}</button>
</form>`,
  );
}
