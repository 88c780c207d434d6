// docs/operations.md's HAProxy, nginx and Kubernetes examples, as written: HAProxy and nginx (Debian's packages)
// accept them (haproxy -c, nginx -t), and the Kubernetes timings leave room for the drain. The rolling-restart
// fault test runs the same balancer settings for real. Under CI=true a missing haproxy or nginx is a failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findBinary } from '../faults/process/balancer.js';

const DOC = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/operations.md'), 'utf8');

/** The first fenced block after a heading. */
function blockAfter(heading: string): string {
  const at = DOC.indexOf(`\n${heading}\n`);
  expect(at, heading).toBeGreaterThan(0);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(DOC.slice(at));
  return match![1]!;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-examples-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the load balancer examples in docs/operations.md', () => {
  it('HAProxy accepts its example (with a plain bind instead of the certificate)', () => {
    const haproxy = findBinary('haproxy');
    if (!haproxy) return;
    const config = blockAfter('### Behind HAProxy');
    expect(config).toContain('option httpchk GET /readyz');
    expect(config).toContain('disable-l7-retry if !METH_GET !{ req.hdr(idempotency-key) -m found }');
    const file = path.join(dir, 'haproxy.cfg');
    fs.writeFileSync(file, config.replace(/bind :443 ssl crt \S+/, 'bind 127.0.0.1:8443'));
    const out = execFileSync(haproxy, ['-c', '-f', file], { encoding: 'utf8', stdio: 'pipe' });
    expect(out).toMatch(/Configuration file is valid/);
  });

  it('nginx accepts its example (listening without TLS)', () => {
    const nginx = findBinary('nginx');
    if (!nginx) return;
    const config = blockAfter('### Behind nginx');
    expect(config).toMatch(/keepalive_timeout 4s;/);
    const file = path.join(dir, 'nginx.conf');
    fs.writeFileSync(
      file,
      `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n${config.replace(
        'listen 443 ssl;',
        'listen 127.0.0.1:8080;',
      )}\n}\n`,
    );
    execFileSync(nginx, ['-t', '-p', dir, '-c', file], { encoding: 'utf8', stdio: 'pipe' });
  });

  it('Kubernetes probes /readyz and /healthz and gives the drain time before SIGKILL', () => {
    const manifest = blockAfter('### On Kubernetes');
    const number = (pattern: RegExp) => Number(pattern.exec(manifest)?.[1]);
    expect(manifest).toMatch(/readinessProbe:\n\s+httpGet: \{ path: \/readyz, port: 3000 \}/);
    expect(manifest).toMatch(/livenessProbe:\n(\s+#.*\n)*\s+httpGet: \{ path: \/healthz, port: 3000 \}/);
    const drainMs = number(/name: SHUTDOWN_DRAIN_MS, value: "(\d+)"/);
    // Taken out of the Service before the drain ends.
    const period = number(/readinessProbe:[\s\S]*?periodSeconds: (\d+)/);
    const failures = number(/readinessProbe:[\s\S]*?failureThreshold: (\d+)/);
    expect(period * failures * 1000).toBeLessThan(drainMs);
    // preStop, the drain, finishing (10 s at most) and handing jobs back (2 s) all fit before SIGKILL.
    const preStop = number(/command: \["sleep", "(\d+)"\]/);
    const grace = number(/terminationGracePeriodSeconds: (\d+)/);
    expect(grace).toBeGreaterThan(preStop + drainMs / 1000 + 10 + 2);
  });
});
