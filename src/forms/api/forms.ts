// The forms API: a brand's website forms (CRUD), one function per route. The public endpoint they post to is in
// api/public.ts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pagingFrom } from '../../leads/api/list-query.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { type ApiApp, scopedRoute } from '../../platform/http/route.js';
import { IdParams } from '../../platform/http/schemas.js';
import {
  brandCountry,
  createForm,
  deleteForm,
  type Form,
  formEndpoint,
  getForm,
  listForms,
  updateForm,
} from '../forms.js';
import { formSnippet } from '../views.js';
import { FormCreateBody, FormListQuery, FormListResponse, FormSchema, FormUpdateBody } from './schemas.js';

const TAGS = ['Forms'];

const brandOf = (request: FastifyRequest) => principalOf(request).brandId;

/** A form as the API answers it: with its public endpoint and the snippet to paste (its country select chooses
 * `country`, the brand's). */
function present(deps: RouteDeps, form: Form, country: string) {
  const endpoint = formEndpoint(deps.config.publicUrl, form.id);
  return { ...form, endpoint, snippet: formSnippet(form, endpoint, deps.config.attachments, country) };
}

const countryOf = (deps: RouteDeps, request: FastifyRequest) => brandCountry(deps.database, brandOf(request));

function createFormRoute(app: ApiApp, deps: RouteDeps) {
  app.post(
    '/v1/forms',
    scopedRoute({
      scope: 'full',
      errors: [400, 415, 422],
      schema: {
        operationId: 'createForm',
        tags: TAGS,
        summary: 'Create a website form',
        description:
          'A form the brand’s website posts leads to without any secret in the page. The answer carries the public `endpoint` and a `snippet` to paste. The captcha secret is never returned.',
        body: FormCreateBody,
        response: { 201: FormSchema },
      },
    }),
    async (request, reply) => {
      const form = await createForm(deps.database, brandOf(request), request.body);
      return reply
        .code(201)
        .header('Location', `/v1/forms/${form.id}`)
        .send(present(deps, form, await countryOf(deps, request)));
    },
  );
}

function listFormsRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/forms',
    scopedRoute({
      scope: 'full',
      errors: [422],
      schema: {
        operationId: 'listForms',
        tags: TAGS,
        summary: 'List website forms',
        description: 'Newest first, with the list envelope and cursor paging.',
        querystring: FormListQuery,
        response: { 200: FormListResponse },
      },
    }),
    async (request) => {
      const page = await listForms(deps.database, brandOf(request), pagingFrom(request.query));
      const country = await countryOf(deps, request);
      return { ...page, data: page.data.map((form) => present(deps, form, country)) };
    },
  );
}

function getFormRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/forms/:id',
    scopedRoute({
      scope: 'full',
      errors: [404],
      schema: {
        operationId: 'getForm',
        tags: TAGS,
        summary: 'Read a website form',
        description:
          'The form’s settings with its public `endpoint` and the `snippet` to paste. The captcha secret is never returned.',
        params: IdParams,
        response: { 200: FormSchema },
      },
    }),
    async (request) =>
      present(
        deps,
        await getForm(deps.database, brandOf(request), request.params.id),
        await countryOf(deps, request),
      ),
  );
}

function updateFormRoute(app: ApiApp, deps: RouteDeps) {
  app.patch(
    '/v1/forms/:id',
    scopedRoute({
      scope: 'full',
      errors: [400, 404, 415, 422],
      schema: {
        operationId: 'updateForm',
        tags: TAGS,
        summary: 'Change a website form',
        description: 'Any field; `enabled: false` disables the form (its endpoint and page answer 404).',
        params: IdParams,
        body: FormUpdateBody,
        response: { 200: FormSchema },
      },
    }),
    async (request) =>
      present(
        deps,
        await updateForm(deps.database, brandOf(request), request.params.id, request.body),
        await countryOf(deps, request),
      ),
  );
}

function deleteFormRoute(app: ApiApp, deps: RouteDeps) {
  app.delete(
    '/v1/forms/:id',
    scopedRoute({
      scope: 'full',
      errors: [404],
      schema: {
        operationId: 'deleteForm',
        tags: TAGS,
        summary: 'Delete a website form',
        description: 'Leads that came in through it keep its id and name.',
        params: IdParams,
        response: { 204: { type: 'null', description: 'Deleted.' } },
      },
    }),
    async (request, reply) => {
      await deleteForm(deps.database, brandOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
}

export default async function formRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  for (const route of [createFormRoute, listFormsRoute, getFormRoute, updateFormRoute, deleteFormRoute]) {
    route(app, deps);
  }
}
