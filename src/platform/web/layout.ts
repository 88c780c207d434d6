// The page shell: head, skip link, header with the search, navigation and sign-out, and the main landmark.
// The search, navigation and sign-out sit in a <details> menu: on phones a "Menu" button opens them (no script
// needed); from 768 px wide the stylesheet shows them in the header row and hides the button.

import type { Locale, MessageKey, Translator } from '../../shared/i18n/index.js';
import { translator } from '../../shared/i18n/index.js';
import { assetUrls } from './assets.js';
import { csrfField } from './components.js';
import { timesInZone } from './format.js';
import { type HtmlValue, html, type SafeHtml, trusted } from './html.js';

export type Section =
  | 'leads'
  | 'work-items'
  | 'customers'
  | 'search'
  | 'planning'
  | 'my-visits'
  | 'api-keys'
  | 'webhooks'
  | 'forms'
  | 'users'
  | 'brand'
  | 'account';

// adminOnly: hidden from members, whom those pages refuse anyway (the server's check is what counts).
const NAV: { section: Section; href: string; label: MessageKey; adminOnly?: true }[] = [
  { section: 'leads', href: '/dashboard/leads', label: 'nav.leads' },
  { section: 'work-items', href: '/dashboard/work-items', label: 'nav.workItems' },
  { section: 'customers', href: '/dashboard/customers', label: 'nav.customers' },
  { section: 'planning', href: '/dashboard/planning', label: 'nav.planning' },
  { section: 'my-visits', href: '/dashboard/my-visits', label: 'nav.myVisits' },
  { section: 'api-keys', href: '/dashboard/settings/api-keys', label: 'nav.apiKeys', adminOnly: true },
  { section: 'webhooks', href: '/dashboard/settings/webhooks', label: 'nav.webhooks', adminOnly: true },
  { section: 'forms', href: '/dashboard/settings/forms', label: 'nav.forms', adminOnly: true },
  { section: 'users', href: '/dashboard/settings/users', label: 'nav.users' },
  { section: 'brand', href: '/dashboard/settings/brand', label: 'nav.brand', adminOnly: true },
];

// A small mark in the primary colour, inline so the page needs no extra request for it.
const ICON =
  'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 32 32%22%3E%3Crect width=%2232%22 height=%2232%22 rx=%228%22 fill=%22%231f5fbf%22/%3E%3Cpath d=%22M9 22V10h3v9.5h7V22z%22 fill=%22white%22/%3E%3C/svg%3E';

function head(tr: Translator, title: string): SafeHtml {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${tr.t('page.title', { title })}</title>
<link rel="icon" href="${ICON}">
<link rel="stylesheet" href="${assetUrls.css}">
<script src="${assetUrls.js}" defer></script>
</head>`;
}

/** Who a signed-in page is for (accounts' SessionUser has these and more). */
export interface Viewer {
  email: string;
  role: 'owner' | 'member';
  brandName: string;
  csrfToken: string;
  /** The brand's IANA time zone: every time on the page is written in it. */
  timeZone: string;
  /** The language the user reads the dashboard in. */
  locale: Locale;
}

export interface PageOptions {
  title: string;
  user: Viewer;
  section?: Section;
  body: HtmlValue;
}

export interface SettingsPageOptions {
  title: string;
  section: Section;
  /** The line under the heading: what the page is for. */
  intro: HtmlValue;
  /** The page's own parts, below the message of the last action. */
  body: HtmlValue;
}

/**
 * A settings page (API keys, webhooks, people, brand, account) of the view's user: the title as its heading, the
 * intro below it, then the view's message (what the last action did), if any, and the page's own parts.
 */
export function settingsPage(
  view: { user: Viewer; message?: SafeHtml | undefined },
  { title, section, intro, body }: SettingsPageOptions,
): SafeHtml {
  return page({
    title,
    user: view.user,
    section,
    body: html`<div class="page-head">
  <h1>${title}</h1>
  <p class="muted">${intro}</p>
</div>
${view.message ?? ''}
${body}`,
  });
}

/**
 * The search across everything (leads and work items in any state, customers), in the header of every page: a plain
 * GET form to /dashboard/search, so it works without the script. On phones it is the first thing in the menu.
 */
function siteSearch(tr: Translator): SafeHtml {
  return html`<form class="site-search" method="get" action="/dashboard/search" role="search" aria-label="${tr.t('search.header.label')}">
          <label class="visually-hidden" for="site-search-q">${tr.t('search.header.label')}</label>
          <input id="site-search-q" class="site-search-input" name="q" type="search" maxlength="200" placeholder="${tr.t('search.header.placeholder')}">
          <button type="submit" class="button site-search-button"><span class="search-icon" aria-hidden="true"></span><span class="site-search-text">${tr.t('search.header.submit')}</span></button>
        </form>`;
}

/** A page for a signed-in user. */
export function page(options: PageOptions): SafeHtml {
  const { user } = options;
  const tr = translator(user.locale);
  return html`<html lang="${tr.locale}">
${head(tr, options.title)}
<body data-msg-copied="${tr.t('script.copied')}" data-msg-copied-button="${tr.t('script.copiedButton')}" data-msg-copy-manually="${tr.t('script.copyManually')}">
<a class="skip-link" href="#main">${tr.t('page.skipLink')}</a>
<header class="site-header">
  <div class="container header-inner">
    <a class="brand" href="/dashboard/leads" title="${user.brandName}"><span class="brand-mark" aria-hidden="true">L</span><span class="brand-name">${user.brandName}</span></a>
    <details class="menu" data-open-wide>
      <summary class="menu-button"><span class="menu-icon" aria-hidden="true"></span>${tr.t('nav.menu')}</summary>
      <div class="menu-panel">
        ${siteSearch(tr)}
        <nav class="main-nav" aria-label="${tr.t('nav.label')}">
          <ul class="nav">${NAV.filter((item) => !item.adminOnly || user.role === 'owner').map(
            (item) =>
              html`<li><a href="${item.href}"${item.section === options.section ? html` aria-current="page"` : ''}>${tr.t(item.label)}</a></li>`,
          )}</ul>
        </nav>
        <form class="sign-out" method="post" action="/sign-out">
          ${csrfField(user.csrfToken)}
          <a class="who" href="/dashboard/settings/account" title="${tr.t('nav.account', { email: user.email })}"${options.section === 'account' ? html` aria-current="page"` : ''}>${user.email}</a>
          <button type="submit" class="button button-quiet">${tr.t('nav.signOut')}</button>
        </form>
      </div>
    </details>
  </div>
</header>
<main id="main" class="container" tabindex="-1">
${trusted(timesInZone(html`${options.body}`.toString(), user.timeZone, tr))}
</main>
</body>
</html>`;
}

/** A page before sign-in (setup, sign-in, invitation, errors): one centred card, in the asker's language. */
export function plainPage(locale: Locale, title: string, body: HtmlValue): SafeHtml {
  const tr = translator(locale);
  return html`<html lang="${tr.locale}">
${head(tr, title)}
<body class="plain">
<a class="skip-link" href="#main">${tr.t('page.skipLink')}</a>
<main id="main" class="plain-main" tabindex="-1">
  <p class="plain-brand"><span class="brand-mark" aria-hidden="true">L</span>lead-intake</p>
  <div class="card plain-card">
${body}
  </div>
</main>
</body>
</html>`;
}
