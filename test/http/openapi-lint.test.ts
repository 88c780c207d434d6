// The OpenAPI document passes Spectral (spectral:oas, .spectral.yaml) and Redocly (recommended, redocly.yaml)
// with 0 errors and 0 warnings, run through their CLIs as integrators' pipelines run them. Each linter is also
// shown a broken copy, so a linter that silently checks nothing fails the test instead of passing it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/webhooks/events.js';
import { servedOpenApiDocument } from '../routes.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'node_modules/.bin');

interface Finding {
  linter: string;
  rule: string;
  severity: string;
  message: string;
  where: string;
}

/** Runs a CLI that exits non-zero when it finds problems: its stdout is the report either way. */
async function output(command: string, args: string[]): Promise<string> {
  try {
    return (await run(command, args, { cwd: ROOT, env: { ...process.env, ...QUIET }, maxBuffer: 64 << 20 }))
      .stdout;
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout;
    if (!stdout) throw error;
    return stdout;
  }
}

const QUIET = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
const SEVERITY = ['error', 'warning', 'info', 'hint'];

async function spectral(file: string): Promise<Finding[]> {
  const stdout = await output(path.join(BIN, 'spectral'), [
    'lint',
    file,
    '--ruleset',
    path.join(ROOT, '.spectral.yaml'),
    '--format',
    'json',
    '--quiet',
  ]);
  const results = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
    code: string;
    severity: number;
    message: string;
    path: string[];
  }[];
  return results.map((r) => ({
    linter: 'spectral',
    rule: r.code,
    severity: SEVERITY[r.severity] ?? String(r.severity),
    message: r.message,
    where: r.path.join('.'),
  }));
}

async function redocly(file: string): Promise<Finding[]> {
  const stdout = await output(path.join(BIN, 'redocly'), [
    'lint',
    file,
    '--config',
    path.join(ROOT, 'redocly.yaml'),
    '--format',
    'json',
  ]);
  const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
    problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
  };
  return report.problems.map((p) => ({
    linter: 'redocly',
    rule: p.ruleId,
    severity: p.severity,
    message: p.message,
    where: p.location.map((l) => l.pointer).join(' '),
  }));
}

const show = (findings: Finding[]) =>
  findings.map((f) => `${f.linter} ${f.severity} ${f.rule} at ${f.where}: ${f.message}`).join('\n');

describe('the OpenAPI document under Spectral and Redocly', () => {
  let dir: string;
  // biome-ignore lint/suspicious/noExplicitAny: the document is free-form JSON
  let doc: any;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
    doc = await servedOpenApiDocument();
    file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('Spectral (spectral:oas) reports nothing', { timeout: 60_000 }, async () => {
    const findings = await spectral(file);
    expect(findings, show(findings)).toEqual([]);
  });

  it('Redocly (recommended) reports nothing', { timeout: 60_000 }, async () => {
    const findings = await redocly(file);
    expect(findings, show(findings)).toEqual([]);
  });

  it('both linters do report a broken copy', { timeout: 60_000 }, async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/healthz'].get.description;
    broken.paths['/healthz'].get.security = undefined;
    broken.paths['/v1/leads'].get.security = [{ NoSuchScheme: [] }];
    const brokenFile = path.join(dir, 'broken.json');
    writeFileSync(brokenFile, JSON.stringify(broken));
    const fromSpectral = await spectral(brokenFile);
    expect(fromSpectral.map((f) => f.rule)).toEqual(
      expect.arrayContaining(['operation-description', 'operation-security-scheme-defined']),
    );
    const fromRedocly = await redocly(brokenFile);
    expect(fromRedocly.map((f) => f.rule)).toContain('security-defined');
  });

  it('names its schemas, and no two different schemas share a name', () => {
    for (const name of [
      'Lead',
      'LeadListItem',
      'WorkItem',
      'WorkItemListItem',
      'Customer',
      'CustomerDetail',
      'Address',
      'Event',
      'WebhookEndpoint',
      'WebhookEndpointCreated',
      'Delivery',
      'Form',
      'Note',
      'Problem',
      'LeadList',
      'WorkItemList',
      'CustomerList',
      'AddressList',
      'EventList',
      'DeliveryList',
      'FormList',
      'NoteList',
      'WebhookEndpointList',
      'LeadCreate',
      'LeadPatch',
      'NoteCreate',
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    // Nothing titled is left inline in the operations: every named shape is a $ref. (Two different schemas with
    // one title would stay inline, so this catches those too.)
    const inline: string[] = [];
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      const object = node as Record<string, unknown>;
      if (typeof object.title === 'string') inline.push(object.title);
      for (const [key, value] of Object.entries(object)) if (key !== 'example') visit(value);
    };
    visit(doc.paths);
    expect(inline).toEqual([]);
  });

  it('uses only standard formats', () => {
    const formats = new Set<string>();
    JSON.stringify(doc, (key, value) => {
      if (key === 'format' && typeof value === 'string') formats.add(value);
      return value;
    });
    expect([...formats].sort()).toEqual(['date-time', 'email']);
  });

  it('gives every operation 405, 500 and 503 as problem+json, with X-Request-Id', () => {
    for (const [url, item] of Object.entries<Record<string, { responses: Record<string, unknown> }>>(
      doc.paths,
    )) {
      for (const [method, operation] of Object.entries(item)) {
        for (const status of ['405', '500', '503']) {
          const response = operation.responses[status] as {
            $ref?: string;
            content?: Record<string, unknown>;
          };
          expect(response, `${method} ${url} ${status}`).toBeDefined();
          const resolved = response.$ref
            ? doc.components.responses[response.$ref.split('/').pop()!]
            : (response as { content: Record<string, unknown>; headers: Record<string, unknown> });
          expect(Object.keys(resolved.content)).toContain('application/problem+json');
          expect(Object.keys(resolved.headers)).toContain('X-Request-Id');
        }
      }
    }
  });

  it('answers API errors only as problem+json: HTML is for the hosted form pages alone', () => {
    for (const [url, item] of Object.entries<Record<string, { responses: Record<string, unknown> }>>(
      doc.paths,
    )) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, declared] of Object.entries(operation.responses)) {
          const response = declared as { $ref?: string; content?: Record<string, unknown> };
          const resolved = response.$ref
            ? doc.components.responses[response.$ref.split('/').pop()!]
            : response;
          const types = Object.keys(resolved.content ?? {});
          if (url.startsWith('/f/')) continue;
          expect(types, `${method} ${url} ${status}`).not.toContain('text/html');
        }
      }
    }
  });

  it('describes one webhook per event type, with the signature headers', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type].post;
      const headers = (post.parameters as { name: string; in: string }[]).map((p) => p.name);
      expect(headers).toEqual(
        expect.arrayContaining([
          'Lead-Intake-Signature',
          'Lead-Intake-Event-Id',
          'webhook-id',
          'webhook-timestamp',
          'webhook-signature',
        ]),
      );
      expect(post.requestBody.content['application/json'].schema.allOf).toEqual([
        { $ref: '#/components/schemas/Event' },
      ]);
      expect(Object.keys(post.responses)).toContain('2XX');
    }
  });
});
