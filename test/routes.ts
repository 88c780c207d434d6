// The routes the app registers, with their options: for tests that check every route has what it must (a scope,
// an access level). Fastify publishes each new instance on its initialization channel, which lets an onRoute hook
// be added to the app buildApp creates before any route exists.
import diagnostics from 'node:diagnostics_channel';
import type { FastifyInstance, onRouteHookHandler } from 'fastify';
import { expect } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import { testConfig } from './helpers.js';

export type RegisteredRoute = Parameters<onRouteHookHandler>[0];

/** Builds the app (SQLite, no webhook worker) with `onRoute` called for each route it registers, then closes it. */
export async function forEachRegisteredRoute(onRoute: (route: RegisteredRoute) => void): Promise<void> {
  const record = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', onRoute);
  };
  diagnostics.subscribe('fastify.initialization', record);
  let app: App | undefined;
  try {
    app = await buildApp(testConfig('sqlite'), {
      logger: false,
      defaultMetrics: false,
      webhookWorker: false,
    });
    await app.ready();
  } finally {
    diagnostics.unsubscribe('fastify.initialization', record);
    await app?.close();
  }
}

/** The OpenAPI document the app serves at /v1/openapi.json (SQLite, no workers), as parsed JSON. */
// biome-ignore lint/suspicious/noExplicitAny: the document is free-form JSON
export async function servedOpenApiDocument(): Promise<any> {
  const app = await buildApp(testConfig('sqlite'), {
    logger: false,
    defaultMetrics: false,
    webhookWorker: false,
    mailWorker: false,
  });
  try {
    await app.ready();
    const res = await app.inject('/v1/openapi.json');
    expect(res.statusCode).toBe(200);
    return res.json();
  } finally {
    await app.close();
  }
}
