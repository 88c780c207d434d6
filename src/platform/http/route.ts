// How the API's routes are declared and typed: the scope named once, request types from the route's schema.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { Scope } from '../../shared/scopes.js';
import { errorResponses } from './schemas.js';

/**
 * Every scoped route can give these, whatever it does: the auth plugin (401, 403), the rate limiter (429), the
 * overload guard and an unreachable database (503).
 */
const SCOPED_ROUTE_ERRORS = [401, 403, 429, 503] as const;

/** The other problem statuses a route can give, as errorResponses documents them. */
export type RouteErrorStatus = 400 | 404 | 409 | 413 | 415 | 422;

export interface ScopedRouteOptions<S extends FastifySchema> {
  /** What the API key must grant: the auth plugin checks it (config.scope), the document lists it (security). */
  scope: Scope;
  /** Statuses this route gives beyond SCOPED_ROUTE_ERRORS. A response the schema declares itself wins. */
  errors?: readonly RouteErrorStatus[];
  /** The body's fields are all optional: no body is taken as `{}` (json-body.ts). */
  bodyOptional?: boolean;
  schema: S;
}

/**
 * The options (config and schema) of an API route that needs an API key: pass them as the route's options, or
 * spread them next to others such as hooks. The schema keeps its type, so the TypeBox provider still types the
 * request from it.
 */
export function scopedRoute<S extends FastifySchema>({
  scope,
  errors = [],
  schema,
  bodyOptional,
}: ScopedRouteOptions<S>) {
  const declared = schema.response as Record<number, TSchema> | undefined;
  return {
    config: { scope, ...(bodyOptional ? { bodyOptional } : {}) },
    schema: {
      ...schema,
      // Either header: X-API-Key or Authorization: Bearer.
      security: [{ ApiKeyAuth: [scope] }, { BearerAuth: [scope] }] as { [scheme: string]: Scope[] }[],
      response: { ...errorResponses([...SCOPED_ROUTE_ERRORS, ...errors]), ...declared },
    },
  };
}

/**
 * The request of a route whose schema is S, typed by the TypeBox provider as the route's own handler would see
 * it: for a handler shared by several routes, declared apart from them.
 */
export type RequestFor<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  S,
  TypeBoxTypeProvider
>;

/**
 * The app as an API route plugin sees it after withTypeProvider<TypeBoxTypeProvider>(): for a route declared in a
 * function of its own, whose request the TypeBox provider still types from the route's schema.
 */
export type ApiApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
