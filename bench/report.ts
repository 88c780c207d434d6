// Turns bench/results/*.json into the Markdown tables of bench/README.md:
//   npx tsx bench/report.ts bench/results/2026-11-21-sqlite.json [more.json ...]
import fs from 'node:fs';
import type { CreatesReport } from './creates.js';
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
  /** --before, --crowds, --creates-at (bench/creates.ts); absent in runs without them. */
  creates?: CreatesReport;
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
  // A run of --scenarios none (growth or creates only) has no scenario tables.
  if (report.scenarios.length) {
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
  if (report.creates) lines.push('', ...renderCreates(report.creates));
  return lines.join('\n');
}

/** The creates section: today against the earlier commit, then crowds and size beside the unique-phone figure. */
export function renderCreates(c: CreatesReport): string[] {
  const lines: string[] = [];
  const cpus = c.serviceCpus === 'all' ? 'servers on all cores' : 'servers on the last core';
  const setup = `${c.connections} connections, ${c.rounds} rounds of ${c.warmupSeconds} s warm-up + ${c.seconds} s, ${cpus}`;
  if (c.before) {
    const b = c.before;
    lines.push(
      `Creates (\`POST /v1/leads\`, unique phones) against \`${b.commit.slice(0, 10)}\` (${b.dir}), ${setup}, the order alternating each round:`,
      '',
      '| round | order | before req/s | p50 ms | p99 ms | after req/s | p50 ms | p99 ms | ceiling req/s | after ÷ before | before ÷ ceiling | after ÷ ceiling |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const r of b.rounds) {
      lines.push(
        `| ${r.round} | ${r.order.join(', ')} | ${r.before.rps} | ${fixed(r.before.p50)} | ${fixed(r.before.p99)} | ${r.after.rps} | ${fixed(r.after.p50)} | ${fixed(r.after.p99)} | ${r.ceiling.rps} | ${fixed(r.ratio, 3)} | ${fixed(r.beforeToCeiling, 3)} | ${fixed(r.afterToCeiling, 3)} |`,
      );
    }
    const m = b.median;
    lines.push(
      `| **median** | | ${m.before.rps} | ${fixed(m.before.p50)} | ${fixed(m.before.p99)} | ${m.after.rps} | ${fixed(m.after.p50)} | ${fixed(m.after.p99)} | ${m.ceiling.rps} | **${fixed(m.ratio, 3)}** | ${fixed(m.beforeToCeiling, 3)} | ${fixed(m.afterToCeiling, 3)} |`,
      '',
    );
  }
  if (c.rows.length) {
    lines.push(
      `Creates with the data (today's service), ${setup}; each beside the unique-phone creates of the same rounds (ratios: the median of each round's):`,
      '',
      '| scenario | the brand | req/s (rounds) | p50 ms | p99 ms | compared with | its req/s | req/s ratio | p50 ratio | p99 ratio | non-2xx |',
      '|---|---|--:|--:|--:|---|--:|--:|--:|--:|--:|',
    );
    for (const r of c.rows) {
      const data = r.crowdAtEnd
        ? `${r.data} (the last crowd ended at ${r.crowdAtEnd.toLocaleString('en')})`
        : r.data;
      lines.push(
        `| ${r.scenario} | ${data} | ${r.rps} (${r.roundsRps.join(', ')}) | ${fixed(r.p50)} | ${fixed(r.p99)} | ${r.comparedWith} | ${r.baseRps} | **${fixed(r.rpsRatio, 3)}** | ${fixed(r.p50Ratio)} | ${fixed(r.p99Ratio)} | ${r.non2xx + r.errors} |`,
      );
    }
    lines.push('');
  }
  return lines;
}

const isEntry = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntry) {
  for (const file of process.argv.slice(2)) {
    console.log(`${renderReport(JSON.parse(fs.readFileSync(file, 'utf8')) as Report)}\n`);
  }
}
