// Building blocks every page uses: form fields with labels and errors, notices, badges, times.

import type { FieldError } from '../../shared/errors.js';
import { CSRF_FIELD } from './csrf.js';
import { formatDateTime, phoneText } from './format.js';
import { type HtmlValue, html, type SafeHtml } from './html.js';

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

export function errorFor(errors: readonly FieldError[], field: string): string | undefined {
  return errors.find((e) => e.field === field)?.message;
}

export interface FieldOptions {
  name: string;
  label: string;
  type?: string;
  value?: string;
  hint?: HtmlValue;
  error?: string | undefined;
  required?: boolean;
  autocomplete?: string;
  attributes?: SafeHtml;
}

/** A labelled input with its hint and error, tied together with aria-describedby. */
export function field(options: FieldOptions): SafeHtml {
  const id = `field-${options.name}`;
  const described = [options.hint ? `${id}-hint` : '', options.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return html`<div class="field${options.error ? ' field-invalid' : ''}">
  <label for="${id}">${options.label}${options.required ? '' : html` <span class="optional">(optional)</span>`}</label>
  ${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ''}
  ${options.error ? html`<p class="error" id="${id}-error">${options.label} ${options.error}.</p>` : ''}
  <input id="${id}" name="${options.name}" type="${options.type ?? 'text'}" value="${options.value ?? ''}"${
    options.required ? html` required` : ''
  }${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''}${
    described ? html` aria-describedby="${described}"` : ''
  }${options.error ? html` aria-invalid="true"` : ''}${options.attributes ? html` ${options.attributes}` : ''}>
</div>`;
}

/** The list of problems at the top of a form; focused on load so screen readers announce it. */
export function errorSummary(errors: readonly FieldError[], labels: Record<string, string>): SafeHtml | '' {
  if (!errors.length) return '';
  return html`<div class="error-summary" role="alert" tabindex="-1" autofocus>
  <h2>There ${errors.length === 1 ? 'is a problem' : `are ${errors.length} problems`}</h2>
  <ul>${errors.map(
    (e) => html`<li><a href="#field-${e.field}">${labels[e.field] ?? e.field} ${e.message}.</a></li>`,
  )}</ul>
</div>`;
}

export function notice(message: HtmlValue, kind: 'success' | 'info' | 'error' = 'success'): SafeHtml {
  return html`<div class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${message}</div>`;
}

/** One row of a definition list; nothing when the value is empty. */
export function detailRow(label: string, value: HtmlValue): SafeHtml | '' {
  if (value === null || value === undefined || value === '') return '';
  return html`<div class="dl-row"><dt>${label}</dt><dd>${value}</dd></div>`;
}

/** Where a customer's page is. */
export function customerHref(id: string): string {
  return `/dashboard/customers/${encodeURIComponent(id)}`;
}

export function time(iso: string | null): SafeHtml {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}" data-local>${formatDateTime(iso)}</time>`;
}

/** A phone to call: the link keeps E.164 (`tel:+31612345678`), the text is as people write it ("06 12345678"). */
export function phoneLink(e164: string, brandCountry: string): SafeHtml {
  return html`<a href="tel:${e164}">${phoneText(e164, brandCountry)}</a>`;
}
