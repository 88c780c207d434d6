// The mail with a one-time link to choose a new password ("Forgot password").
import { html } from '../../platform/web/html.js';
import { linkButton, mailDocument, type RenderedMail } from './layout.js';

export interface PasswordResetMailData {
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
  const intro = `Someone asked to reset the password of ${mail.email} for ${mail.brandName} on lead-intake.`;
  const validity = `The link works once, for ${mail.lifetimeMinutes} minutes. Afterwards you are signed out everywhere and sign in with the new password.`;
  const ignore =
    'If you did not ask for this, ignore this mail: your password stays as it is, and only someone with this mail can use the link.';
  const text = [
    intro,
    '',
    'Choose a new password here:',
    mail.link,
    '',
    validity,
    '',
    ignore,
    '',
    `Link expired? Ask for a new one: ${mail.forgotLink}`,
    '',
  ].join('\n');

  const card = html`<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3">Reset your password</h1>
<p style="margin:0 0 16px">${intro}</p>
${linkButton(mail.link, 'Choose a new password', '0 0 16px')}
<p style="margin:0 0 16px">${validity}</p>
<p style="margin:0;color:#59636e;font-size:14px">${ignore}</p>`;
  const footer = html`Link expired? <a href="${mail.forgotLink}" style="color:#59636e">Ask for a new one</a>.`;
  return {
    subject: 'Reset your lead-intake password',
    text,
    html: mailDocument('Reset your password', card, footer),
  };
}
