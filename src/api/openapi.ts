// The OpenAPI 3.1 document, built from the route schemas, served at /v1/openapi.json and browsable at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { SCOPE_DESCRIPTIONS } from '../accounts/api-keys.js';
import type { Config } from '../platform/config.js';
import { finishDocument } from './document.js';

/**
 * The /docs page's Content-Security-Policy: everything from this origin only, no inline script, no plugins, no
 * framing by others. Unlike @fastify/swagger-ui's default it has no `upgrade-insecure-requests`, which over plain
 * HTTP under any name but localhost (a LAN address, HOST=0.0.0.0) rewrote every asset to https and blanked the page.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self'",
].join('; ');

/** The lead-intake mark: a house with an inbox arrow, in the dashboard's colours. */
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="180" height="40" viewBox="0 0 180 40"><rect x="2" y="6" width="28" height="28" rx="6" fill="#1f6feb"/><path d="M8 20 16 12l8 8v9H8z" fill="#fff"/><path d="M16 17v8m-3-3 3 3 3-3" stroke="#1f6feb" stroke-width="2" fill="none"/><text x="38" y="27" font-family="system-ui,sans-serif" font-size="18" font-weight="600" fill="#fff">lead-intake API</text></svg>`;
const LOGO_SRC = `data:image/svg+xml;base64,${Buffer.from(LOGO_SVG).toString('base64')}`;
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f6feb"/><path d="M6 16 16 7l10 9v11H6z" fill="#fff"/></svg>`;

/**
 * A uiConfig value that is JavaScript for the browser: @fastify/swagger-ui writes a function in uiConfig into the
 * page's swagger-initializer.js as its toString(). Given as source text rather than as a function of this module,
 * whose text is whatever the compiler or loader made of it (tsx's esbuild, for one, adds `__name(…)` calls that
 * exist only in Node).
 */
const inBrowser = (expression: string) => Object.assign(() => undefined, { toString: () => expression });

/**
 * Swagger UI's plugins: its default list (DownloadUrl, which fetches the document; a `plugins` option replaces the
 * list), and a topbar Logo component that draws the lead-intake mark. Swagger UI's own logo is an SVG with an
 * inline <style>, which style-src 'self' blocks: a CSP violation in the console on every load, for a logo that
 * @fastify/swagger-ui's `logo` option only swapped out once it was drawn.
 */
const SWAGGER_UI_PLUGINS = [
  inBrowser('SwaggerUIBundle.plugins.DownloadUrl'),
  inBrowser(`function leadIntakeLogo(system) {
    return {
      components: {
        Logo: function () {
          return system.React.createElement('img', { src: ${JSON.stringify(LOGO_SRC)}, height: 40, alt: 'lead-intake API' });
        },
      },
    };
  }`),
];

const THEME_CSS = `.swagger-ui .topbar { background-color: #0d1b2a; }
.swagger-ui .topbar a { max-width: none; }
.swagger-ui .info .title small.version-stamp { background-color: #1f6feb; }
`;

/** The document's tags, in the order /docs shows them. */
const TAGS = [
  {
    name: 'Operations',
    description: 'Liveness and readiness probes and this document: no API key needed.',
  },
  { name: 'Leads', description: 'Job requests in states request and quoted.' },
  {
    name: 'Customers',
    description: 'The people and businesses leads come from, linked by email or phone.',
  },
  {
    name: 'Work items',
    description: 'Leads that have been scheduled: scheduled, planned, in_progress, completed.',
  },
  { name: 'Addresses', description: 'Where the work is done.' },
  {
    name: 'Notes',
    description:
      'Internal notes on leads and work items, by office staff or API keys; never sent to the customer.',
  },
  {
    name: 'Attachments',
    description:
      'Photos and files with a request (JPEG, PNG, WebP, GIF, HEIC/HEIF, PDF): upload, list, download, with upright previews and thumbnails that carry no metadata.',
  },
  {
    name: 'Events',
    description:
      'What happened to leads, notes, attachments and customers (lead.created, lead.status_changed, lead.updated, note.created, attachment.created, attachment.deleted, customer.created, customer.updated), for polling or webhooks.',
  },
  {
    name: 'Webhooks',
    description: 'Endpoints that receive events as signed POSTs, and their delivery logs.',
  },
  {
    name: 'Forms',
    description:
      'Website forms that post leads without a secret in the page, and the public endpoint they post to.',
  },
];

/** The document's top: what the API is, who runs it, where it is, its tags and how to authenticate. */
function documentBase(config: Readonly<Config>) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'lead-intake API',
      version: '1.0.0',
      description:
        'Take in job requests (leads) from website forms and hand leads and work items to CRMs, BI tools, spreadsheets and automation tools. Authenticate with the X-API-Key header (or `Authorization: Bearer`); each key belongs to one brand and has scopes. Errors are RFC 9457 problem+json. Every response carries X-Request-Id; key-authenticated ones carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset. The `webhooks` section describes the signed POSTs webhook endpoints receive.',
      // Whoever runs this instance: its own documentation page is the one address the service knows.
      contact: { name: 'lead-intake API', url: `${config.publicUrl.replace(/\/$/, '')}/docs` },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: config.publicUrl }],
    tags: TAGS.map((tag) => ({ ...tag })),
    components: {
      securitySchemes: {
        ApiKeyAuth: {
          type: 'apiKey' as const,
          in: 'header',
          name: 'X-API-Key',
          description: `API key (lik_…). Scopes: ${Object.entries(SCOPE_DESCRIPTIONS)
            .map(([scope, text]) => `\`${scope}\`: ${text}`)
            .join(' ')}`,
        },
        BearerAuth: {
          type: 'http' as const,
          scheme: 'bearer',
          description: 'The same API key (lik_…) as `Authorization: Bearer <key>`; either header works.',
        },
      },
    },
  };
}

/** Call before the routes: @fastify/swagger only describes routes added after it. */
export async function registerOpenApi(app: FastifyInstance, config: Readonly<Config>): Promise<void> {
  await app.register(swagger, {
    openapi: documentBase(config),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // Named components, response headers, every status, examples, webhooks: see schemas/document.ts.
    transformObject: (document) =>
      'openapiObject' in document
        ? (finishDocument(document.openapiObject) as typeof document.openapiObject)
        : document.swaggerObject,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: DOCS_CSP,
    uiConfig: {
      url: '/v1/openapi.json',
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      plugins: SWAGGER_UI_PLUGINS,
    } as never,
    theme: {
      title: 'lead-intake API',
      css: [{ filename: 'lead-intake.css', content: THEME_CSS }],
      favicon: [
        { filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: FAVICON_SVG },
      ],
    },
    // No logo swap after drawing (the Logo plugin draws ours); left out, the option would swap in Fastify's.
    // null is what turns it off (its own tests do so), which its types do not list.
    logo: null as never,
  });
}

/**
 * Call after the plugins: Fastify gives a route only the hooks registered before it, and this route should
 * pass through all of them.
 */
export function serveOpenApiDocument(app: FastifyInstance): void {
  app.get(
    '/v1/openapi.json',
    {
      schema: {
        operationId: 'getOpenApiDocument',
        tags: ['Operations'],
        summary: 'This OpenAPI 3.1 document',
        description:
          'The document describing this API (the same as /docs/json, which /docs renders). Public: no API key.',
        security: [],
        response: {
          200: {
            description: 'The OpenAPI 3.1 document.',
            content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
          },
        },
      },
    },
    async () => app.swagger(),
  );
}
