// Settings > Brand (admins): the brand's time zone, which the dashboard shows and takes every time in.

import { csrfField, errorFor, errorSummary } from '../../../platform/web/components.js';
import { formatDateTime } from '../../../platform/web/format.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import type { FieldError } from '../../../shared/errors.js';
import { timeZoneNames } from '../../../shared/time-zones.js';
import type { SessionUser } from '../../sessions.js';

export interface BrandSettingsView {
  user: SessionUser;
  /** The zone shown selected: the brand's, or what was just sent. */
  timeZone: string;
  errors: FieldError[];
  message?: SafeHtml | undefined;
}

export function brandSettingsPage(view: BrandSettingsView): SafeHtml {
  const error = errorFor(view.errors, 'timeZone');
  const names = timeZoneNames();
  const known = names.includes(view.timeZone);
  const now = new Date().toISOString();
  return page({
    title: 'Brand',
    user: view.user,
    section: 'brand',
    body: html`<div class="page-head">
  <h1>Brand</h1>
  <p class="muted">Settings of ${view.user.brandName} for everyone who signs in.</p>
</div>
${view.message ?? ''}
${errorSummary(view.errors, { timeZone: 'Time zone' })}
<section class="card" aria-labelledby="zone-title">
  <h2 id="zone-title">Time zone</h2>
  <p class="muted">Every date and time in the dashboard is shown in it, and visits are planned in it. Now it is ${formatDateTime(now, view.user.timeZone)} there.</p>
  <form method="post" action="/dashboard/settings/brand" novalidate>
    ${csrfField(view.user.csrfToken)}
    <div class="field${error ? ' field-invalid' : ''}">
      <label for="field-timeZone">Time zone</label>
      ${error ? html`<p class="error" id="field-timeZone-error">Time zone ${error}.</p>` : ''}
      <select id="field-timeZone" name="timeZone"${error ? html` aria-invalid="true" aria-describedby="field-timeZone-error"` : ''}>
        ${known ? '' : html`<option value="${view.timeZone}" selected>${view.timeZone}</option>`}
        ${names.map((name) => html`<option value="${name}"${name === view.timeZone ? html` selected` : ''}>${name}</option>`)}
      </select>
    </div>
    <button type="submit" class="button button-primary">Save</button>
  </form>
</section>`,
  });
}
