// What every mail shares: the HTML document around its card (on the escaping html`` tag, so no value from a lead or
// an account can become markup), the label–value table of its details, and the same details as plain text. A mail
// speaks one language (`<html lang>`, which the worker sends as Content-Language), chosen from data when it is queued.
import { html, type SafeHtml } from '../../platform/web/html.js';
import { isLocale, type Locale } from '../../shared/i18n/index.js';

/** A mail as the outbox queues it. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  /** An iCalendar invitation sent with it (a visit notice): as a text/calendar part and an .ics attachment. */
  calendar?: MailCalendar | undefined;
}

/** An iCalendar object a mail carries, and its iTIP method (RFC 5546): REQUEST or CANCEL. */
export interface MailCalendar {
  method: 'REQUEST' | 'CANCEL';
  content: string;
}

/** The contact and address of a lead as submitted: every field may be missing. */
export type MailContact = Partial<
  Record<
    | 'customerName'
    | 'companyName'
    | 'firstName'
    | 'lastName'
    | 'phone'
    | 'email'
    | 'street'
    | 'streetNumber'
    | 'streetNumberAddition'
    | 'postalCode'
    | 'city'
    | 'country',
    string | null
  >
>;

/** A detail of a mail: its label and its value (rows with an empty value are left out). */
export type Detail = [label: string, value: string];

/** One line of header text: no line breaks or runs of spaces (a title may hold them). */
export function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

/** The details that have a value. */
export function shownDetails(details: Detail[]): Detail[] {
  return details.filter(([, value]) => value !== '');
}

/** The details as lines of plain text, the values lined up after the labels (at least 10 wide, as in English). */
export function detailLines(details: Detail[]): string[] {
  const width = Math.max(10, ...details.map(([label]) => label.length + 2));
  return details.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`);
}

/**
 * The language a mail is written in: the first of `choices` that is a language (the reader's own, then their
 * brand's or form's), else `fallback`, which the caller derives from data too (never a silent English).
 */
export function mailLocale(choices: ReadonlyArray<string | null | undefined>, fallback: Locale): Locale {
  return choices.find(isLocale) ?? fallback;
}

const HTML_LANG = /^<!doctype html>\s*<html lang="([a-z]{2})">/i;

/** The language of a queued mail, as its HTML part declares it (sent as Content-Language); null if it says none. */
export function mailLanguage(htmlPart: string): Locale | null {
  const lang = HTML_LANG.exec(htmlPart)?.[1]?.toLowerCase();
  return isLocale(lang) ? lang : null;
}

const CELL = 'padding:4px 16px 4px 0;vertical-align:top';

/** The details as a table, one row a line; `valueStyle` is added to the style of the value cells. */
export function detailTable(details: Detail[], valueStyle = ''): SafeHtml {
  const rows = details.map(
    ([label, value], i) =>
      html`${i ? '\n' : ''}<tr><th scope="row" style="${CELL};text-align:left;color:#59636e;font-weight:normal">${label}</th><td style="${CELL}${valueStyle}">${value}</td></tr>`,
  );
  return html`<table role="presentation" style="border-collapse:collapse;margin:0 0 20px">
${rows}
</table>`;
}

/** The HTML document of a mail: its card and, under it, a footer in small print when it has one. */
export function mailDocument(locale: Locale, title: string, card: SafeHtml, footer?: SafeHtml): string {
  return html`<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head>
<body style="margin:0;padding:24px;background:#f6f7f9;color:#1f2328;font:16px/1.5 -apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border:1px solid #d0d7de;border-radius:8px;padding:24px">
${card}
</div>
${footer ? html`<p style="max-width:560px;margin:16px auto 0;color:#59636e;font-size:13px">${footer}</p>\n` : ''}</body>
</html>
`.toString();
}

/** The mail's main button, and the link written out under it for mail programs that show no buttons. */
export function linkButton(href: string, label: string, linkMargin: string): SafeHtml {
  return html`<p style="margin:0 0 8px"><a href="${href}" style="display:inline-block;background:#1f6feb;color:#ffffff;text-decoration:none;padding:10px 16px;border-radius:6px;font-weight:600">${label}</a></p>
<p style="margin:${linkMargin};color:#59636e;font-size:14px;word-break:break-all">${href}</p>`;
}
