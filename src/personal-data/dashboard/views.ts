// The erase confirmation page: what goes, what stays, that it cannot be undone, a reason for the history.
import type { SessionUser } from '../../accounts/sessions.js';
import type { CustomerDetail } from '../../customers/customers.js';
import { customerTitle } from '../../customers/names.js';
import { csrfField, errorFor, errorSummary, field } from '../../platform/web/components.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { page } from '../../platform/web/layout.js';
import type { FieldError } from '../../shared/errors.js';
import { translator } from '../../shared/i18n/index.js';

export interface EraseView {
  user: SessionUser;
  customer: CustomerDetail;
  reason: string;
  errors: FieldError[];
}

export function eraseConfirmPage(view: EraseView): SafeHtml {
  const { user, customer } = view;
  const tr = translator(user.locale);
  const name = customerTitle(customer, tr.t('erase.erasedName'));
  const base = `/dashboard/customers/${customer.id}`;
  const labels = { confirm: tr.t('erase.confirm.label'), reason: tr.t('erase.reason.label') };
  const confirmError = errorFor(view.errors, 'confirm');
  return page({
    title: tr.t('erase.title', { name }),
    user,
    section: 'customers',
    body: html`<p class="breadcrumb"><a href="${base}">← ${name}</a></p>
<section class="card narrow" aria-labelledby="erase-title">
  <h1 id="erase-title">${tr.t('erase.title', { name })}</h1>
  ${errorSummary(tr, view.errors, labels)}
  <p>${tr.t('erase.intro', { leads: customer.leadCount })}</p>
  <h2>${tr.t('erase.goes.title')}</h2>
  <p>${tr.t('erase.goes')}</p>
  <h2>${tr.t('erase.stays.title')}</h2>
  <p>${tr.t('erase.stays')}</p>
  <p class="notice notice-info">${tr.t('erase.backups')}</p>
  <form method="post" action="${base}/erase" novalidate>
    ${csrfField(user.csrfToken)}
    ${field({ tr, name: 'reason', label: labels.reason, value: view.reason, hint: tr.t('erase.reason.hint'), error: errorFor(view.errors, 'reason'), attributes: html`maxlength="500"` })}
    <div class="field${confirmError ? ' field-invalid' : ''}">
      ${confirmError ? html`<p class="error" id="field-confirm-error">${tr.t('erase.confirm.required')}</p>` : ''}
      <label class="checkbox"><input id="field-confirm" type="checkbox" name="confirm" value="yes"${confirmError ? html` aria-invalid="true" aria-describedby="field-confirm-error"` : ''}> ${labels.confirm}</label>
    </div>
    <div class="actions">
      <button type="submit" class="button button-danger">${tr.t('erase.submit')}</button>
      <a class="button button-quiet" href="${base}">${tr.t('erase.keep')}</a>
    </div>
  </form>
</section>`,
  });
}
