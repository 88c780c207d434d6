// Settings > Brand (admins): the brand's time zone, which the dashboard shows and takes every time in, and its
// language, which its new people and website forms start with; and the service's backups (last success or failure).

import type { BackupStatus } from '../../../platform/backup/schedule.js';
import { csrfField, errorFor, errorSummary, errorText } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { settingsPage } from '../../../platform/web/layout.js';
import type { FieldError } from '../../../shared/errors.js';
import { type Locale, type Translator, translator } from '../../../shared/i18n/index.js';
import { timeZoneNames } from '../../../shared/time-zones.js';
import { RETENTION_CHOICES } from '../../brands.js';
import type { SessionUser } from '../../sessions.js';
import { languageSelect } from './auth.js';
import { visitNoticesSection } from './visit-notices.js';

export interface BrandSettingsView {
  user: SessionUser;
  /** The zone shown selected: the brand's, or what was just sent. */
  timeZone: string;
  /** The language shown selected: the brand's, or what was just sent. */
  language: Locale;
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

export function brandSettingsPage(view: BrandSettingsView): SafeHtml {
  const tr = translator(view.user.locale);
  const error = errorFor(view.errors, 'timeZone');
  const names = timeZoneNames();
  const known = names.includes(view.timeZone);
  const labels = {
    timeZone: tr.t('brand.timeZone.label'),
    language: tr.t('brand.language.label'),
    retentionMonths: tr.t('brand.retention.label'),
  };
  return settingsPage(view, {
    title: tr.t('brand.title'),
    section: 'brand',
    intro: tr.t('brand.intro', { brand: view.user.brandName }),
    body: html`${errorSummary(tr, view.errors, labels)}
<section class="card" aria-labelledby="zone-title">
  <h2 id="zone-title">${labels.timeZone}</h2>
  <p class="muted">${tr.t('brand.timeZone.intro', { now: tr.dateTime(new Date(), view.user.timeZone) })}</p>
  <form method="post" action="/dashboard/settings/brand" novalidate>
    ${csrfField(view.user.csrfToken)}
    <div class="field${error ? ' field-invalid' : ''}">
      <label for="field-timeZone">${labels.timeZone}</label>
      ${error ? html`<p class="error" id="field-timeZone-error">${errorText(tr, error, labels.timeZone)}</p>` : ''}
      <select id="field-timeZone" name="timeZone"${error ? html` aria-invalid="true" aria-describedby="field-timeZone-error"` : ''}>
        ${known ? '' : html`<option value="${view.timeZone}" selected>${view.timeZone}</option>`}
        ${names.map((name) => html`<option value="${name}"${name === view.timeZone ? html` selected` : ''}>${name}</option>`)}
      </select>
    </div>
    <button type="submit" class="button button-primary">${tr.t('brand.save')}</button>
  </form>
</section>
<section class="card" aria-labelledby="language-title">
  <h2 id="language-title">${labels.language}</h2>
  <form method="post" action="/dashboard/settings/brand" novalidate>
    ${csrfField(view.user.csrfToken)}
    ${languageSelect({ tr, value: view.language, label: labels.language, hint: tr.t('brand.language.hint'), error: errorFor(view.errors, 'language') })}
    <button type="submit" class="button button-primary">${tr.t('brand.save')}</button>
  </form>
</section>
${retentionSection(view, tr)}
${view.visitNotices === undefined ? '' : visitNoticesSection(tr, view.user.csrfToken, view.visitNotices)}
${backupsSection(tr, view.backups, view.user.timeZone)}`,
  });
}
