// The mail that invites a person to a brand's dashboard, with their one-time link to choose a password. Written in
// the brand's language (the invited person's account starts in it, and the invitation page preselects it), informal
// as the dashboard. It is written when sent (src/mail/send-time.ts), so its link is never stored.
import { html } from '../../platform/web/html.js';
import { type Locale, translator } from '../../shared/i18n/index.js';
import { linkButton, mailDocument, oneLine, type RenderedMail } from './layout.js';

export interface InvitationMailData {
  /** The brand's language. */
  locale: Locale;
  brandName: string;
  /** The invited address. */
  email: string;
  /** Who invited them (their email address). */
  invitedBy: string;
  role: 'owner' | 'member';
  /** The one-time link. */
  link: string;
  /** How long the invitation works. */
  lifetimeDays: number;
}

/** The subject, also what the outbox keeps for the dashboard's list of failed mails. */
export function invitationSubject(locale: Locale, brandName: string): string {
  return translator(locale).t('mail.invitation.subject', { brand: oneLine(brandName) });
}

export function invitationMail(mail: InvitationMailData): RenderedMail {
  const tr = translator(mail.locale);
  const heading = tr.t('mail.invitation.heading', { brand: mail.brandName });
  const intro = tr.t('mail.invitation.intro', {
    inviter: mail.invitedBy,
    brand: mail.brandName,
    role: mail.role,
  });
  const account = tr.t('mail.invitation.account', { email: mail.email });
  const validity = tr.t('mail.invitation.validity', { days: mail.lifetimeDays });
  const ignore = tr.t('mail.invitation.ignore');
  const text = [intro, '', account, mail.link, '', validity, '', ignore, ''].join('\n');

  const card = html`<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3">${heading}</h1>
<p style="margin:0 0 16px">${intro}</p>
<p style="margin:0 0 16px">${account}</p>
${linkButton(mail.link, tr.t('mail.invitation.button'), '0 0 16px')}
<p style="margin:0 0 16px">${validity}</p>
<p style="margin:0;color:#59636e;font-size:14px">${ignore}</p>`;
  return {
    subject: invitationSubject(mail.locale, mail.brandName),
    text,
    html: mailDocument(mail.locale, heading, card),
  };
}
