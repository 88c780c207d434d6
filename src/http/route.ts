// How the API's routes are declared and typed: request types come from the route's schema via TypeBox.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyRequest,
  FastifySchema,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';

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
