// Phones in the dashboard are shown as people write them: national when the number is of the brand's country,
// international with spaces otherwise. tel: links keep E.164 so every phone can dial them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPhone } from '../../src/shared/phone.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

describe('formatPhone', () => {
  it('writes a number of the given country nationally, any other internationally with spaces', () => {
    expect(formatPhone('+31612345678', 'NL')).toBe('06 12345678');
    expect(formatPhone('+31612345678', 'nl')).toBe('06 12345678');
    expect(formatPhone('+32470123456', 'NL')).toBe('+32 470 12 34 56');
    expect(formatPhone('+32470123456', 'BE')).toBe('0470 12 34 56');
    expect(formatPhone('+442079460000', 'NL')).toBe('+44 20 7946 0000');
  });

  it('without a country, internationally; what it cannot read, unchanged', () => {
    expect(formatPhone('+31612345678')).toBe('+31 6 12345678');
    expect(formatPhone('not a phone', 'NL')).toBe('not a phone');
  });
});

describe.each(dialects())('phones in the dashboard on %s', (dialect) => {
  let ctx: TestContext;
  let browser: Browser;
  let other: Browser;
  let dutch: { id: string };
  let belgian: { id: string };

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    await addUser(ctx.app, ctx.brandId, 'office@acme.example');
    await addUser(ctx.app, ctx.otherBrandId, 'office@other.example');
    browser = await signedIn(ctx.app, 'office@acme.example');
    other = await signedIn(ctx.app, 'office@other.example');
    dutch = (await ctx.createLead({
      title: 'Dutch caller',
      email: undefined,
      phone: '+31612345678',
    })) as never;
    belgian = (await ctx.createLead({ title: 'Belgian caller', phone: '+32470123456' })) as never;
  });
  afterAll(async () => ctx?.close());

  it('the lead list shows the phone of a customer without email as people write it', async () => {
    const res = await browser.get('/dashboard/leads');
    const row = /<tr>\s*<td data-label="Job" class="cell-title"><a[^>]*>Dutch caller[\s\S]*?<\/tr>/.exec(
      res.body,
    )?.[0];
    expect(textOf(row ?? '')).toContain('06 12345678');
    expect(row).not.toContain('+31612345678');
  });

  it('the lead page and customer page: national for the brand country, international otherwise, tel: in E.164', async () => {
    const lead = await browser.get(`/dashboard/leads/${dutch.id}`);
    expect(lead.body).toContain('<a href="tel:+31612345678">06 12345678</a>');
    const customerId = /href="\/dashboard\/customers\/(cus_[0-9A-Za-z]+)"/.exec(lead.body)?.[1];
    expect(customerId).toBeDefined();
    const customer = await browser.get(`/dashboard/customers/${customerId}`);
    expect(customer.body).toContain('<a href="tel:+31612345678">06 12345678</a>');
    const abroad = await browser.get(`/dashboard/leads/${belgian.id}`);
    expect(abroad.body).toContain('<a href="tel:+32470123456">+32 470 12 34 56</a>');
  });

  it("follows the signed-in user's brand: a Belgian brand writes Belgian numbers nationally", async () => {
    const lead = (await ctx.createLead({ title: 'Gent', phone: '+32470123457' }, ctx.keys.other)) as {
      id: string;
    };
    const res = await other.get(`/dashboard/leads/${lead.id}`);
    expect(res.body).toContain('<a href="tel:+32470123457">0470 12 34 57</a>');
  });
});
