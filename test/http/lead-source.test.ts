// Where a lead came from: `source` and `sourceFormName` on list items, the `source` filter of the lists (API and
// dashboard), and the lead page naming the form, its consent, extra fields and attribution.
import { beforeAll, describe, expect, it } from 'vitest';
import { formPoster } from '../api.js';
import { addUser, signedIn, textOf } from '../dashboard/helpers.js';
import { dialects, validLead } from '../helpers.js';
import { useTestContext } from '../test-context.js';

const ORIGIN = 'https://www.bakker.example';

describe.each(dialects())('lead sources on %s', (dialect) => {
  const ctx = useTestContext(dialect);
  let formId: string;
  let fromApi: string;
  let fromForm: string;

  beforeAll(async () => {
    const form = await ctx.api.post('/v1/forms', {
      name: 'Contact <page>',
      allowedOrigins: [ORIGIN],
      consentText: 'You may call me',
    });
    expect(form.statusCode, form.body).toBe(201);
    formId = form.json().id;
    fromApi = (await ctx.createLead(validLead({ title: 'Through the API' }))).id as string;
    const posted = await formPoster(ctx.app, ORIGIN).json(formId, {
      ...validLead({ title: 'Through the form' }),
      consent: true,
      howDidYouHear: 'Neighbour <b>told</b> me',
      utm_source: 'flyer',
    });
    expect(posted.statusCode, posted.body).toBe(201);
    fromForm = posted.json().id;
  });

  it('list items say where each lead came from', async () => {
    const res = await ctx.api.get('/v1/leads');
    expect(res.statusCode).toBe(200);
    const byId = new Map(res.json().data.map((item: { id: string }) => [item.id, item]));
    expect(byId.get(fromApi)).toMatchObject({ source: 'website', sourceFormName: null });
    expect(byId.get(fromForm)).toMatchObject({ source: 'form', sourceFormName: 'Contact <page>' });
  });

  it('filters by one or more sources, and names a bad one', async () => {
    const ids = async (query: string) =>
      (await ctx.api.get(`/v1/leads${query}`)).json().data.map((item: { id: string }) => item.id) as string[];
    expect(await ids('?source=form')).toEqual([fromForm]);
    expect(await ids('?source=website')).toEqual([fromApi]);
    expect((await ids('?source=website,%20form')).sort()).toEqual([fromApi, fromForm].sort());
    const bad = await ctx.api.get('/v1/leads?source=fax');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors).toEqual([
      {
        field: 'source',
        message: 'must be one or more of website, form, phone, dashboard (comma-separated)',
      },
    ]);
  });

  it('the dashboard filters by source and shows it under each job and on the lead page', async () => {
    await addUser(ctx.app, ctx.brandId, 'office@bakker.example');
    const browser = await signedIn(ctx.app, 'office@bakker.example');
    const all = await browser.get('/dashboard/leads');
    expect(all.statusCode).toBe(200);
    expect(all.body).toContain('<select id="field-source" name="source">');
    expect(all.body).toContain('Website form “Contact &lt;page&gt;”');
    const forms = await browser.get('/dashboard/leads?source=form');
    expect(forms.body).toContain('Through the form');
    expect(forms.body).not.toContain('Through the API');
    expect(forms.body).toContain('<option value="form" selected>');
    const api = await browser.get('/dashboard/leads?source=website');
    expect(api.body).toContain('Through the API');
    expect(api.body).not.toContain('Through the form');
    const bad = await browser.get('/dashboard/leads?source=fax');
    expect(bad.statusCode).toBe(422);
    expect(textOf(bad.body)).toContain('Source is not one we know: choose a source from the list.');

    const page = await browser.get(`/dashboard/leads/${fromForm}`);
    const text = textOf(page.body);
    expect(text).toContain('Website form “Contact <page>”');
    expect(text).toContain('Agreed to “You may call me”');
    expect(text).toContain('Neighbour <b>told</b> me');
    expect(page.body).not.toContain('<b>told</b>');
    expect(text).toContain('utm_source');
    expect(text).toContain('flyer');
  });
});
