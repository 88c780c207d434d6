// "Get started" (/dashboard/start, issue 30): the first-run checklist that leads a new business to its website form
// first. Each step ticks itself off from what is really there: a form, a lead from it, the new-lead mail sent (over
// real SMTP). Admins only; dismissable; every post needs the form token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formPoster } from '../api.js';
import { expectToContain } from '../expect-text.js';
import { createTestContext, dialects, type TestContext, waitFor } from '../helpers.js';
import { type SmtpReceiver, startSmtp, testMail } from '../mail/smtp.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

const START = '/dashboard/start';
const PUBLIC_URL = 'https://leads.acme.example';
const OWNER = 'owner@acme.example';

const stepsOf = (body: string) =>
  Object.fromEntries([...body.matchAll(/data-step="(\w+)" data-done="(yes|no)"/g)].map((m) => [m[1], m[2]]));

describe.each(dialects())('Get started on %s', (dialect) => {
  let ctx: TestContext;
  let smtp: SmtpReceiver;
  let admin: Browser;

  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createTestContext(dialect, { mail: testMail(smtp.url()), publicUrl: PUBLIC_URL });
    await addUser(ctx.app, ctx.brandId, OWNER, 'owner');
    await addUser(ctx.app, ctx.brandId, 'member@acme.example', 'member');
    admin = await signedIn(ctx.app, OWNER);
  });
  afterAll(async () => {
    await ctx?.close();
    await smtp?.close();
  });

  const formsOf = () =>
    ctx.app.deps.database.db.selectFrom('forms').selectAll().where('brand_id', '=', ctx.brandId).execute();

  it('starts with nothing done, and the empty lead list leads there', async () => {
    const leads = await admin.get('/dashboard/leads');
    expect(leads.body).toContain(`href="${START}"`);
    expect(textOf(leads.body)).toContain('New here? Get started');
    const page = await admin.get(START);
    expect(page.statusCode).toBe(200);
    expect(stepsOf(page.body)).toEqual({ form: 'no', snippet: 'no', lead: 'no', mail: 'no' });
    expectToContain(textOf(page.body), [
      '0 of 4 steps done.',
      'Set up your website form',
      'Paste the snippet on your website',
      'Send a test lead',
      'See the mail',
      'Then the rest',
      'Invite your colleagues',
    ]);
    expect(page.body).toContain('href="/dashboard/settings/api-keys"');
  });

  it('is for admins: a member is refused and finds no link on the empty list', async () => {
    const member = await signedIn(ctx.app, 'member@acme.example');
    expect((await member.get(START)).statusCode).toBe(403);
    expect((await member.get('/dashboard/leads')).body).not.toContain(`href="${START}"`);
    expect((await member.post(`${START}/form`)).statusCode).toBe(403);
    // Without the page's token an admin's post is refused too.
    await admin.get(START);
    expect((await admin.post(`${START}/form`, { _csrf: undefined })).statusCode).toBe(403);
    expect(await formsOf()).toEqual([]);
  });

  it('makes the website form in one click, once, and shows its snippet and hosted page', async () => {
    await admin.get(START);
    const made = await admin.post(`${START}/form`);
    expect(made.statusCode).toBe(303);
    expect(made.headers.location).toBe(`${START}?done=form#step-snippet`);
    expect((await admin.post(`${START}/form`)).statusCode).toBe(303);
    const forms = await formsOf();
    expect(forms).toHaveLength(1);
    expect(forms[0]).toMatchObject({ name: 'Website', enabled: 1, allowed_origins: '[]' });
    const page = await admin.get(`${START}?done=form`);
    expect(textOf(page.body)).toContain('Your website form is made.');
    expect(stepsOf(page.body)).toMatchObject({ form: 'yes', snippet: 'no' });
    const endpoint = `${PUBLIC_URL}/f/${forms[0]!.id}`;
    // The snippet to paste (escaped inside its textarea), with a copy button the script reveals.
    expect(page.body).toMatch(/<textarea id="start-snippet"[^>]*>&lt;form[^<]*action=&quot;/);
    expect(page.body).toContain('data-copy="start-snippet" hidden');
    expect(page.body).toContain(`href="${endpoint}" target="_blank"`);
    expect(page.body).toContain(`href="/dashboard/settings/forms/${forms[0]!.id}"`);
  });

  it('allows the website’s address, refusing what is no origin and storing nothing then', async () => {
    await admin.get(START);
    const bad = await admin.post(`${START}/origin`, { origin: 'not a site' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('aria-invalid="true"');
    expect(bad.body).toContain('value="not a site"');
    expect((await admin.post(`${START}/origin`, { origin: '' })).statusCode).toBe(422);
    expect((await formsOf())[0]!.allowed_origins).toBe('[]');
    const good = await admin.post(`${START}/origin`, { origin: 'https://www.acme.example/contact' });
    expect(good.statusCode, textOf(good.body)).toBe(303);
    expect(JSON.parse((await formsOf())[0]!.allowed_origins)).toEqual(['https://www.acme.example']);
    const page = await admin.get(`${START}?done=origin`);
    expect(textOf(page.body)).toContain('Your website may now send leads to the form.');
    expect(textOf(page.body)).toContain('The form takes posts from: https://www.acme.example');
  });

  it('ticks off the test lead and the mail once the lead came through the form and its mail went out', async () => {
    const [form] = await formsOf();
    const site = formPoster(() => ctx.app, 'https://www.acme.example');
    const posted = await site.form(form!.id, {
      title: 'Test: leaking tap',
      customerName: 'Owner Testing',
      email: 'owner-test@acme.example',
      street: 'Prinsengracht',
      streetNumber: '1',
      postalCode: '1016 GV',
      city: 'Amsterdam',
    });
    expect(posted.statusCode, posted.body).toBe(303);
    await waitFor(() => smtp.to(OWNER)[0], 'the new-lead mail');
    const page = await waitFor(async () => {
      const res = await admin.get(START);
      return stepsOf(res.body).mail === 'yes' ? res : undefined;
    }, 'the mail step ticked');
    expect(stepsOf(page.body)).toEqual({ form: 'yes', snippet: 'yes', lead: 'yes', mail: 'yes' });
    const text = textOf(page.body);
    expectToContain(text, [
      '4 of 4 steps done.',
      'Your test lead Test: leaking tap arrived.',
      `The new-lead mail went to ${OWNER}`,
      'from Acme Plumbing <leads@acme.example>',
      'All set',
    ]);
    const lead = await ctx.app.deps.database.db
      .selectFrom('leads')
      .select(['id', 'customer_id'])
      .where('title', '=', 'Test: leaking tap')
      .executeTakeFirstOrThrow();
    expect(page.body).toContain(`href="/dashboard/leads/${lead.id}"`);
    // Easy to remove: the erase page of its customer.
    expect(page.body).toContain(`href="/dashboard/customers/${lead.customer_id}/erase"`);
    expect((await admin.get(`/dashboard/customers/${lead.customer_id}/erase`)).statusCode).toBe(200);
  });

  it('can be hidden; the empty lead list then stops pointing to it', async () => {
    await admin.get(START);
    const hidden = await admin.post(`${START}/dismiss`);
    expect(hidden.statusCode).toBe(303);
    const brand = await ctx.app.deps.database.db
      .selectFrom('brands')
      .select('first_run_dismissed_at')
      .where('id', '=', ctx.brandId)
      .executeTakeFirstOrThrow();
    expect(brand.first_run_dismissed_at).not.toBeNull();
    // Still reachable, without the hide button.
    const page = await admin.get(START);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(`action="${START}/dismiss"`);
  });
});

describe.each(dialects())('Get started without email on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    await addUser(ctx.app, ctx.brandId, OWNER, 'owner');
  });
  afterAll(async () => ctx?.close());

  it('says how email is turned on, and hidden it leaves the empty lead list as before', async () => {
    const admin = await signedIn(ctx.app, OWNER);
    const page = await admin.get(START);
    expect(textOf(page.body)).toContain('Email is off, so no mail is sent for new leads.');
    expect(page.body).toContain('<code>SMTP_URL</code>');
    await admin.post(`${START}/dismiss`);
    const leads = await admin.get('/dashboard/leads');
    expect(leads.body).not.toContain(`href="${START}"`);
    expect(textOf(leads.body)).toContain('No leads yet');
  });
});
