// The mail with a one-time link to choose a new password ("Forgot password"), in the user's language (informal,
// as the dashboard).
import { html } from '../../platform/web/html.js';
import { richText } from '../../platform/web/messages.js';
import { type Locale, translator } from '../../shared/i18n/index.js';
import { linkButton, mailDocument, type RenderedMail } from './layout.js';

export interface PasswordResetMailData {
  /** The user's language. */
  locale: Locale;
  brandName: string;
  /** The account's email address. */
  email: string;
  /** The one-time link. */
  link: string;
  /** How long the link works. */
  lifetimeMinutes: number;
  /** Where to ask for a new link. */
  forgotLink: string;
}

export function passwordResetMail(mail: PasswordResetMailData): RenderedMail {
  const tr = translator(mail.locale);
  const intro = tr.t('mail.passwordReset.intro', { email: mail.email, brand: mail.brandName });
  const validity = tr.t('mail.passwordReset.validity', { minutes: mail.lifetimeMinutes });
  const ignore = tr.t('mail.passwordReset.ignore');
  const heading = tr.t('mail.passwordReset.heading');
  const text = [
    intro,
    '',
    tr.t('mail.passwordReset.chooseHere'),
    mail.link,
    '',
    validity,
    '',
    ignore,
    '',
    tr.t('mail.passwordReset.expired.text', { link: mail.forgotLink }),
    '',
  ].join('\n');

  const card = html`<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3">${heading}</h1>
<p style="margin:0 0 16px">${intro}</p>
${linkButton(mail.link, tr.t('mail.passwordReset.button'), '0 0 16px')}
<p style="margin:0 0 16px">${validity}</p>
<p style="margin:0;color:#59636e;font-size:14px">${ignore}</p>`;
  const footer = richText(tr, 'mail.passwordReset.expired.html', {
    link: (inner) => html`<a href="${mail.forgotLink}" style="color:#59636e">${inner}</a>`,
  });
  return {
    subject: tr.t('mail.passwordReset.subject'),
    text,
    html: mailDocument(mail.locale, heading, card, footer),
  };
}
