#!/usr/bin/env node
// Build step for the typed client (lead-intake/client), run by `npm run build` after the server's tsc and before
// the client's (tsconfig.client.json). It builds the compiled app (dist/) on a throwaway SQLite database, takes
// the OpenAPI document @fastify/swagger generates from the route schemas, and writes:
//
//   dist/openapi.json            the document, as GET /v1/openapi.json serves it
//   dist/client/openapi.d.ts     its types, by openapi-typescript (paths, components, operations)
//   dist/client/operations.js    the operations that honour an Idempotency-Key header (+ .d.ts), read from the
//                                document's header parameters, so the client adds a key exactly where it counts
//
// Nothing generated is committed: src/client/index.ts imports ./openapi.js and ./operations.js, which
// tsconfig.json's rootDirs resolve to these files in dist/client. The step is skipped when the fingerprint of its
// inputs (the compiled server, this script, openapi-typescript's version) is the one recorded in openapi.d.ts.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const clientDist = path.join(dist, 'client');
const typesFile = path.join(clientDist, 'openapi.d.ts');
const FINGERPRINT = /^\/\/ fingerprint: ([0-9a-f]{64})$/m;

/** Every compiled server file (not the client's own output), in a stable order. */
function serverFiles(dir) {
  const out = [];
  for (const entry of fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (full !== clientDist) out.push(...serverFiles(full));
    } else if (entry.name.endsWith('.js')) {
      out.push(full);
    }
  }
  return out;
}

function fingerprint() {
  const hash = createHash('sha256');
  for (const file of [
    ...serverFiles(dist),
    fileURLToPath(import.meta.url),
    path.join(root, 'node_modules/openapi-typescript/package.json'),
  ]) {
    hash.update(path.relative(root, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** The document as the service serves it, from a throwaway instance that never listens. */
async function loadDocument() {
  const { buildApp, loadConfig } = await import(pathToFileURL(path.join(dist, 'index.js')).href);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-openapi-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const app = await buildApp(config, {
      logger: false,
      defaultMetrics: false,
      webhookWorker: false,
      mailWorker: false,
    });
    try {
      await app.ready();
      return app.swagger();
    } finally {
      await app.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** "POST /v1/leads"-style names of the operations that declare an Idempotency-Key header parameter. */
function idempotencyKeyOperations(document) {
  const resolve = (node) => {
    // Parameters may be inlined or referenced from components.parameters.
    if (node && typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      return node.$ref
        .slice(2)
        .split('/')
        .reduce((value, key) => value?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    }
    return node;
  };
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  const found = [];
  for (const [template, item] of Object.entries(document.paths ?? {})) {
    for (const method of methods) {
      const operation = item?.[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(resolve);
      if (parameters.some((p) => p?.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key')) {
        found.push(`${method.toUpperCase()} ${template}`);
      }
    }
  }
  return found.sort();
}

const started = performance.now();
if (!fs.existsSync(path.join(dist, 'index.js'))) {
  console.error(
    'build-client: dist/index.js is missing; run the server build (tsc -p tsconfig.build.json) first',
  );
  process.exit(1);
}
const print = fingerprint();
const previous = fs.existsSync(typesFile)
  ? FINGERPRINT.exec(fs.readFileSync(typesFile, 'utf8'))?.[1]
  : undefined;
if (previous === print && fs.existsSync(path.join(dist, 'openapi.json'))) {
  if (process.env.BUILD_CLIENT_VERBOSE) console.log('build-client: up to date');
  process.exit(0);
}

const document = await loadDocument();
const { default: openapiTS, astToString } = await import('openapi-typescript');
// openapi-typescript's default options, as integrators generate their clients (test/client/generated-types.test.ts
// checks those types): the document states request body defaults in words (src/api/document.ts), so a field with
// a default stays optional in a request type without `defaultNonNullable: false`.
const types = astToString(await openapiTS(document));
const operations = idempotencyKeyOperations(document);

fs.mkdirSync(clientDist, { recursive: true });
fs.writeFileSync(path.join(dist, 'openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
const header = [
  '// Generated by scripts/build-client.mjs from the OpenAPI document (dist/openapi.json) with openapi-typescript.',
  '// Do not edit: `npm run build` regenerates it.',
  `// fingerprint: ${print}`,
  '',
].join('\n');
fs.writeFileSync(
  path.join(clientDist, 'operations.js'),
  `${header}export const idempotencyKeyOperations = ${JSON.stringify(operations)};\n`,
);
fs.writeFileSync(
  path.join(clientDist, 'operations.d.ts'),
  `${header}/** Operations ("POST /v1/leads") that honour an Idempotency-Key header. */\n` +
    'export declare const idempotencyKeyOperations: readonly string[];\n',
);
// Written last: its fingerprint says the whole step completed.
fs.writeFileSync(typesFile, `${header}${types}`);
if (process.env.BUILD_CLIENT_VERBOSE) {
  console.log(`build-client: generated in ${Math.round(performance.now() - started)} ms`);
}
