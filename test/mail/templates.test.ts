// The mail templates (src/mail/templates/): pure functions from plain data to subject, text and HTML, every value
// escaped in the HTML part by the html`` tag. The mails as sent, over SMTP, are in the other tests of this folder.
import { describe, expect, it } from 'vitest';
import { mailLanguage, mailLocale } from '../../src/mail/templates/layout.js';
import { newLeadMail } from '../../src/mail/templates/new-lead.js';
import { passwordResetMail } from '../../src/mail/templates/password-reset.js';
import { receiptMail } from '../../src/mail/templates/receipt.js';

const HOSTILE = `<img src=x onerror="alert('x')"> & co`;
const ESCAPED = '&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; co';

describe('the mail templates', () => {
  it('new lead: every value from the lead escaped in the HTML, as typed in the text', () => {
    const mail = newLeadMail({
      locale: 'en',
      brandName: HOSTILE,
      timeZone: 'Europe/Amsterdam',
      receivedAt: Date.parse('2026-11-24T08:00:00Z'),
      brandCountry: 'NL',
      title: `${HOSTILE}\n  again`,
      priority: 'urgent',
      contact: { customerName: HOSTILE, phone: '+31612345678', email: 'a@b.example', city: HOSTILE },
      link: 'https://leads.example/dashboard/leads/wrk_1?a=1&b=2',
      settingsLink: 'https://leads.example/dashboard/settings/users',
    });
    expect(mail.subject).toBe(`New lead: ${HOSTILE} again`);
    expect(mail.text).toContain(`Customer: ${HOSTILE}\n`);
    expect(mail.text).toContain('Phone:    06 12345678\n');
    expect(mail.text).toContain('Priority: Urgent\n');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain(`<title>New lead: ${ESCAPED} again</title>`);
    expect(mail.html).toContain(`<td style="padding:4px 16px 4px 0;vertical-align:top">${ESCAPED}</td>`);
    expect(mail.html).toContain('href="https://leads.example/dashboard/leads/wrk_1?a=1&amp;b=2"');
  });

  it('receipt: only what the customer sent, escaped, line breaks of the details kept', () => {
    const mail = receiptMail({
      locale: 'en',
      brandName: 'Acme',
      title: 'Leaking tap',
      description: `${HOSTILE}\nsecond line`,
      contact: { firstName: 'Sanne', lastName: HOSTILE },
    });
    expect(mail.text.startsWith(`Dear Sanne ${HOSTILE},\n`)).toBe(true);
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain(`white-space:pre-line">${ESCAPED}\nsecond line</td>`);
    expect(mail.html).not.toContain('Phone');
  });

  it('password reset: the link escaped in the attribute and written out', () => {
    const mail = passwordResetMail({
      locale: 'en',
      brandName: HOSTILE,
      email: 'owner@acme.example',
      link: 'https://leads.example/reset-password?token=a"b',
      lifetimeMinutes: 60,
      forgotLink: 'https://leads.example/forgot-password',
    });
    expect(mail.subject).toBe('Reset your lead-intake password');
    expect(mail.text).toContain('The link works once, for 60 minutes.');
    expect(mail.html).toContain('href="https://leads.example/reset-password?token=a&quot;b"');
    expect(mail.html).toContain(`for ${ESCAPED} on lead-intake.`);
    expect(mail.html).not.toContain('<img');
  });
});

describe('the mail templates in Dutch', () => {
  it('receipt: formal, and a greeting without a name', () => {
    const mail = receiptMail({
      locale: 'nl',
      brandName: 'De Vries',
      brandCountry: 'NL',
      title: 'Lekkage',
      description: null,
      contact: { phone: '+32470123456' },
    });
    expect(mail.subject).toBe('Uw aanvraag bij De Vries is ontvangen');
    expect(mail.text.startsWith('Geachte heer, mevrouw,\n\nHartelijk dank voor uw aanvraag.')).toBe(true);
    // A Belgian number in a Dutch brand: international.
    expect(mail.text).toContain('Telefoon: +32 470 12 34 56\n');
    expect(mail.html).toMatch(/^<!doctype html>\n<html lang="nl">/);
    expect(mailLanguage(mail.html)).toBe('nl');
  });

  it('new lead: priority labels, and the time it came in, in the brand’s zone', () => {
    const mail = newLeadMail({
      locale: 'nl',
      brandName: 'De Vries',
      brandCountry: 'NL',
      timeZone: 'Europe/Amsterdam',
      receivedAt: Date.parse('2026-03-29T01:30:00Z'),
      title: 'Storing',
      priority: 'low',
      contact: { companyName: 'Bakkerij Jansen' },
      link: 'https://leads.example/dashboard/leads/wrk_1',
      settingsLink: 'https://leads.example/dashboard/settings/users',
    });
    expect(mail.text).toContain('Klant:      Bakkerij Jansen\n');
    expect(mail.text).toContain('Prioriteit: Laag\n');
    expect(mail.text).toContain('Ontvangen:  zo 29 mrt 2026, 03:30\n');
  });

  it('password reset: minutes counted in Dutch', () => {
    const mail = passwordResetMail({
      locale: 'nl',
      brandName: 'De Vries',
      email: 'jan@devries.example',
      link: 'https://leads.example/reset-password?token=x',
      lifetimeMinutes: 1,
      forgotLink: 'https://leads.example/forgot-password',
    });
    expect(mail.subject).toBe('Nieuw wachtwoord voor lead-intake');
    expect(mail.text).toContain('De link werkt één keer en is 1 minuut geldig.');
  });

  it('the language of a mail comes from data; the fallback is the caller’s', () => {
    expect(mailLocale(['xx', null, 'nl'], 'en')).toBe('nl');
    expect(mailLocale([undefined], 'nl')).toBe('nl');
    expect(mailLanguage('<p>no document</p>')).toBeNull();
  });
});
