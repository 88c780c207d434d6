// The page shell: head, skip link, header with navigation and sign-out, and the main landmark.
// The navigation and sign-out sit in a <details> menu: on phones a "Menu" button opens them (no script needed);
// from 768 px wide the stylesheet shows them in the header row and hides the button.
import { assetUrls } from './assets.js';
import { csrfField } from './components.js';
import { timesInZone } from './format.js';
import { type HtmlValue, html, type SafeHtml, trusted } from './html.js';

export type Section =
  | 'leads'
  | 'work-items'
  | 'planning'
  | 'my-visits'
  | 'api-keys'
  | 'webhooks'
  | 'forms'
  | 'users'
  | 'brand'
  | 'account';

// adminOnly: hidden from members, whom those pages refuse anyway (the server's check is what counts).
const NAV: { section: Section; href: string; label: string; adminOnly?: true }[] = [
  { section: 'leads', href: '/dashboard/leads', label: 'Leads' },
  { section: 'work-items', href: '/dashboard/work-items', label: 'Work items' },
  { section: 'planning', href: '/dashboard/planning', label: 'Planning' },
  { section: 'my-visits', href: '/dashboard/my-visits', label: 'My visits' },
  { section: 'api-keys', href: '/dashboard/settings/api-keys', label: 'API keys', adminOnly: true },
  { section: 'webhooks', href: '/dashboard/settings/webhooks', label: 'Webhooks', adminOnly: true },
  { section: 'forms', href: '/dashboard/settings/forms', label: 'Forms', adminOnly: true },
  { section: 'users', href: '/dashboard/settings/users', label: 'Users' },
  { section: 'brand', href: '/dashboard/settings/brand', label: 'Brand', adminOnly: true },
];

// A small mark in the primary colour, inline so the page needs no extra request for it.
const ICON =
  'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 32 32%22%3E%3Crect width=%2232%22 height=%2232%22 rx=%228%22 fill=%22%231f5fbf%22/%3E%3Cpath d=%22M9 22V10h3v9.5h7V22z%22 fill=%22white%22/%3E%3C/svg%3E';

function head(title: string): SafeHtml {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · lead-intake</title>
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
}

export interface PageOptions {
  title: string;
  user: Viewer;
  section?: Section;
  body: HtmlValue;
}

/** A page for a signed-in user. */
export function page(options: PageOptions): SafeHtml {
  const { user } = options;
  return html`<html lang="en">
${head(options.title)}
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
  <div class="container header-inner">
    <a class="brand" href="/dashboard/leads"><span class="brand-mark" aria-hidden="true">L</span>${user.brandName}</a>
    <details class="menu" data-open-wide>
      <summary class="menu-button"><span class="menu-icon" aria-hidden="true"></span>Menu</summary>
      <div class="menu-panel">
        <nav aria-label="Main">
          <ul class="nav">${NAV.filter((item) => !item.adminOnly || user.role === 'owner').map(
            (item) =>
              html`<li><a href="${item.href}"${item.section === options.section ? html` aria-current="page"` : ''}>${item.label}</a></li>`,
          )}</ul>
        </nav>
        <form class="sign-out" method="post" action="/sign-out">
          ${csrfField(user.csrfToken)}
          <a class="who" href="/dashboard/settings/account" title="Your account: signed in as ${user.email}"${options.section === 'account' ? html` aria-current="page"` : ''}>${user.email}</a>
          <button type="submit" class="button button-quiet">Sign out</button>
        </form>
      </div>
    </details>
  </div>
</header>
<main id="main" class="container" tabindex="-1">
${trusted(timesInZone(html`${options.body}`.toString(), user.timeZone))}
</main>
</body>
</html>`;
}

/** A page before sign-in (setup, sign-in, invitation, errors): one centred card. */
export function plainPage(title: string, body: HtmlValue): SafeHtml {
  return html`<html lang="en">
${head(title)}
<body class="plain">
<a class="skip-link" href="#main">Skip to content</a>
<main id="main" class="plain-main" tabindex="-1">
  <p class="plain-brand"><span class="brand-mark" aria-hidden="true">L</span>lead-intake</p>
  <div class="card plain-card">
${body}
  </div>
</main>
</body>
</html>`;
}
