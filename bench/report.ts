// Turns bench/results/*.json into the Markdown tables of bench/README.md:
//   npx tsx bench/report.ts bench/results/2026-11-21-sqlite.json [more.json ...]
import fs from 'node:fs';
import type { Measurement } from './load.js';

/** One measured run as stored in the results JSON. */
type Row = Omit<Measurement, 'seconds' | 'requests'> & {
  scenario: string;
  target: 'service' | 'ceiling';
  ceilingRps?: number;
  ratio?: number;
  ceilingCpuUsPerRequest?: number;
  cpuRatio?: number;
  comparedWith?: {
    scenario: string;
    rps: number;
    p50: number;
    p99: number;
    rpsRatio: number;
    p50Ratio: number;
    p99Ratio: number;
  };
};

interface Report {
  command: string;
  database: string;
  startedAt: string;
  machine: {
    cpus: number;
    model: string;
    memoryMiB: number;
    pinned: string;
    loadAverageBefore: number[];
    loadAverageAfter: number[];
  };
  node: string;
  commit: string;
  uncommittedChanges: boolean;
  scenarios: Row[];
  growth: { query: string; leads: number; rps: number; p50: number; p99: number; non2xx: number }[];
  growthRatios: { query: string; from: number; to: number; p99From: number; p99To: number; ratio: number }[];
}

const fixed = (n: number, digits = 2) => n.toFixed(digits);

export function renderReport(report: Report): string {
  const m = report.machine;
  const lines = [
    `### ${report.database === 'sqlite' ? 'SQLite' : 'PostgreSQL'} — ${report.startedAt.slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `\`${report.command}\` · commit \`${report.commit.slice(0, 10)}\`${report.uncommittedChanges ? ' (with uncommitted changes)' : ''} · Node ${report.node} · ${m.cpus} × ${m.model}, ${Math.round(m.memoryMiB / 1024)} GiB · ${m.pinned} · load average ${m.loadAverageBefore[0]?.toFixed(1)} before, ${m.loadAverageAfter[0]?.toFixed(1)} after`,
    '',
  ];
  // Runs from before the CPU time was measured have no such columns.
  const cpu = report.scenarios.some((r) => r.cpuUsPerRequest !== undefined);
  const database = report.scenarios.some((r) => r.databaseCpuUsPerRequest !== undefined);
  lines.push(
    `| scenario | conns | req/s | ceiling req/s | ratio | p50 ms | p99 ms | p99.9 ms | errors | non-2xx | peak RSS MiB |${cpu ? ' CPU µs/req | ceiling CPU µs/req | CPU ratio |' : ''}${database ? ' PostgreSQL CPU µs/req |' : ''}`,
    `|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|${cpu ? '--:|--:|--:|' : ''}${database ? '--:|' : ''}`,
  );
  const optional = (n: number | undefined, digits = 0) => (n === undefined ? '' : n.toFixed(digits));
  for (const r of report.scenarios.filter((s) => s.target === 'service')) {
    lines.push(
      `| ${r.scenario} | ${r.connections} | ${r.rps} | ${r.ceilingRps ?? ''} | ${r.ratio === undefined ? '' : fixed(r.ratio)} | ${fixed(r.p50)} | ${fixed(r.p99)} | ${fixed(r.p999)} | ${r.errors} | ${r.non2xx} | ${r.peakRssMiB.toFixed(0)} |${cpu ? ` ${optional(r.cpuUsPerRequest)} | ${optional(r.ceilingCpuUsPerRequest)} | ${optional(r.cpuRatio, 2)} |` : ''}${database ? ` ${optional(r.databaseCpuUsPerRequest)} |` : ''}`,
    );
  }
  lines.push('', 'Ceiling runs (same run, same pinning):', '');
  lines.push(
    `| ceiling route | conns | req/s | p50 ms | p99 ms | p99.9 ms | peak RSS MiB |${cpu ? ' CPU µs/req |' : ''}`,
    `|---|--:|--:|--:|--:|--:|--:|${cpu ? '--:|' : ''}`,
  );
  for (const r of report.scenarios.filter((s) => s.target === 'ceiling')) {
    lines.push(
      `| ${r.scenario} | ${r.connections} | ${r.rps} | ${fixed(r.p50)} | ${fixed(r.p99)} | ${fixed(r.p999)} | ${r.peakRssMiB.toFixed(0)} |${cpu ? ` ${optional(r.cpuUsPerRequest)} |` : ''}`,
    );
  }
  const compared = report.scenarios.filter((s) => s.target === 'service' && s.comparedWith);
  if (compared.length) {
    lines.push(
      '',
      'Against another scenario of the same run (`form-post` ÷ `POST /v1/leads`, create-distinct):',
      '',
    );
    lines.push(
      '| scenario | compared with | conns | req/s | its req/s | req/s ratio | p50 ms | its p50 ms | p50 ratio | p99 ms | its p99 ms | p99 ratio |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const r of compared) {
      const c = r.comparedWith!;
      lines.push(
        `| ${r.scenario} | ${c.scenario} | ${r.connections} | ${r.rps} | ${c.rps} | ${fixed(c.rpsRatio)} | ${fixed(r.p50)} | ${fixed(c.p50)} | ${fixed(c.p50Ratio)} | ${fixed(r.p99)} | ${fixed(c.p99)} | ${fixed(c.p99Ratio)} |`,
      );
    }
  }
  if (report.growth.length) {
    lines.push('', 'Growth (`GET /v1/leads?limit=100`):', '');
    lines.push('| query | leads in brand | req/s | p50 ms | p99 ms | non-2xx |', '|---|--:|--:|--:|--:|--:|');
    for (const g of report.growth) {
      lines.push(
        `| ${g.query} | ${g.leads.toLocaleString('en')} | ${g.rps} | ${fixed(g.p50)} | ${fixed(g.p99)} | ${g.non2xx} |`,
      );
    }
    lines.push('', '| query | p99 at smaller | p99 at larger | ratio |', '|---|--:|--:|--:|');
    for (const g of report.growthRatios) {
      lines.push(
        `| ${g.query} (${g.from.toLocaleString('en')} → ${g.to.toLocaleString('en')}) | ${fixed(g.p99From)} | ${fixed(g.p99To)} | ${fixed(g.ratio)} |`,
      );
    }
  }
  return lines.join('\n');
}

const isEntry = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntry) {
  for (const file of process.argv.slice(2)) {
    console.log(`${renderReport(JSON.parse(fs.readFileSync(file, 'utf8')) as Report)}\n`);
  }
}
