// Settings > Brand > Visit notices (admins): whether customers get a mail when their visit is planned, moved or
// cancelled. Its own card, form and route (visit-notice-routes.ts), beside the brand's other settings.
import { csrfField } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { Translator } from '../../../shared/i18n/index.js';

export function visitNoticesSection(tr: Translator, csrfToken: string, on: boolean): SafeHtml {
  return html`<section class="card" aria-labelledby="visit-notices-title" id="visit-notices">
  <h2 id="visit-notices-title">${tr.t('settings.brand.visitNotices.title')}</h2>
  <form method="post" action="/dashboard/settings/brand/visit-notices" novalidate>
    ${csrfField(csrfToken)}
    <input type="hidden" name="visitNotices" value="off">
    <div class="check">
      <input type="checkbox" id="field-visitNotices" name="visitNotices" value="on" aria-describedby="visit-notices-hint"${on ? html` checked` : ''}>
      <label for="field-visitNotices">${tr.t('settings.brand.visitNotices.label')}</label>
      <p class="hint" id="visit-notices-hint">${tr.t('settings.brand.visitNotices.hint')}</p>
    </div>
    <button type="submit" class="button button-primary">${tr.t('settings.brand.visitNotices.submit')}</button>
  </form>
</section>`;
}
