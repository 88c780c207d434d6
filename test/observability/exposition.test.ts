// The /metrics text of a real app after some traffic, process metrics included: `promtool check metrics` finds no
// problem in it, and every metric and label the Grafana dashboard (docs/grafana/lead-intake.json) queries is in it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import { CI, dialects, dropSchema, QUICK, testConfig, validLead } from '../helpers.js';
import { parseSamples, scrape } from './support.js';

const PROMTOOL = '/usr/bin/promtool';
const havePromtool = existsSync(PROMTOOL);
if (!havePromtool && !CI && !QUICK) {
  console.warn(
    `Skipping the promtool check: ${PROMTOOL} is missing. Install it with "apt-get install -y prometheus". Under CI=true this is a failure.`,
  );
}

interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string; legendFormat?: string }[];
}
const dashboard = JSON.parse(readFileSync('docs/grafana/lead-intake.json', 'utf8')) as {
  schemaVersion: number;
  uid: string;
  __inputs: { name: string; type: string; pluginId: string }[];
  panels: Panel[];
  templating: { list: { query: { query: string } }[] };
};
const charts = dashboard.panels.filter((p) => p.type !== 'row');
const expressions = charts.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, ...t })));
// Labels Prometheus adds when it scrapes: never in the exposition itself.
const TARGET_LABELS = new Set(['instance', 'job']);

describe.each(dialects())('the /metrics exposition on %s', (dialect) => {
  let app: App;
  let text: string;

  beforeAll(async () => {
    app = await buildApp(testConfig(dialect), { logger: false, webhookWorker: false });
    await app.ready();
    const brandId = (
      await createBrand(app.deps.database, { language: 'en', name: 'Acme Plumbing', country: 'NL' })
    ).id;
    const { key } = await createApiKey(app.deps.database, { brandId, name: 'site', scopes: ['full'] });
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const created = await app.inject({ method: 'POST', url: '/v1/leads', headers, payload: validLead() });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    const moved = await app.inject({
      method: 'PATCH',
      url: `/v1/leads/${id}`,
      headers,
      payload: { status: 'quoted' },
    });
    expect(moved.statusCode).toBe(200);
    await app.inject({ method: 'GET', url: `/v1/leads/${id}`, headers: { 'x-api-key': key } });
    await app.inject({ method: 'GET', url: '/nowhere' });
    await app.inject({ method: 'GET', url: '/v1/leads', headers: { 'x-api-key': 'lik_wrong' } });
    text = await scrape(app);
  });
  afterAll(async () => {
    if (app) {
      await dropSchema(app);
      await app.close();
    }
  });

  // The quick loop leaves promtool to `npm test`.
  it.skipIf(QUICK || (!havePromtool && !CI))('passes `promtool check metrics`', () => {
    if (!havePromtool) {
      throw new Error(`CI=true but ${PROMTOOL} is missing: install it with "apt-get install -y prometheus".`);
    }
    // The process metrics are part of what is checked (their defaults once broke the naming rules).
    expect(text).toContain('lead_intake_process_resident_memory_bytes');
    expect(text).toContain('lead_intake_nodejs_eventloop_lag_p99_seconds');
    const result = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(result.error).toBeUndefined();
    expect(`${result.stdout}${result.stderr}`.trim()).toBe('');
    expect(result.status).toBe(0);
  });

  it('holds every metric the Grafana dashboard queries, with the labels it groups and names series by', () => {
    const samples = parseSamples(text);
    const labelsOf = new Map<string, Set<string>>();
    for (const s of samples) {
      const set = labelsOf.get(s.name) ?? new Set<string>();
      for (const label of Object.keys(s.labels)) set.add(label);
      labelsOf.set(s.name, set);
    }
    const queries = [
      ...expressions,
      ...dashboard.templating.list.map((v) => ({
        panel: 'variables',
        expr: v.query.query,
        legendFormat: '',
      })),
    ];
    for (const { panel, expr, legendFormat } of queries) {
      const names = [...expr.matchAll(/\blead_intake_[a-z0-9_]+/g)].map((m) => m[0]);
      expect(names.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      const available = new Set<string>();
      for (const name of names) {
        expect(labelsOf.has(name), `${panel}: ${name} is not in /metrics`).toBe(true);
        for (const label of labelsOf.get(name) ?? []) available.add(label);
      }
      const used = [
        ...[...expr.matchAll(/\bby \(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((l) => l.trim())),
        ...[...expr.matchAll(/[{,]\s*([a-z_]+)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1]!),
        ...[...(legendFormat ?? '').matchAll(/\{\{\s*([a-z_]+)\s*\}\}/g)].map((m) => m[1]!),
      ];
      for (const label of used) {
        if (TARGET_LABELS.has(label)) continue;
        expect(available.has(label), `${panel}: label ${label} is on none of ${names.join(', ')}`).toBe(true);
      }
    }
  });

  it('is an importable dashboard that charts each of the service metrics', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.uid).toBe('lead-intake');
    expect(dashboard.__inputs).toContainEqual(
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }),
    );
    for (const panel of charts) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${DS_PROMETHEUS}' });
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    }
    const all = expressions.map((e) => e.expr).join('\n');
    for (const name of [
      'lead_intake_http_request_duration_seconds_count',
      'lead_intake_http_request_duration_seconds_bucket',
      'lead_intake_leads_created_total',
      'lead_intake_lead_status_changes_total',
      'lead_intake_webhook_deliveries_total',
      'lead_intake_emails_total',
      'lead_intake_rate_limited_requests_total',
      'lead_intake_shed_requests_total',
      'lead_intake_queue_depth',
      'lead_intake_queue_oldest_age_seconds',
      'lead_intake_process_resident_memory_bytes',
      'lead_intake_nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(all, name).toContain(name);
    }
    for (const quantile of ['0.5', '0.95', '0.99']) expect(all).toContain(`histogram_quantile(${quantile},`);
    expect(all).toContain('status_code=~"5.."');
  });
});
