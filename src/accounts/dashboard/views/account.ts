// Settings > Your account: who you are signed in as, the language you read lead-intake in, the new-lead email you
// get (every lead, a daily summary, none), and changing your own password.

import { csrfField, errorFor, errorSummary, errorText, field } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { settingsPage } from '../../../platform/web/layout.js';
import { richText } from '../../../platform/web/messages.js';
import type { FieldError } from '../../../shared/errors.js';
import { type Locale, type MessageKey, type Translator, translator } from '../../../shared/i18n/index.js';
import type { FeedLinks, FeedScope } from '../../calendar-feeds.js';
import type { SessionUser } from '../../sessions.js';
import { isAdmin, NEW_LEAD_MAIL_CHOICES, type NewLeadMail } from '../../users.js';
import { languageSelect, newPasswordFields, newPasswordLabels } from './auth.js';
import { NEW_LEAD_MAIL_PATH } from './email.js';

export interface AccountView {
  user: SessionUser;
  errors: FieldError[];
  message?: SafeHtml | undefined;
  /** The language form's value and error, when it was just sent with a problem. */
  language?: { value: Locale; error: FieldError | undefined } | undefined;
  /** The new-lead email they chose, whether email is on, and the form's error when it was just sent wrong. */
  newLeadMail: { value: NewLeadMail; emailOn: boolean; error?: FieldError | undefined };
  /** The addresses of the user's calendar feeds (absent on a page re-shown after a failed form). */
  calendars?: { mine: FeedLinks; brand?: FeedLinks } | undefined;
}

const CHOICE_LABELS: Record<NewLeadMail, MessageKey> = {
  every: 'account.newLeadMail.every',
  daily: 'account.newLeadMail.daily',
  none: 'account.newLeadMail.none',
};

/** The new-lead email card: the three choices as radio buttons, the one they have checked. */
function newLeadMailCard(tr: Translator, user: SessionUser, choice: AccountView['newLeadMail']): SafeHtml {
  const legend = tr.t('account.newLeadMail.legend');
  const error = choice.error;
  return html`<section class="card narrow" id="new-lead-mail" aria-labelledby="new-lead-mail-title">
  <h2 id="new-lead-mail-title">${tr.t('account.newLeadMail.title')}</h2>
  ${choice.emailOn ? '' : html`<p class="hint">${tr.t('account.newLeadMail.emailOff')}</p>`}
  <form method="post" action="${NEW_LEAD_MAIL_PATH}" novalidate>
    ${csrfField(user.csrfToken)}
    <fieldset id="field-newLeadMail" aria-describedby="newLeadMail-hint${error ? ' newLeadMail-error' : ''}"${error ? html` class="field-invalid"` : ''}>
      <legend>${legend}</legend>
      <p class="hint" id="newLeadMail-hint">${tr.t('account.newLeadMail.hint')}</p>
      ${error ? html`<p class="error" id="newLeadMail-error">${errorText(tr, error, legend)}</p>` : ''}
      ${NEW_LEAD_MAIL_CHOICES.map(
        (value) => html`<div class="check">
        <input type="radio" id="newLeadMail-${value}" name="newLeadMail" value="${value}"${choice.value === value ? html` checked` : ''}>
        <label for="newLeadMail-${value}">${tr.t(CHOICE_LABELS[value], { timeZone: user.timeZone })}</label>
      </div>`,
      )}
    </fieldset>
    <button type="submit" class="button button-primary">${tr.t('account.newLeadMail.submit')}</button>
  </form>
</section>`;
}

/** One feed: its two addresses to copy, and "New link". */
function feedBlock(
  tr: Translator,
  csrfToken: string,
  scope: FeedScope,
  label: string,
  links: FeedLinks,
): SafeHtml {
  const id = `calendar-${scope}`;
  return html`<div class="calendar-feed">
  <h3 id="${id}-title">${label}</h3>
  <p><a class="button button-primary" href="${links.webcal}" aria-describedby="${id}-title">${tr.t('account.calendar.open')}</a></p>
  <div class="field">
    <label for="${id}-webcal">${tr.t('account.calendar.subscribe')}</label>
    <input id="${id}-webcal" type="text" readonly value="${links.webcal}">
  </div>
  <div class="field">
    <label for="${id}-url">${tr.t('account.calendar.download')}</label>
    <input id="${id}-url" type="text" readonly value="${links.url}">
  </div>
  <form method="post" action="/dashboard/settings/account/calendar">
    ${csrfField(csrfToken)}
    <input type="hidden" name="feed" value="${scope}">
    <p class="hint" id="${id}-rotate-hint">${tr.t('account.calendar.rotateHint')}</p>
    <button type="submit" class="button" aria-describedby="${id}-title ${id}-rotate-hint">${tr.t('account.calendar.rotate')}</button>
  </form>
</div>`;
}

/** Settings > Your account > Calendar: the feeds of the user's visits and, for an admin, of the brand's. */
function calendarSection(view: AccountView): SafeHtml {
  const { user, calendars } = view;
  if (!calendars) return html``;
  const tr = translator(user.locale);
  return html`<section class="card narrow" aria-labelledby="calendar-title">
  <h2 id="calendar-title">${tr.t('account.calendar.title')}</h2>
  <p class="hint">${tr.t('account.calendar.hint')}</p>
  ${feedBlock(tr, user.csrfToken, 'mine', tr.t('account.calendar.mine'), calendars.mine)}
  ${
    calendars.brand
      ? feedBlock(
          tr,
          user.csrfToken,
          'brand',
          tr.t('account.calendar.brand', { brand: user.brandName }),
          calendars.brand,
        )
      : ''
  }
</section>`;
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
${newLeadMailCard(tr, user, view.newLeadMail)}
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
</section>
${calendarSection(view)}`,
  });
}
