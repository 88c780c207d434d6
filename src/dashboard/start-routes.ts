// /dashboard/start, "Get started" (admins): where setup leads a new business, its website form first. Each step is
// read from what is there: the brand's first form, the first lead a form brought in, the newest new-lead mail.
// POST /dashboard/start/form makes a form with the usual fields in one click; /dismiss hides the checklist.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dismissFirstRun, findBrand, mailSenderName } from '../accounts/brands.js';
import { adminPage, hidden, userOf } from '../accounts/dashboard/session.js';
import type { SessionUser } from '../accounts/sessions.js';
import {
  brandCountry,
  createForm,
  formEndpoint,
  listForms,
  parseOrigin,
  updateForm,
} from '../forms/forms.js';
import { formSnippet } from '../forms/views.js';
import { firstFormLead } from '../leads/index.js';
import { latestMailOfKind } from '../mail/outbox.js';
import { fromText } from '../mail/sender.js';
import type { RouteDeps } from '../platform/http/deps.js';
import { notice } from '../platform/web/components.js';
import { html } from '../platform/web/html.js';
import { seeOther, sendPage, text } from '../platform/web/http.js';
import { richText } from '../platform/web/messages.js';
import type { FieldError } from '../shared/errors.js';
import { type MessageKey, translator } from '../shared/i18n/index.js';
import { START_PATH, type StartView, startPage } from './start-view.js';

/** What the checklist shows, read from the brand's forms, leads and outbox. */
export async function startState(deps: RouteDeps, user: SessionUser): Promise<Omit<StartView, 'message'>> {
  const { database, config } = deps;
  const brand = await findBrand(database, user.brandId);
  if (!brand) throw new Error(`No brand with id ${user.brandId}`);
  const [forms, lead] = await Promise.all([
    listForms(database, user.brandId, { limit: 1, order: 'asc' }),
    firstFormLead(database, user.brandId),
  ]);
  const first = forms.data[0];
  let form: StartView['form'] = null;
  if (first) {
    const endpoint = formEndpoint(config.publicUrl, first.id);
    const country = await brandCountry(database, user.brandId);
    const snippet = formSnippet(first, endpoint, config.attachments, country);
    form = { id: first.id, name: first.name, endpoint, snippet, allowedOrigins: first.allowedOrigins };
  }
  const mail: StartView['mail'] = config.mail
    ? {
        on: true,
        from: fromText(config.mail.from, mailSenderName(brand)),
        latest: lead ? await latestMailOfKind(database, user.brandId, 'new_lead') : undefined,
      }
    : { on: false };
  return {
    user,
    form,
    testLead: lead ? { id: lead.id, title: lead.title, customerId: lead.customerId } : null,
    mail,
    dismissed: brand.firstRunDismissedAt !== null,
  };
}

const DONE: Record<string, MessageKey> = {
  form: 'start.form.created',
  origin: 'start.origin.added',
};

async function showStart(deps: RouteDeps, user: SessionUser, reply: FastifyReply, query: unknown) {
  const tr = translator(user.locale);
  const done = text(query, 'done');
  const key = DONE[done];
  const message =
    done === 'welcome'
      ? notice(
          richText(tr, 'start.welcome', {
            brand: user.brandName,
            strong: (inner) => html`<strong>${inner}</strong>`,
          }),
          'info',
        )
      : key
        ? notice(tr.t(key))
        : undefined;
  return sendPage(reply, startPage({ ...(await startState(deps, user)), message }));
}

/** A page's address as people paste it ("https://www.example.nl/contact") taken to its origin; else as given. */
function siteOrigin(value: string): string {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : value;
  } catch {
    return value;
  }
}

/** Adds the website's address to the first form's allowed origins, so the pasted snippet's posts are taken. */
async function addOrigin(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const value = text(request.body, 'origin').trim();
  const state = await startState(deps, user);
  if (!state.form) return seeOther(reply, START_PATH);
  const parsed = parseOrigin(siteOrigin(value));
  const error: FieldError | undefined = !value
    ? { field: 'origin', message: 'is required', text: { key: 'validation.required' } }
    : 'error' in parsed
      ? { field: 'origin', message: parsed.error, text: parsed.text }
      : undefined;
  if (error || 'error' in parsed) {
    return sendPage(reply, startPage({ ...state, origin: { value, error } }), 422);
  }
  const origins = [...new Set([...state.form.allowedOrigins, parsed.origin])];
  await updateForm(deps.database, user.brandId, state.form.id, { allowedOrigins: origins });
  request.log.info({ userId: user.userId, formId: state.form.id }, 'allowed origin added from Get started');
  return seeOther(reply, `${START_PATH}?done=origin#step-snippet`);
}

export default async function startRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/start', { schema: hidden, config: adminPage }, (request, reply) =>
    showStart(deps, userOf(request), reply, request.query),
  );

  // One click: a form with the usual fields, the brand's language, and no allowed origin yet (the snippet posts a
  // plain form, which needs none; the hosted page works at once).
  app.post('/start/form', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const existing = await listForms(deps.database, user.brandId, { limit: 1, order: 'asc' });
    if (!existing.data.length) {
      const name = translator(user.locale).t('start.form.defaultName');
      const form = await createForm(deps.database, user.brandId, { name, allowedOrigins: [] });
      request.log.info({ userId: user.userId, formId: form.id }, 'website form made from Get started');
    }
    return seeOther(reply, `${START_PATH}?done=form#step-snippet`);
  });

  app.post('/start/origin', { schema: hidden, config: adminPage }, (request, reply) =>
    addOrigin(deps, request, reply),
  );

  app.post('/start/dismiss', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    await dismissFirstRun(deps.database, user.brandId);
    request.log.info({ userId: user.userId }, 'Get started checklist hidden');
    return seeOther(reply, '/dashboard/leads?done=start-hidden');
  });
}
