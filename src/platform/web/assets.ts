// The dashboard's one stylesheet and one script, served from the app with content-hashed URLs so browsers
// cache them for good and a new release is fetched at once.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

interface Asset {
  body: Buffer;
  type: string;
  url: string;
}

// Resolved from the package root, so it works from src/platform/web (tsx, tests) and dist/platform/web (built).
const ASSET_DIR = new URL('../../../src/platform/web/assets/', import.meta.url);

function load(file: string, type: string): Asset {
  const body = readFileSync(new URL(file, ASSET_DIR));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const [name, extension] = file.split('.');
  return { body, type, url: `/assets/${name}.${hash}.${extension}` };
}

const ASSETS = {
  css: load('app.css', 'text/css; charset=utf-8'),
  js: load('app.js', 'text/javascript; charset=utf-8'),
};

export const assetUrls = { css: ASSETS.css.url, js: ASSETS.js.url };

export function registerAssetRoutes(app: FastifyInstance): void {
  for (const asset of Object.values(ASSETS)) {
    app.get(asset.url, { schema: { hide: true } }, async (_request, reply) =>
      reply.type(asset.type).header('Cache-Control', 'public, max-age=31536000, immutable').send(asset.body),
    );
  }
}
