// Where the time goes: reads a V8 .cpuprofile (node --cpu-prof) and ranks functions and packages by self time.
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  functions: { name: string; where: string; selfMs: number; percent: number }[];
  packages: { name: string; selfMs: number; percent: number }[];
  /**
   * The request hooks (src/platform/http/plugins/*), each with what it calls (a hash, prom-client, pino, the key cache):
   * a sample counts for the outermost plugin function on its stack.
   */
  hooks: { name: string; inclusiveMs: number; percent: number }[];
}

const PLUGIN = /\/(?:dist|src)\/http\/plugins\/([^/]+)\.[jt]s$/;

/** node_modules/<package>, node:internal, the project's own files, or V8 itself (GC, idle, program). */
function packageOf(url: string, functionName: string): string {
  if (!url) return `(${functionName || 'native'})`;
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module) return module[1]!;
  if (url.startsWith('node:')) return 'node core';
  const own = /\/(dist|src)\/(.+)$/.exec(url);
  return own ? `lead-intake ${own[2]!.split('/').slice(0, -1).join('/') || '.'}` : url;
}

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const functions = new Map<string, { name: string; where: string; us: number }>();
  const packages = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    total += us;
    const where = url
      ? `${url.replace(/^file:\/\/.*?\/(node_modules|dist|src)\//, '$1/')}:${lineNumber + 1}`
      : '';
    const key = `${functionName}@${where}`;
    const entry = functions.get(key) ?? { name: functionName || '(anonymous)', where, us: 0 };
    entry.us += us;
    functions.set(key, entry);
    const pkg = packageOf(url, functionName);
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  }
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const hooks = new Map<string, number>();
  profile.samples.forEach((leaf, i) => {
    if (byId.get(leaf)?.callFrame.functionName === '(idle)') return;
    let outermost: string | undefined;
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const plugin = PLUGIN.exec(byId.get(id)?.callFrame.url ?? '');
      if (plugin) outermost = plugin[1];
    }
    if (outermost) hooks.set(outermost, (hooks.get(outermost) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const pct = (us: number) => Math.round((us / total) * 1000) / 10;
  return {
    totalMs: Math.round(total / 1000),
    functions: [...functions.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((f) => ({ name: f.name, where: f.where, selfMs: Math.round(f.us / 1000), percent: pct(f.us) })),
    packages: [...packages]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: Math.round(us / 1000), percent: pct(us) })),
    hooks: [...hooks]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({ name, inclusiveMs: Math.round(us / 1000), percent: pct(us) })),
  };
}

/** `cpuUsPerRequest`: the measured run's CPU time per request, to put the hooks' shares in µs. */
export function formatProfile(summary: ProfileSummary, cpuUsPerRequest?: number): string {
  const lines = [`CPU time sampled (excluding idle): ${summary.totalMs} ms`, ''];
  lines.push(
    'Request hooks (src/platform/http/plugins, each with what it calls)' +
      (cpuUsPerRequest ? `, and their share of the ${cpuUsPerRequest} µs of CPU per request:` : ':'),
  );
  for (const h of summary.hooks) {
    const us = cpuUsPerRequest ? `  ≈ ${((h.percent / 100) * cpuUsPerRequest).toFixed(1)} µs` : '';
    lines.push(`  ${h.percent.toFixed(1).padStart(5)}%  ${h.name}${us}`);
  }
  lines.push('', 'By package (self time):');
  for (const p of summary.packages) lines.push(`  ${p.percent.toFixed(1).padStart(5)}%  ${p.name}`);
  lines.push('', 'Top functions (self time):');
  for (const f of summary.functions)
    lines.push(`  ${f.percent.toFixed(1).padStart(5)}%  ${f.name}  ${f.where}`);
  return lines.join('\n');
}
