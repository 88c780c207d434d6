// Settings > Brand (admins): the brand's name, country, mail sender name and default priority; its time zone, which
// the dashboard shows and takes every time in, and its language, which its new people, website forms and customer
// mails start with; retention; and the service's backups (last success or failure).

import type { BackupStatus } from '../../../platform/backup/schedule.js';
import { csrfField, errorFor, errorSummary, errorText } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { settingsPage } from '../../../platform/web/layout.js';
import { countryChoices } from '../../../shared/countries.js';
import type { FieldError } from '../../../shared/errors.js';
import { isLocale, type MessageKey, type Translator, translator } from '../../../shared/i18n/index.js';
import { PRIORITIES, type Priority } from '../../../shared/priorities.js';
import { timeZoneNames } from '../../../shared/time-zones.js';
import { MAX_SENDER_NAME, RETENTION_CHOICES } from '../../brands.js';
import type { SessionUser } from '../../sessions.js';
import { languageSelect } from './auth.js';
import { visitNoticesSection } from './visit-notices.js';

/** What the fields show: the brand's settings, or what was just sent. */
export interface BrandValues {
  name: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  timeZone: string;
  language: string;
  /** Empty: the brand's name is the sender. */
  mailSenderName: string;
  defaultPriority: string;
}

export interface BrandSettingsView {
  user: SessionUser;
  values: BrandValues;
  errors: FieldError[];
  message?: SafeHtml | undefined;
  /** The service's backups, as BACKUP_DIR shows them. */
  backups: BackupStatus;
  /** Retention: the months shown selected, and what the next run would erase (null: off). */
  retention: { months: number | null; next: { cutoff: number; leads: number } | null };
  /** Customers' visit notices on (views/visit-notices.ts); absent: the card is not shown. */
  visitNotices?: boolean | undefined;
}

/** Settings > Brand's retention card: the period, and what the next run will do. */
function retentionSection(view: BrandSettingsView, tr: Translator): SafeHtml {
  const { months, next } = view.retention;
  const error = errorFor(view.errors, 'retentionMonths');
  const label = tr.t('brand.retention.label');
  const line = next
    ? tr.t('brand.retention.next', { count: next.leads, date: tr.date(next.cutoff, view.user.timeZone) })
    : tr.t('brand.retention.nextOff');
  return html`<section class="card" aria-labelledby="retention-title" id="retention">
  <h2 id="retention-title">${tr.t('brand.retention.title')}</h2>
  <p class="muted">${tr.t('brand.retention.intro')}</p>
  <form method="post" action="/dashboard/settings/brand" novalidate>
    ${csrfField(view.user.csrfToken)}
    <div class="field${error ? ' field-invalid' : ''}">
      <label for="field-retentionMonths">${label}</label>
      ${error ? html`<p class="error" id="field-retentionMonths-error">${errorText(tr, error, label)}</p>` : ''}
      <select id="field-retentionMonths" name="retentionMonths"${error ? html` aria-invalid="true" aria-describedby="field-retentionMonths-error"` : ''}>
        <option value="off"${months === null ? html` selected` : ''}>${tr.t('brand.retention.off')}</option>
        ${RETENTION_CHOICES.map((m) => html`<option value="${m}"${m === months ? html` selected` : ''}>${tr.t('brand.retention.months', { months: m })}</option>`)}
      </select>
    </div>
    <p data-retention-next>${line}</p>
    <button type="submit" class="button button-primary">${tr.t('brand.save')}</button>
  </form>
</section>`;
}

function size(tr: Translator, bytes: number): string {
  return bytes < 1024 * 1024
    ? `${tr.number(Math.max(1, Math.round(bytes / 1024)))} KB`
    : `${tr.number(Math.round((bytes / 1024 / 1024) * 10) / 10)} MB`;
}

/** Settings > Brand's Backups card: the schedule, the last success and a failure since (or why there are none). */
export function backupsSection(tr: Translator, status: BackupStatus, zone: string): SafeHtml {
  let body: SafeHtml;
  if (status.disabled === 'postgres') body = html`<p>${tr.t('brand.backups.postgres')}</p>`;
  else if (status.disabled === 'memory') body = html`<p>${tr.t('brand.backups.memory')}</p>`;
  else {
    const schedule =
      status.disabled === 'off'
        ? tr.t('brand.backups.off')
        : status.intervalMinutes % 60 === 0
          ? tr.t('brand.backups.scheduleHours', {
              hours: status.intervalMinutes / 60,
              dir: status.dir,
              keep: status.keep,
            })
          : tr.t('brand.backups.scheduleMinutes', {
              minutes: status.intervalMinutes,
              dir: status.dir,
              keep: status.keep,
            });
    const last = status.lastSuccess;
    const failure = status.lastFailure;
    body = html`<p class="muted">${tr.t('brand.backups.intro')}</p>
  <p>${schedule}</p>
  <p data-backup-last-success>${
    last
      ? tr.t('brand.backups.lastSuccess', { time: tr.dateTime(last.at, zone), size: size(tr, last.bytes) })
      : tr.t('brand.backups.none')
  }</p>
  ${
    failure
      ? html`<p class="error" role="alert" data-backup-failure>${tr.t('brand.backups.failed', { time: tr.dateTime(failure.at, zone), message: failure.message })}</p>`
      : ''
  }`;
  }
  return html`<section class="card" aria-labelledby="backups-title">
  <h2 id="backups-title">${tr.t('brand.backups.title')}</h2>
  ${body}
</section>`;
}

const PRIORITY_KEYS: Record<Priority, MessageKey> = {
  low: 'lead.priority.low',
  medium: 'lead.priority.medium',
  high: 'lead.priority.high',
  urgent: 'lead.priority.urgent',
};

/** One labelled field with its hint and error; `control` gets the describedby and invalid attributes. */
function field(
  tr: Translator,
  view: BrandSettingsView,
  name: string,
  label: string,
  hint: string | null,
  control: (attributes: SafeHtml) => SafeHtml,
): SafeHtml {
  const error = errorFor(view.errors, name);
  const id = `field-${name}`;
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const attributes = html`id="${id}" name="${name}"${described ? html` aria-describedby="${described}"` : ''}${error ? html` aria-invalid="true"` : ''}`;
  return html`<div class="field${error ? ' field-invalid' : ''}">
      <label for="${id}">${label}</label>
      ${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
      ${error ? html`<p class="error" id="${id}-error">${errorText(tr, error, label)}</p>` : ''}
      ${control(attributes)}
    </div>`;
}

/** Settings > Brand's first card: what customers and the office see of the business. */
function companySection(view: BrandSettingsView, tr: Translator, labels: Record<string, string>): SafeHtml {
  const { values } = view;
  const countries = countryChoices(view.user.locale);
  const knownCountry = countries.some(([code]) => code === values.country);
  return html`<section class="card" aria-labelledby="company-title">
  <h2 id="company-title">${tr.t('brand.company.title')}</h2>
  <form method="post" action="/dashboard/settings/brand" novalidate>
    ${csrfField(view.user.csrfToken)}
    ${field(tr, view, 'name', labels.name!, tr.t('brand.name.hint'), (a) => html`<input ${a} type="text" value="${values.name}" maxlength="200" autocomplete="organization" required>`)}
    ${field(
      tr,
      view,
      'country',
      labels.country!,
      tr.t('brand.country.hint'),
      (a) => html`<select ${a} autocomplete="country">
        ${knownCountry ? '' : html`<option value="${values.country}" selected>${values.country}</option>`}
        ${countries.map(([code, name]) => html`<option value="${code}"${code === values.country ? html` selected` : ''}>${name}</option>`)}
      </select>`,
    )}
    ${field(tr, view, 'mailSenderName', labels.mailSenderName!, tr.t('brand.mailSenderName.hint', { brand: values.name }), (a) => html`<input ${a} type="text" value="${values.mailSenderName}" maxlength="${MAX_SENDER_NAME}" placeholder="${values.name}">`)}
    ${field(
      tr,
      view,
      'defaultPriority',
      labels.defaultPriority!,
      tr.t('brand.defaultPriority.hint'),
      (a) => html`<select ${a}>
        ${PRIORITIES.map((p) => html`<option value="${p}"${p === values.defaultPriority ? html` selected` : ''}>${tr.t(PRIORITY_KEYS[p])}</option>`)}
      </select>`,
    )}
    <button type="submit" class="button button-primary">${tr.t('brand.save')}</button>
  </form>
</section>`;
}

export function brandSettingsPage(view: BrandSettingsView): SafeHtml {
  const tr = translator(view.user.locale);
  const error = errorFor(view.errors, 'timeZone');
  const names = timeZoneNames();
  const { timeZone } = view.values;
  const known = names.includes(timeZone);
  const labels = {
    name: tr.t('brand.name.label'),
    country: tr.t('brand.country.label'),
    mailSenderName: tr.t('brand.mailSenderName.label'),
    defaultPriority: tr.t('brand.defaultPriority.label'),
    timeZone: tr.t('brand.timeZone.label'),
    language: tr.t('brand.language.label'),
    retentionMonths: tr.t('brand.retention.label'),
  };
  return settingsPage(view, {
    title: tr.t('brand.title'),
    section: 'brand',
    intro: tr.t('brand.intro', { brand: view.user.brandName }),
    body: html`${errorSummary(tr, view.errors, labels)}
${companySection(view, tr, labels)}
<section class="card" aria-labelledby="zone-title">
  <h2 id="zone-title">${labels.timeZone}</h2>
  <p class="muted">${tr.t('brand.timeZone.intro', { now: tr.dateTime(new Date(), view.user.timeZone) })}</p>
  <form method="post" action="/dashboard/settings/brand" novalidate>
    ${csrfField(view.user.csrfToken)}
    <div class="field${error ? ' field-invalid' : ''}">
      <label for="field-timeZone">${labels.timeZone}</label>
      ${error ? html`<p class="error" id="field-timeZone-error">${errorText(tr, error, labels.timeZone)}</p>` : ''}
      <select id="field-timeZone" name="timeZone"${error ? html` aria-invalid="true" aria-describedby="field-timeZone-error"` : ''}>
        ${known ? '' : html`<option value="${timeZone}" selected>${timeZone}</option>`}
        ${names.map((name) => html`<option value="${name}"${name === timeZone ? html` selected` : ''}>${name}</option>`)}
      </select>
    </div>
    <button type="submit" class="button button-primary">${tr.t('brand.save')}</button>
  </form>
</section>
<section class="card" aria-labelledby="language-title">
  <h2 id="language-title">${labels.language}</h2>
  <form method="post" action="/dashboard/settings/brand" novalidate>
    ${csrfField(view.user.csrfToken)}
    ${languageSelect({ tr, value: isLocale(view.values.language) ? view.values.language : view.user.locale, label: labels.language, hint: tr.t('brand.language.hint'), error: errorFor(view.errors, 'language') })}
    <button type="submit" class="button button-primary">${tr.t('brand.save')}</button>
  </form>
</section>
${retentionSection(view, tr)}
${view.visitNotices === undefined ? '' : visitNoticesSection(tr, view.user.csrfToken, view.visitNotices)}
${backupsSection(tr, view.backups, view.user.timeZone)}`,
  });
}
