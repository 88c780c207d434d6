// Mails in the reader's language, end to end over real SMTP (smtp-server on 127.0.0.1, parsed with mailparser):
// the new-lead mail in each office user's own language, the receipt in the form's, the password reset in the
// user's. Each carries Content-Language and <html lang>; a Dutch mail holds no English sentence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { requestPasswordReset } from '../../src/accounts/password-resets.js';
import { createLead } from '../../src/leads/create.js';
import { parseLeadInput } from '../../src/leads/input.js';
import { translator } from '../../src/shared/i18n/index.js';
import { apiClient, formPoster } from '../api.js';
import { addUser } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext, validLead, waitFor } from '../helpers.js';
import { type ReceivedMail, type SmtpReceiver, startSmtp, testMail } from './smtp.js';

const PUBLIC_URL = 'https://leads.devries.example';
const ORIGIN = 'https://www.devries.example';
const ADDRESS = { street: 'Prinsengracht', streetNumber: '1', postalCode: '1016 GV', city: 'Amsterdam' };

/** English words and sentences of the mails that must not be left in a Dutch one. */
const ENGLISH = [
  'New lead',
  'Customer',
  'Phone',
  'Priority',
  'Urgent',
  'Received',
  'Open the lead',
  'Open it in',
  'You get this mail',
  'Settings',
  'Users',
  'Dear',
  'Hello',
  'Thank you',
  'What you sent',
  'Request',
  'Address',
  'regards',
  'If anything',
  'Reset your',
  'password',
  'Someone asked',
  'The link works',
  'minutes',
  'ignore',
  'Link expired',
  'Ask for a new',
];

function bodiesOf(mail: ReceivedMail): { text: string; html: string } {
  return { text: mail.parsed.text ?? '', html: String(mail.parsed.html) };
}

function expectLanguage(mail: ReceivedMail, locale: 'nl' | 'en'): void {
  expect(mail.parsed.headers.get('content-language')).toBe(locale);
  expect(String(mail.parsed.html)).toMatch(new RegExp(`^<!doctype html>\\s*<html lang="${locale}">`));
}

function expectNoEnglish(mail: ReceivedMail): void {
  const { text, html } = bodiesOf(mail);
  // Links are the service's own addresses, not sentences.
  const sentences = (body: string) => body.replace(/https?:\/\/\S+/g, ' ');
  for (const body of [mail.parsed.subject ?? '', sentences(text), sentences(html.replace(/<[^>]*>/g, ' '))]) {
    for (const word of ENGLISH) expect(body, `"${word}" in a Dutch mail`).not.toContain(word);
  }
}

describe.each(dialects())('mails in the reader’s language on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;
  let brandId: string;
  let key: string;
  let nlForm: string;
  let enForm: string;
  let typist: { id: string };
  const dutchUser = 'jan@devries.example';
  const englishUser = 'emma@devries.example';

  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createTestContext(dialect, { mail: testMail(smtp.url()), publicUrl: PUBLIC_URL });
    const database = ctx.app.deps.database;
    // A Dutch business (language nl by its country), one office user reading Dutch, one English.
    const brand = await createBrand(database, { name: 'Loodgietersbedrijf De Vries', country: 'NL' });
    expect(brand.language).toBe('nl');
    brandId = brand.id;
    key = (await createApiKey(database, { brandId, name: 'site', scopes: ['full'] })).key;
    const dutch = await addUser(ctx.app, brandId, dutchUser, 'owner');
    await addUser(ctx.app, brandId, englishUser, 'owner');
    await database.db.updateTable('users').set({ language: 'nl' }).where('id', '=', dutch.id).execute();
    // Whoever types a lead in gets no mail about it (issue 30): a third user types them.
    typist = await addUser(ctx.app, brandId, 'typist@devries.example', 'member');
    const api = apiClient(ctx.app, key);
    const newForm = async (language: 'nl' | 'en') => {
      const res = await api.post('/v1/forms', {
        name: `Site ${language}`,
        allowedOrigins: [ORIGIN],
        autoReply: true,
      });
      expect(res.statusCode, res.body).toBe(201);
      const id = res.json().id as string;
      await database.db.updateTable('forms').set({ language }).where('id', '=', id).execute();
      return id;
    };
    nlForm = await newForm('nl');
    enForm = await newForm('en');
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  const site = formPoster(() => ctx.app, ORIGIN);
  const mailTo = (address: string, subject: string) =>
    waitFor(() => smtp.to(address).find((m) => m.parsed.subject === subject), `"${subject}" to ${address}`);

  it('mails the new lead to each office user in their own language', async () => {
    const res = await apiClient(ctx.app, key).post(
      '/v1/leads',
      validLead({
        title: 'Lekkende kraan',
        customerName: 'Sanne de Vries',
        companyName: 'De Vries BV',
        phone: '+31612345678',
        priority: 'urgent',
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const lead = res.json();
    const dutch = await mailTo(dutchUser, 'Nieuwe aanvraag: Lekkende kraan');
    const english = await mailTo(englishUser, 'New lead: Lekkende kraan');
    expect(smtp.to(dutchUser).filter((m) => m.parsed.subject?.includes('Lekkende kraan'))).toHaveLength(1);
    expect(smtp.to(englishUser).filter((m) => m.parsed.subject?.includes('Lekkende kraan'))).toHaveLength(1);

    expectLanguage(dutch, 'nl');
    const received = translator('nl').dateTime(lead.createdAt, 'Europe/Amsterdam');
    const nl = bodiesOf(dutch);
    for (const line of [
      'Nieuwe aanvraag voor Loodgietersbedrijf De Vries\n',
      'Klant:      Sanne de Vries (De Vries BV)\n',
      'Telefoon:   06 12345678\n',
      'Prioriteit: Spoed\n',
      `Ontvangen:  ${received}\n`,
      `Bekijk de aanvraag in het dashboard:\n${PUBLIC_URL}/dashboard/leads/${lead.id}\n`,
      `Je krijgt deze mail omdat je hebt gekozen voor een mail bij elke nieuwe aanvraag. Wijzig dat onder Instellingen > Je account: ${PUBLIC_URL}/dashboard/settings/account#new-lead-mail`,
    ]) {
      expect(nl.text).toContain(line);
    }
    expect(nl.html).toContain('>Aanvraag openen</a>');
    expect(nl.html).toContain(
      `<a href="${PUBLIC_URL}/dashboard/settings/account#new-lead-mail" style="color:#59636e">Wijzig dat onder Instellingen &gt; Je account</a>.`,
    );
    expect(received).toMatch(/^(ma|di|wo|do|vr|za|zo) \d{1,2} [a-z]{3,4}\.? \d{4}, \d\d:\d\d$/);
    expectNoEnglish(dutch);

    expectLanguage(english, 'en');
    const en = bodiesOf(english);
    for (const line of [
      'New lead for Loodgietersbedrijf De Vries\n',
      'Customer: Sanne de Vries (De Vries BV)\n',
      'Phone:    06 12345678\n',
      'Priority: Urgent\n',
      `Received: ${translator('en').dateTime(lead.createdAt, 'Europe/Amsterdam')}\n`,
      'Open it in the dashboard:',
    ]) {
      expect(en.text).toContain(line);
    }
    expect(en.html).toContain('>Open the lead</a>');
    expect(`${en.text}${en.html}`).not.toMatch(/Nieuwe aanvraag|Klant|Spoed|Instellingen/);
  });

  it('sends the receipt in the form’s language: Dutch for a Dutch form, English for an English one', async () => {
    const fields = {
      ...ADDRESS,
      title: 'CV-ketel maakt lawaai',
      description: 'Sinds maandag.\nVooral ’s nachts.',
      customerName: 'Piet Bakker',
      phone: '06 1234 5678',
    };
    expect((await site.form(nlForm, { ...fields, email: 'piet@bakker.example' })).statusCode).toBe(303);
    expect((await site.form(enForm, { ...fields, email: 'pete@baker.example' })).statusCode).toBe(303);

    const dutch = await mailTo(
      'piet@bakker.example',
      'Uw aanvraag bij Loodgietersbedrijf De Vries is ontvangen',
    );
    expectLanguage(dutch, 'nl');
    const nl = bodiesOf(dutch);
    expect(nl.text.startsWith('Beste Piet Bakker,\n')).toBe(true);
    for (const line of [
      'Hartelijk dank voor uw aanvraag. Loodgietersbedrijf De Vries heeft deze ontvangen en neemt zo snel mogelijk contact met u op.',
      'Wat u ons heeft gestuurd:\n',
      'Aanvraag:    CV-ketel maakt lawaai\n',
      'Toelichting: Sinds maandag.\nVooral ’s nachts.\n',
      'Adres:       Prinsengracht 1, 1016 GV Amsterdam\n',
      'Telefoon:    06 12345678\n',
      'E-mail:      piet@bakker.example\n',
      'Klopt er iets niet? Neem dan contact op met Loodgietersbedrijf De Vries.',
      'Met vriendelijke groet,\nLoodgietersbedrijf De Vries\n',
    ]) {
      expect(nl.text).toContain(line);
    }
    expect(nl.html).toContain('<title>Uw aanvraag bij Loodgietersbedrijf De Vries</title>');
    expect(nl.html).toContain('Beste Piet Bakker,');
    expectNoEnglish(dutch);

    const english = await mailTo(
      'pete@baker.example',
      'Your request to Loodgietersbedrijf De Vries has been received',
    );
    expectLanguage(english, 'en');
    const en = bodiesOf(english);
    expect(en.text.startsWith('Dear Piet Bakker,\n')).toBe(true);
    expect(en.text).toContain('Thank you for your request. Loodgietersbedrijf De Vries has received it');
    expect(en.text).toContain('Phone:    06 12345678\n');
    expect(en.text).toContain('Kind regards,\nLoodgietersbedrijf De Vries\n');
    expect(`${en.text}${en.html}`).not.toMatch(/Beste|Hartelijk|Telefoon|groet/);
  });

  it('a lead typed in the dashboard or sent by the API mails the office in each user’s language, and no receipt', async () => {
    const input = parseLeadInput(
      validLead({ title: 'Telefonisch: lekkage', customerName: 'Kees Jansen', email: 'klant@example.nl' }),
    );
    const created = await createLead(
      ctx.app.deps.database,
      { brandId, source: 'phone', keyId: null, keyName: null, user: { id: typist.id, name: 'Jan' } },
      input,
    );
    const dutch = await mailTo(dutchUser, 'Nieuwe aanvraag: Telefonisch: lekkage');
    await mailTo(englishUser, 'New lead: Telefonisch: lekkage');
    expectNoEnglish(dutch);
    // Receipts are a form's auto-reply (api-contract: "A form with autoReply also sends the customer a receipt").
    const rows = await ctx.app.deps.database.db
      .selectFrom('email_outbox')
      .select(['kind', 'recipient'])
      .where('brand_id', '=', brandId)
      .where('recipient', '=', 'klant@example.nl')
      .execute();
    expect(rows).toEqual([]);
    expect(created.id).toMatch(/^wrk_/);
  });

  it('mails the password reset link in the user’s language', async () => {
    const store = ctx.app.deps.database;
    expect((await requestPasswordReset(store, { email: dutchUser, address: '10.7.0.1' })).outcome).toBe(
      'accepted',
    );
    expect((await requestPasswordReset(store, { email: englishUser, address: '10.7.0.2' })).outcome).toBe(
      'accepted',
    );
    const dutch = await mailTo(dutchUser, 'Nieuw wachtwoord voor lead-intake');
    expectLanguage(dutch, 'nl');
    const nl = bodiesOf(dutch);
    for (const line of [
      `Er is gevraagd om een nieuw wachtwoord voor ${dutchUser} bij Loodgietersbedrijf De Vries op lead-intake.`,
      `Kies hier een nieuw wachtwoord:\n${PUBLIC_URL}/reset-password?token=`,
      'De link werkt één keer en is 60 minuten geldig. Na het instellen ben je overal uitgelogd en log je in met je nieuwe wachtwoord.',
      'Heb je hier niet om gevraagd? Dan kun je deze mail negeren',
      `Is de link verlopen? Vraag een nieuwe aan: ${PUBLIC_URL}/forgot-password`,
    ]) {
      expect(nl.text).toContain(line);
    }
    expect(nl.html).toContain(
      '<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3">Nieuw wachtwoord instellen</h1>',
    );
    expect(nl.html).toContain('>Nieuw wachtwoord kiezen</a>');
    expect(nl.html).toContain(
      `Is de link verlopen? <a href="${PUBLIC_URL}/forgot-password" style="color:#59636e">Vraag een nieuwe aan</a>.`,
    );
    expectNoEnglish(dutch);

    const english = await mailTo(englishUser, 'Reset your lead-intake password');
    expectLanguage(english, 'en');
    expect(bodiesOf(english).text).toContain('The link works once, for 60 minutes.');
  });
});
