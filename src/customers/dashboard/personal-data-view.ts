// The customer page's "Personal data" card: what the brand can do with everything it holds about this person.
// Admins download it (a ZIP: src/personal-data/dashboard/routes.ts); members are told who can. Each action is one
// entry of `actions`, so another (erase) goes beside download.
import type { SessionUser } from '../../accounts/sessions.js';
import { isAdmin } from '../../accounts/users.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { translator } from '../../shared/i18n/index.js';

export interface PersonalDataCardView {
  user: SessionUser;
  customer: { id: string; erased?: true };
}

export function personalDataCard(view: PersonalDataCardView): SafeHtml {
  const { user, customer } = view;
  const tr = translator(user.locale);
  const actions: SafeHtml[] = isAdmin(user)
    ? [
        html`<a class="button" href="/dashboard/customers/${customer.id}/personal-data.zip" download>${tr.t('customer.personalData.download')}</a>`,
        ...(customer.erased
          ? []
          : [
              html`<a class="button button-danger-quiet" href="/dashboard/customers/${customer.id}/erase">${tr.t('customer.personalData.erase')}</a>`,
            ]),
      ]
    : [];
  return html`<section class="card" id="personal-data" aria-labelledby="personal-data-title">
  <h2 id="personal-data-title">${tr.t('customer.personalData.title')}</h2>
  <p class="muted">${tr.t('customer.personalData.intro')}</p>
  ${
    actions.length
      ? html`<div class="actions">${actions}</div>`
      : html`<p>${tr.t('customer.personalData.adminsOnly', { brand: user.brandName })}</p>`
  }
</section>`;
}
