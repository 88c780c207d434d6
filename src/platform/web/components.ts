// Building blocks every page uses: form fields with labels and errors, notices, badges, times.

import type { FastifyRequest } from 'fastify';
import type { FieldError } from '../../shared/errors.js';
import type { MessageKey, Translator } from '../../shared/i18n/index.js';
import { CSRF_FIELD } from './csrf.js';
import { formatDateTime, phoneText } from './format.js';
import { type HtmlValue, html, type SafeHtml } from './html.js';
import { text } from './http.js';

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

export function errorFor(errors: readonly FieldError[], field: string): FieldError | undefined {
  return errors.find((e) => e.field === field);
}

/** A field error as one sentence for people: the rule's message with the field's label, or "is not valid". */
export function errorText(tr: Translator, error: FieldError, label: string): string {
  return error.text
    ? tr.t(error.text.key, { ...error.text.values, field: label })
    : tr.t('validation.invalid', { field: label });
}

export interface FieldOptions {
  /** The reader's language (the "(optional)" mark, the error's sentence). */
  tr: Translator;
  name: string;
  label: string;
  type?: string;
  value?: string;
  hint?: HtmlValue;
  error?: FieldError | undefined;
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
  <label for="${id}">${options.label}${options.required ? '' : html` <span class="optional">${options.tr.t('form.optional')}</span>`}</label>
  ${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ''}
  ${options.error ? html`<p class="error" id="${id}-error">${errorText(options.tr, options.error, options.label)}</p>` : ''}
  <input id="${id}" name="${options.name}" type="${options.type ?? 'text'}" value="${options.value ?? ''}"${
    options.required ? html` required` : ''
  }${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''}${
    described ? html` aria-describedby="${described}"` : ''
  }${options.error ? html` aria-invalid="true"` : ''}${options.attributes ? html` ${options.attributes}` : ''}>
</div>`;
}

/** The list of problems at the top of a form; focused on load so screen readers announce it. */
export function errorSummary(
  tr: Translator,
  errors: readonly FieldError[],
  labels: Record<string, string>,
): SafeHtml | '' {
  if (!errors.length) return '';
  return html`<div class="error-summary" role="alert" tabindex="-1" autofocus>
  <h2>${tr.t('form.errorSummary', { count: errors.length })}</h2>
  <ul>${errors.map(
    (e) => html`<li><a href="#field-${e.field}">${errorText(tr, e, labels[e.field] ?? e.field)}</a></li>`,
  )}</ul>
</div>`;
}

export function notice(
  message: HtmlValue,
  kind: 'success' | 'info' | 'warning' | 'error' = 'success',
): SafeHtml {
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

/** A moment; the page shell writes it in the user's zone and language (see timesInZone). */
export function time(iso: string | null): SafeHtml {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}" data-local>${formatDateTime(iso)}</time>`;
}

/** A phone to call: the link keeps E.164 (`tel:+31612345678`), the text is as people write it ("06 12345678"). */
export function phoneLink(e164: string, brandCountry: string): SafeHtml {
  return html`<a href="tel:${e164}">${phoneText(e164, brandCountry)}</a>`;
}

/**
 * A secret or link shown once, with a Copy button (the page script shows it and says "Copied"; without the script
 * the text is selected on focus and copied by hand).
 */
export function copyField(tr: Translator, options: { id: string; label: string; value: string }): SafeHtml {
  const { id } = options;
  return html`<div class="copy-row">
    <label class="visually-hidden" for="${id}">${options.label}</label>
    <input id="${id}" class="mono" type="text" value="${options.value}" readonly autofocus spellcheck="false">
    <button type="button" class="button button-primary" data-copy="${id}" hidden>${tr.t('copy.button')}</button>
    <span class="visually-hidden" role="status" data-copy-status="${id}"></span>
  </div>`;
}

export interface CreateCardOptions {
  title: string;
  /** What was wrong with the last post, summarised above the form (labels name the fields). */
  errors: FieldError[];
  labels: Record<string, string>;
  action: string;
  csrfToken: string;
  /** The form's fields, between its token and its submit button. */
  fields: HtmlValue;
  submit: string;
}

/** A settings page's card that adds one (an API key, a webhook endpoint): its heading, error summary and form. */
export function createCard(tr: Translator, options: CreateCardOptions): SafeHtml {
  return html`<section class="card" aria-labelledby="create-title">
  <h2 id="create-title">${options.title}</h2>
  ${errorSummary(tr, options.errors, options.labels)}
  <form method="post" action="${options.action}" novalidate>
    ${csrfField(options.csrfToken)}
    ${options.fields}
    <button type="submit" class="button button-primary">${options.submit}</button>
  </form>
</section>`;
}

export interface CodeChoiceOptions {
  /** The field's name: the checkboxes post it once per ticked code. */
  name: string;
  /** The start of each checkbox's id: `${idPrefix}-${code}`. */
  idPrefix: string;
  legend: string;
  error: FieldError | undefined;
  codes: readonly string[];
  checked: readonly string[];
  /** What a code means, as people read it. */
  hint: (code: string) => string;
}

/** A choice of codes (API key scopes, webhook event types): a checkbox with a hint for each, as a fieldset. */
export function codeChoice(tr: Translator, options: CodeChoiceOptions): SafeHtml {
  const { name, idPrefix, legend, error } = options;
  return html`<fieldset id="field-${name}" class="${error ? 'field-invalid' : ''}"${error ? html` aria-describedby="${name}-error"` : ''}>
      <legend>${legend}</legend>
      ${error ? html`<p class="error" id="${name}-error">${errorText(tr, error, legend)}</p>` : ''}
      ${options.codes.map(
        (code) => html`<div class="check">
        <input type="checkbox" id="${idPrefix}-${code}" name="${name}" value="${code}" aria-describedby="${idPrefix}-${code}-hint"${
          options.checked.includes(code) ? html` checked` : ''
        }>
        <label for="${idPrefix}-${code}"><code>${code}</code></label>
        <p class="hint" id="${idPrefix}-${code}-hint">${options.hint(code)}</p>
      </div>`,
      )}
    </fieldset>`;
}

/** The notice of what the last post did, named by its redirect's `?done=`; none for a name not in `messages`. */
export function doneNotice(
  request: FastifyRequest,
  tr: Translator,
  messages: Readonly<Record<string, MessageKey>>,
): SafeHtml | undefined {
  const done = messages[text(request.query, 'done')];
  return done ? notice(tr.t(done)) : undefined;
}
