// The "Photos and files" section of a lead's page: thumbnails of photos (a click opens the larger preview, a link
// downloads the original), other files (PDF, photos the server cannot show) as a name with its size, a delete
// button each, and the form that adds more (phones offer the camera).

import type { SessionUser } from '../../../accounts/sessions.js';
import type { Attachment } from '../../../attachments/attachments.js';
import { csrfField, errorText, notice } from '../../../platform/web/components.js';
import { CSRF_FIELD } from '../../../platform/web/csrf.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { FieldError } from '../../../shared/errors.js';
import { type Translator, translator } from '../../../shared/i18n/index.js';

/** Types the server makes a thumbnail and preview of (HEIC is kept but shown as a file). */
const SHOWN_AS_IMAGE = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);

export function attachmentHref(id: string, variant?: 'thumbnail' | 'preview'): string {
  return `/dashboard/attachments/${id}/content${variant ? `?variant=${variant}` : ''}`;
}

/** "2.4 MB", "830 kB" in the reader's language. */
export function sizeText(tr: Translator, bytes: number): string {
  const [unit, value] =
    bytes >= 1_000_000
      ? ['megabyte', bytes / 1_000_000]
      : bytes >= 1000
        ? ['kilobyte', bytes / 1000]
        : ['byte', bytes];
  return new Intl.NumberFormat(tr.locale, { style: 'unit', unit, maximumFractionDigits: 1 }).format(value);
}

function deleteForm(tr: Translator, user: SessionUser, file: Attachment): SafeHtml {
  return html`<form method="post" action="/dashboard/attachments/${file.id}/delete" data-confirm="${tr.t('lead.files.deleteConfirm', { name: file.fileName })}">
      ${csrfField(user.csrfToken)}
      <button type="submit" class="button button-danger-quiet">${tr.t('lead.files.delete')}</button>
    </form>`;
}

/** "PDF", "HEIC": what a file without a thumbnail is, shown in its place. */
function kindOf(file: Attachment): string {
  const subtype = file.contentType.split('/')[1] ?? '';
  return (subtype === 'heif' ? 'heic' : subtype).toUpperCase();
}

function item(tr: Translator, user: SessionUser, file: Attachment): SafeHtml {
  const size = sizeText(tr, file.size);
  const image = SHOWN_AS_IMAGE.has(file.contentType);
  // The thumbnail opens the preview; a file without one shows its kind. The link below downloads the original.
  const shown = image
    ? html`<a class="attachment-thumb" href="${attachmentHref(file.id, 'preview')}" target="_blank" rel="noopener"><img src="${attachmentHref(file.id, 'thumbnail')}" alt="${file.fileName}" loading="lazy"></a>`
    : html`<span class="attachment-thumb attachment-kind" aria-hidden="true">${kindOf(file)}</span>`;
  return html`<li class="attachment">
    ${shown}
    <p class="attachment-meta"><a href="${attachmentHref(file.id)}" download>${image ? tr.t('lead.files.download', { name: file.fileName }) : file.fileName}</a> <span class="muted">${size}</span></p>
    ${deleteForm(tr, user, file)}
  </li>`;
}

/** The section; `errors` are the refusals of an upload just sent. */
export function attachmentsSection(
  user: SessionUser,
  leadId: string,
  files: readonly Attachment[],
  errors: readonly FieldError[] = [],
): SafeHtml {
  const tr = translator(user.locale);
  const label = tr.t('lead.files.title');
  const problems = errors.map((error) => notice(errorText(tr, error, label), 'error'));
  const list = files.length
    ? html`<ul class="attachments">${files.map((file) => item(tr, user, file))}</ul>`
    : html`<p class="muted">${tr.t('lead.files.none')}</p>`;
  // A multipart body has no place the dashboard reads a token from before the handler: it goes in the action URL.
  const action = `/dashboard/leads/${leadId}/attachments?${CSRF_FIELD}=${encodeURIComponent(user.csrfToken)}`;
  return html`<section class="card" id="files" aria-labelledby="files-title">
  <h2 id="files-title">${label}</h2>
  ${problems}
  ${list}
  <form method="post" action="${action}" enctype="multipart/form-data">
    <label for="field-attachments">${tr.t('lead.files.add')}</label>
    <input type="file" id="field-attachments" name="attachments" multiple accept="image/*,application/pdf" required>
    <p class="hint muted">${tr.t('lead.files.hint')}</p>
    <button type="submit" class="button button-primary">${tr.t('lead.files.upload')}</button>
  </form>
</section>`;
}
