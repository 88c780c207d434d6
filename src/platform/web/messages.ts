// Messages as markup: a catalog message whose placeholders may be markup (a link, a <strong>) and whose rich-text
// tags (`<link>…</link>` in the catalog) the caller turns into elements. The catalog's own text and every string
// value are escaped; only html`` output passes as markup.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  FALLBACK_LOCALE,
  isLocale,
  type Locale,
  type MessageKey,
  type MessageValues,
  negotiateLocale,
  type Translator,
} from '../../shared/i18n/index.js';
import { cookieOptions } from './cookies.js';
import { escapeHtml, type HtmlValue, html, SafeHtml } from './html.js';

function markup(part: unknown): string {
  if (part instanceof SafeHtml) return part.toString();
  if (Array.isArray(part)) return part.map(markup).join('');
  if (part === null || part === undefined || part === false) return '';
  return escapeHtml(String(part));
}

/**
 * A message with markup in it: `values` may hold html`` output, and a function per rich-text tag, given the tag's
 * contents (already safe): `richText(tr, 'x', { link: (inner) => html`<a href="/y">${inner}</a>` })`.
 */
export function richText(
  tr: Translator,
  key: MessageKey,
  values: Record<string, HtmlValue | ((inner: SafeHtml) => SafeHtml)> = {},
): SafeHtml {
  const wrapped: MessageValues = {};
  for (const [name, value] of Object.entries(values)) {
    wrapped[name] =
      typeof value === 'function'
        ? (chunks: unknown[]) => value(new SafeHtml(chunks.map(markup).join('')))
        : value instanceof SafeHtml || Array.isArray(value)
          ? new SafeHtml(markup(value))
          : (value as MessageValues[string]);
  }
  return new SafeHtml(tr.parts(key, wrapped).map(markup).join(''));
}

/** The cookie the language switch of the pages before sign-in sets. */
export const LANGUAGE_COOKIE = 'li_lang';

/**
 * The language of a page for whoever asks: a signed-in user's own; else `?lang=` (the switch, remembered in a
 * cookie), the cookie, then Accept-Language (the nl or en it weighs highest), else English.
 */
export function requestLocale(request: FastifyRequest, signedIn?: { locale: Locale } | null): Locale {
  if (signedIn) return signedIn.locale;
  const query = (request.query as Record<string, unknown> | undefined)?.lang;
  if (isLocale(query)) return query;
  const cookie = request.cookies?.[LANGUAGE_COOKIE];
  if (isLocale(cookie)) return cookie;
  return negotiateLocale(request.headers['accept-language']) ?? FALLBACK_LOCALE;
}

/** Remembers a `?lang=` choice on a page before sign-in, so the next page (and the form post) keep it. */
export function rememberLocaleChoice(request: FastifyRequest, reply: FastifyReply): void {
  const query = (request.query as Record<string, unknown> | undefined)?.lang;
  if (isLocale(query) && request.cookies?.[LANGUAGE_COOKIE] !== query) {
    reply.setCookie(LANGUAGE_COOKIE, query, cookieOptions(request, 365 * 24 * 3600));
  }
}

/** The other language's link for the switch on pages before sign-in: "Nederlands" / "English". */
export function languageSwitch(tr: Translator, path: string): SafeHtml {
  const other: Locale = tr.locale === 'nl' ? 'en' : 'nl';
  const separator = path.includes('?') ? '&' : '?';
  return html`<p class="language-switch"><a href="${path}${separator}lang=${other}" hreflang="${other}" lang="${other}">${tr.t(
    other === 'nl' ? 'language.switch.toDutch' : 'language.switch.toEnglish',
  )}</a></p>`;
}
