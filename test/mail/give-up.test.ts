// A mail the server keeps refusing for the whole retry window ends failed: logged at warn (id and reason, never
// the message) and listed on Settings > Users. A retry window of 1.5 s stands in for 24 hours.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { brandWithKeyAndOwner, signedIn, textOf } from '../dashboard/helpers.js';
import { dialects, dropSchema, testConfig, validLead, waitFor } from '../helpers.js';
import { type SmtpReceiver, startSmtp, testMail } from './smtp.js';

describe.each(dialects())('a mail that keeps failing on %s', (dialect) => {
  let app: App;
  let smtp: SmtpReceiver;
  let key: string;
  const logs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    smtp = await startSmtp({ answer: 'try-later' });
    const config = testConfig(dialect, {
      logLevel: 'warn',
      logFormat: 'json',
      mail: testMail(smtp.url(), { retryWindowMs: 1500 }),
    });
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line));
        done();
      },
    });
    app = await buildApp(config, { logger: { stream }, defaultMetrics: false });
    await app.ready();
    ({ key } = await brandWithKeyAndOwner(app));
  });
  afterAll(async () => {
    if (app) {
      await dropSchema(app);
      await app.close();
    }
    await smtp?.close();
  });

  it('ends failed after the window, logs each failure at warn, and the settings page lists it', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/leads',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: validLead({ title: 'Never <arrives>', customerName: 'Private Person' }),
    });
    expect(res.statusCode).toBe(201);
    const row = await waitFor(
      () =>
        app.deps.database.db
          .selectFrom('email_outbox')
          .selectAll()
          .where('status', '=', 'failed')
          .executeTakeFirst(),
      'the mail to fail',
    );
    expect(row).toMatchObject({ recipient: 'owner@acme.example', subject: 'New lead: Never <arrives>' });
    expect(row.attempt).toBeGreaterThanOrEqual(2);
    expect(row.last_error).toMatch(/451/);
    expect(row.sent_at).toBeNull();
    expect(row.lease_owner).toBeNull();
    expect(smtp.received).toEqual([]);

    const mine = logs.filter((l) => l.emailId === row.id);
    expect(mine.every((l) => l.level === 40)).toBe(true);
    expect(mine.filter((l) => /it is retried/.test(String(l.msg))).length).toBe(row.attempt - 1);
    expect(mine.at(-1)).toMatchObject({ attempt: row.attempt, msg: expect.stringMatching(/given up/) });
    expect(mine.every((l) => /451/.test(String(l.reason)))).toBe(true);
    // The reason, never the message: no customer data, no credentials.
    const logged = JSON.stringify(logs);
    expect(logged).not.toContain('Private Person');
    expect(logged).not.toContain('Never <arrives>');
    expect(logged).not.toContain('secret-password');

    const browser = await signedIn(app, 'owner@acme.example');
    const page = await browser.get('/dashboard/settings/users');
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('Email is on . Mails come from Acme Plumbing <leads@acme.example> .');
    expect(text).toContain('Mails that could not be sent');
    expect(text).toMatch(
      /owner@acme\.example New lead: Never <arrives> EMESSAGE: 451 Try again later \w{3}, \d/,
    );
    expect(page.body).toContain('New lead: Never &lt;arrives&gt;');
    expect(page.body).not.toContain('secret-password');
  });
});
