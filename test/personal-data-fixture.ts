// A person with everything the brand can hold about them, for the personal-data export's tests (API, dashboard,
// command line): an API lead with an internal note, a state change, an edit and two files; a website-form lead
// with consent, extra fields and attribution; a spam lead with a file. Beside them what must never be in their
// export: another customer of the brand, and another brand's customer with the same email.
import { randomBytes } from 'node:crypto';
import yauzl from 'yauzl';
import type { App } from '../src/app.js';
import { updateLead } from '../src/leads/index.js';
import { apiClient } from './api.js';
import { jpeg, pdf, png } from './attachments/files.js';
import { multipart, type Part } from './multipart.js';

export const SITE = 'https://www.example.nl';

export interface PersonalDataFixture {
  customerId: string;
  email: string;
  apiLeadId: string;
  formLeadId: string;
  spamLeadId: string;
  /** The bytes uploaded, by attachment id. */
  uploads: Map<string, Buffer>;
  /** Another customer of the brand, and another brand's customer (same email): absent from the export. */
  otherCustomerId: string;
  otherBrandCustomerId: string;
  /** Text of those two that must appear nowhere in the export. */
  foreign: string[];
}

/**
 * Builds the fixture through the API and a website form. `keys.full` and `keys.other` are full keys of the
 * brand and of another brand; `keyId` the id of `keys.full` (the edit's actor).
 */
export async function personalDataFixture(
  app: App,
  brandId: string,
  keys: { full: string; other: string },
  keyId: string,
): Promise<PersonalDataFixture> {
  const api = apiClient(app, keys.full);
  const tag = randomBytes(4).toString('hex');
  const email = `anna-${tag}@example.com`;
  const ok = async (res: { statusCode: number; body: string }, status = 201) => {
    if (res.statusCode !== status) throw new Error(`fixture: ${res.statusCode} ${res.body}`);
    return JSON.parse(res.body || 'null');
  };
  const contact = {
    customerName: `Anna Export ${tag}`,
    email,
    street: 'Keizersgracht',
    streetNumber: '123',
    postalCode: '1015 CJ',
    city: 'Amsterdam',
  };
  const apiLead = await ok(
    await api.post('/v1/leads', {
      ...contact,
      phone: '+31 6 1234 5678',
      title: 'Leaking tap',
      notes: 'The dog is friendly.',
    }),
  );
  await ok(await api.post(`/v1/leads/${apiLead.id}/notes`, { text: 'Called back: prefers mornings.' }));
  await ok(await api.patch(`/v1/leads/${apiLead.id}`, { status: 'quoted' }), 200);
  await updateLead(
    app.deps.database,
    brandId,
    apiLead.id,
    { title: 'Leaking kitchen tap' },
    {
      type: 'key',
      id: keyId,
      name: 'fixture',
    },
  );
  const uploads = new Map<string, Buffer>();
  const files = { photo: await jpeg(64, 48), quote: pdf(100) };
  const body = multipart([
    { filename: 'kitchen.jpg', type: 'image/jpeg', data: files.photo },
    { filename: 'Offerte één (2).pdf', type: 'application/pdf', data: files.quote },
  ]);
  const uploaded = await ok(
    await app.inject({
      method: 'POST',
      url: `/v1/leads/${apiLead.id}/attachments`,
      headers: { ...body.headers, 'x-api-key': keys.full },
      payload: body.payload,
    }),
  );
  uploads.set(uploaded.data[0].id, files.photo);
  uploads.set(uploaded.data[1].id, files.quote);

  const form = await ok(
    await api.post('/v1/forms', {
      name: 'Website',
      allowedOrigins: [SITE],
      consentText: 'I agree to be contacted',
    }),
  );
  const post = (parts: Part[]) => {
    const posted = multipart(parts);
    return app.inject({
      method: 'POST',
      url: `/f/${form.id}`,
      headers: { ...posted.headers, origin: SITE },
      payload: posted.payload,
    });
  };
  const fields = (extra: Record<string, string>): Part[] =>
    Object.entries({ ...contact, consent: 'yes', ...extra }).map(([field, data]) => ({ field, data }));
  await ok(
    await post(
      fields({ title: 'Boiler broken', utm_source: 'newsletter', landingPage: '/ketel', houseType: 'flat' }),
    ),
    303,
  );
  const spamPhoto = await png(20, 10);
  await ok(
    await post([
      ...fields({ title: 'Cheap pills', _gotcha: 'bot' }),
      { filename: 'spam.png', data: spamPhoto },
    ]),
    303,
  );
  const leads = await app.deps.database.db
    .selectFrom('leads')
    .select(['id', 'spam', 'title'])
    .where('customer_id', '=', apiLead.customerId)
    .execute();
  const formLeadId = leads.find((l) => l.title === 'Boiler broken')?.id;
  const spamLeadId = leads.find((l) => Number(l.spam) === 1)?.id;
  if (!formLeadId || !spamLeadId) throw new Error('fixture: the form leads did not link to the customer');
  const spamFile = await app.deps.database.db
    .selectFrom('attachments')
    .select('id')
    .where('lead_id', '=', spamLeadId)
    .executeTakeFirstOrThrow();
  uploads.set(spamFile.id, spamPhoto);

  const otherName = `Bert Other ${tag}`;
  const otherEmail = `bert-${tag}@example.com`;
  const other = await ok(
    await api.post('/v1/leads', { ...contact, customerName: otherName, email: otherEmail, title: 'Roof' }),
  );
  await ok(await api.post(`/v1/leads/${other.id}/notes`, { text: `Secret of Bert ${tag}` }));
  const otherBrandName = `Carla Elsewhere ${tag}`;
  const elsewhere = await ok(
    await api.post(
      '/v1/leads',
      { ...contact, customerName: otherBrandName, title: 'Gutter' },
      { key: keys.other },
    ),
  );
  return {
    customerId: apiLead.customerId,
    email,
    apiLeadId: apiLead.id,
    formLeadId,
    spamLeadId,
    uploads,
    otherCustomerId: other.customerId,
    otherBrandCustomerId: elsewhere.customerId,
    foreign: [
      otherName,
      otherEmail,
      other.id,
      other.customerId,
      `Secret of Bert ${tag}`,
      otherBrandName,
      elsewhere.id,
      elsewhere.customerId,
    ],
  };
}

/** Every entry of a ZIP, by name, with its bytes (read back with yauzl, checking each entry's CRC). */
export function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const entries = new Map<string, Buffer>();
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}
