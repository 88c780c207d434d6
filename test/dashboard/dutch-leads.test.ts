// The office's lead, work-item and customer pages in Dutch for a Dutch user (and still English for an English one):
// <html lang> and Content-Language, Dutch words, ICU plurals, dates in Dutch in the brand's zone, Dutch field
// errors; and the dashboard's CSV export for Dutch readers: `;` between cells, local times, national phones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../src/accounts/sessions.js';
import type { App } from '../../src/app.js';
import { SESSION_COOKIE } from '../../src/platform/web/cookies.js';
import { expectToContain } from '../expect-text.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { addUser, Browser, phonedInLead, textOf } from './helpers.js';

/** English words that must not be left on a Dutch page (as text people read, not in markup or values). */
const ENGLISH = [
  'Leads',
  'Work items',
  'Status',
  'Customer',
  'Save',
  'Priority',
  'Received',
  'Search',
  'Apply',
  'Job',
  'Edit',
  'Next step',
  'Visit',
  'Notes',
  'Week must',
  'is required',
  'There are',
  'Nobody yet',
];

function expectDutch(res: { statusCode: number; headers: Record<string, unknown>; body: string }): string {
  expect(res.headers['content-language']).toBe('nl');
  expect(res.body).toMatch(/<html lang="nl">/);
  const text = textOf(res.body);
  for (const word of ENGLISH) expect(text, word).not.toContain(word);
  return text;
}

/** A browser with a session of the user, made directly (the sign-in page is not what is tested here). */
async function sessionOf(app: App, userId: string): Promise<Browser> {
  const browser = new Browser(app);
  const session = await createSession(app.deps.database, userId);
  browser.cookies.set(SESSION_COOKIE, session.token);
  return browser;
}

/** "2026-11-24 10:30:00": the moment in Amsterdam, as the Dutch CSV writes it. */
function amsterdam(iso: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Europe/Amsterdam',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

describe.each(dialects())('the lead pages in Dutch on %s', (dialect) => {
  let ctx: TestContext;
  let dutch: Browser;
  let english: Browser;
  let tap: Record<string, unknown>;
  let boiler: Record<string, unknown>;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    const db = ctx.app.deps.database.db;
    await db.updateTable('brands').set({ language: 'nl' }).where('id', '=', ctx.brandId).execute();
    const anna = await addUser(ctx.app, ctx.brandId, 'anna@acme.example', 'owner');
    await db.updateTable('users').set({ language: 'nl', name: 'Anna' }).where('id', '=', anna.id).execute();
    const sam = await addUser(ctx.app, ctx.brandId, 'sam@acme.example', 'member');
    dutch = await sessionOf(ctx.app, anna.id);
    english = await sessionOf(ctx.app, sam.id);
    tap = await ctx.createLead({
      title: 'Lekkende kraan, keuken',
      customerName: 'Joke de Boer',
      email: 'joke@example.nl',
      phone: '+31612345678',
      priority: 'high',
    });
    boiler = await ctx.createLead({
      title: 'Cv-ketel onderhoud',
      customerName: 'Pieter Smit',
      email: 'pieter@example.nl',
      phone: '+32470123456',
    });
  });
  afterAll(async () => ctx?.close());

  it('the leads list: Dutch words, counts and filters; an English user still reads English', async () => {
    const res = await dutch.get('/dashboard/leads');
    expect(res.statusCode).toBe(200);
    const text = expectDutch(res);
    expectToContain(text, [
      'Aanvragen',
      'Nieuwe aanvraag',
      'Nieuwe aanvragen en offertes, nieuwste eerst.',
      '1–2 van 2',
      '2 aanvragen in de afgelopen 30 dagen',
      'Exporteren als CSV',
      'Hoog',
    ]);
    expect(res.body).toContain('<th scope="col">Prioriteit</th>');
    expect(res.body).toContain(
      '<td data-label="Fase"><span class="badge badge-request">Aanvraag</span></td>',
    );

    expect(textOf((await dutch.get('/dashboard/leads?priority=urgent')).body)).toContain('0 aanvragen');
    expect(textOf((await dutch.get('/dashboard/leads?q=kraan')).body)).toContain('1–1 van 1');
    expect(textOf((await dutch.get('/dashboard/work-items')).body)).toContain('0 werkbonnen');

    const bad = await dutch.get('/dashboard/leads?priority=soon');
    expect(bad.statusCode).toBe(422);
    expect(expectDutch(bad)).toContain(
      'Er is een probleem Prioriteit: deze waarde kennen we niet; kies een prioriteit uit de lijst.',
    );

    const en = await english.get('/dashboard/leads');
    expect(en.headers['content-language']).toBe('en');
    expect(en.body).toMatch(/<html lang="en">/);
    expect(textOf(en.body)).toContain('New requests and quotes, newest first.');
    expect(textOf(en.body)).toContain('1–2 of 2');
  });

  it('a lead page: Dutch sections, states and dates in Dutch in the brand’s zone', async () => {
    const res = await dutch.get(`/dashboard/leads/${tap.id}`);
    expect(res.statusCode).toBe(200);
    const text = expectDutch(res);
    for (const words of ['Volgende stap', 'Klus', 'Klant', 'Adres', 'Notities en geschiedenis', 'Herkomst']) {
      expect(text).toContain(words);
    }
    expectToContain(text, [
      'Markeren als offerte verstuurd',
      'Inplannen',
      'Aanvraag annuleren',
      '06 12345678',
    ]);
    expect(res.body).toMatch(
      /Ontvangen op <time datetime="[^"]+" title="Europe\/Amsterdam">(ma|di|wo|do|vr|za|zo) \d{1,2} [a-z]{3}\.? 20\d\d/,
    );

    const moved = await dutch.post(`/dashboard/leads/${tap.id}/status`, {
      status: 'quoted',
      from: 'request',
    });
    expect(moved.statusCode).toBe(303);
    const after = await dutch.get(moved.headers.location as string);
    expect(expectDutch(after)).toContain('Fase gewijzigd naar Offerte verstuurd');
    expect(textOf(after.body)).toContain('door Anna');

    const stale = await dutch.post(`/dashboard/leads/${tap.id}/status`, {
      status: 'quoted',
      from: 'request',
    });
    expect(stale.statusCode).toBe(409);
    expect(expectDutch(stale)).toMatch(
      /Deze aanvraag staat al op Offerte verstuurd \(gewijzigd door Anna op /,
    );

    const note = await dutch.post(`/dashboard/leads/${tap.id}/notes`, { text: ' ' });
    expect(note.statusCode).toBe(422);
    expect(expectDutch(note)).toContain('Schrijf eerst iets voordat je de notitie toevoegt.');
  });

  it('the New lead page in Dutch, and its 422 with a Dutch error summary', async () => {
    const page = await dutch.get('/dashboard/leads/new');
    expect(page.statusCode).toBe(200);
    const text = expectDutch(page);
    expectToContain(text, ['Binnengekomen via', 'Adres van de klus', 'Aanvraag opslaan']);
    expect(page.body).toContain('<label for="field-postalCode">Postcode</label>');
    // The page script's sentences (customer match) come with the page, in Dutch.
    expectToContain(page.body, [
      'data-msg-new="Nieuwe klant: dit e-mailadres of telefoonnummer is nog bij niemand bekend."',
      'data-msg-email-other="Wordt gekoppeld aan {name} ({count} eerdere klussen), bekend met dit e-mailadres."',
      'data-msg-phone-one="Wordt gekoppeld aan {name} (1 eerdere klus), bekend met dit telefoonnummer."',
    ]);

    const res = await dutch.post(
      '/dashboard/leads/new',
      phonedInLead({ source: '', phone: '12', title: '' }),
    );
    expect(res.statusCode).toBe(422);
    const refused = expectDutch(res);
    expect(refused).toContain('Er zijn 3 problemen');
    expect(refused).toContain('Binnengekomen via: kies telefonisch of anders.');
    expect(refused).toMatch(/Telefoon moet een telefoonnummer zijn, zoals 06 ?\d+ of \+31 6 ?\d+\./);
    expect(res.body).toMatch(/<p class="error" id="field-title-error">Klus /);
  });

  it('planning and My visits in Dutch: Dutch days, durations and plurals', async () => {
    const res = await dutch.post(`/dashboard/leads/${boiler.id}/status`, {
      status: 'scheduled',
      from: 'request',
      scheduledDate: '2026-11-24',
      scheduledTime: '09:30',
      durationMinutes: '90',
      assigneeId: '',
    });
    expect(res.statusCode).toBe(303);
    const week = await dutch.get('/dashboard/planning?week=2026-W48');
    expect(week.statusCode).toBe(200);
    const text = expectDutch(week);
    expectToContain(text, [
      'Week 48: ma 23 nov – zo 29 nov 2026. Tijden in Europe/Amsterdam. 1 afspraak.',
      '09:30–11:00 Cv-ketel onderhoud',
      '1 uur 30 min',
      'Nog niemand',
      'Volgende week',
    ]);

    const bad = await dutch.get('/dashboard/planning?week=soon');
    expect(bad.statusCode).toBe(422);
    expect(expectDutch(bad)).toContain('Week moet een ISO-week zijn, zoals 2026-W48.');

    const mine = await dutch.get('/dashboard/my-visits');
    expect(expectDutch(mine)).toContain('Mijn afspraken');

    const lead = await dutch.get(`/dashboard/leads/${boiler.id}`);
    expect(expectDutch(lead)).toContain('Afspraak wijzigen');
    expect(textOf(lead.body)).toContain('+32 470 12 34 56');
  });

  it('a customer page in Dutch', async () => {
    const customer = tap.customerId as string;
    const res = await dutch.get(`/dashboard/customers/${customer}`);
    expect(res.statusCode).toBe(200);
    const text = expectDutch(res);
    for (const words of [
      'Klant sinds',
      'Contactgegevens',
      'Particulier',
      'Aanvragen en werkbonnen',
      'Telefoon',
    ]) {
      expect(text).toContain(words);
    }
    expect(text).toContain('06 12345678');
    expect(res.body).toContain('<th scope="col">Fase</th>');
  });

  it('the Dutch CSV: `;` between cells, times in Amsterdam, phones as dialled in NL; English uses `,`', async () => {
    const read = await ctx.api.get(`/v1/leads/${tap.id}`);
    const receivedAt = (read.json() as { receivedAt: string }).receivedAt;

    const nl = await dutch.get('/dashboard/leads/export.csv?status=all');
    expect(nl.statusCode).toBe(200);
    expect(nl.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, ...rows] = nl.body
      .replace(/^\ufeff/, '')
      .split('\r\n')
      .filter(Boolean);
    const columns = header!.split(';');
    expect(columns).toContain('customer.phone');
    expect(columns).toContain('receivedAt');
    expect(header).not.toContain(',');
    const row = rows.map((r) => r.split(';')).find((cells) => cells.includes('Lekkende kraan, keuken'))!;
    expect(row).toBeDefined();
    expect(row[columns.indexOf('customer.phone')]).toBe('06 12345678');
    expect(row[columns.indexOf('receivedAt')]).toBe(amsterdam(receivedAt));
    const belgian = rows.map((r) => r.split(';')).find((cells) => cells.includes('Cv-ketel onderhoud'))!;
    expect(belgian[columns.indexOf('customer.phone')]).toBe('00 32 470 12 34 56');

    const en = await english.get('/dashboard/leads/export.csv?status=all');
    expect(en.statusCode).toBe(200);
    const [enHeader, ...enRows] = en.body
      .replace(/^\ufeff/, '')
      .split('\r\n')
      .filter(Boolean);
    expect(enHeader!.split(',')).toContain('customer.phone');
    const enRow = enRows.find((r) => r.includes('"Lekkende kraan, keuken"'))!;
    // The same cells, split at `,`: times and phones as the dashboard shows them in either language.
    expect(enRow).toContain(',06 12345678,');
    expect(enRow).toContain(amsterdam(receivedAt));
    expect(enRow).not.toContain(receivedAt);

    // The API's CSV is unchanged by the brand's or anyone's language: comma, UTC, E.164.
    const api = await ctx.api.get('/v1/exports/leads.csv');
    expect(api.body.split('\r\n')[0]).toContain(',');
    expect(api.body).toContain(',+31612345678,');
    expect(api.body).toContain(receivedAt);
  });

  it('a refused Dutch export says why in Dutch', async () => {
    const res = await dutch.get('/dashboard/leads/export.csv?priority=soon');
    expect(res.statusCode).toBe(422);
    expect(expectDutch(res)).toContain(
      'Er is niets geëxporteerd: Prioriteit: deze waarde kennen we niet; kies een prioriteit uit de lijst.',
    );
  });
});
