// One measurement: autocannon against a URL for a warm-up and then a measured period, with latency kept
// at microsecond resolution (autocannon's own histogram rounds to whole milliseconds).
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { cpuMs, postgresCpuMs, rssMiB, sampleRss } from './processes.js';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /**
   * The status every answer should have when it is not a 2xx (a form post's 303): answers with another status are
   * counted in `non2xx`, these are not.
   */
  expectStatus?: number;
  /** Called before every request: vary the body or the path. */
  setupRequest?: (request: {
    method: string;
    path: string;
    body?: string | Buffer;
    headers: Record<string, string>;
  }) => {
    method: string;
    path: string;
    body?: string | Buffer;
    headers: Record<string, string>;
  };
}

export interface Measurement {
  connections: number;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  errors: number;
  timeouts: number;
  /** Answers that were not a 2xx (or, with `expectStatus`, not that status). */
  non2xx: number;
  peakRssMiB: number;
  /** CPU time (user + system) of the server process per request of the measured run, in µs. */
  cpuUsPerRequest?: number;
  /** CPU time of the PostgreSQL processes on this machine per request of the measured run, in µs. */
  databaseCpuUsPerRequest?: number;
}

function run(
  url: string,
  spec: RequestSpec,
  connections: number,
  seconds: number,
  onLatency?: (ms: number) => void,
) {
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        duration: seconds,
        pipelining: 1,
        timeout: 10,
        requests: [
          {
            method: spec.method,
            path: spec.path,
            headers: spec.headers,
            ...(spec.body !== undefined ? { body: spec.body } : {}),
            ...(spec.setupRequest ? { setupRequest: spec.setupRequest as never } : {}),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    if (onLatency) {
      instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) =>
        onLatency(ms),
      );
    }
  });
}

/** Answers with any status but `expected`. */
function otherStatuses(result: autocannon.Result, expected: number): number {
  let count = 0;
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
    if (Number(status) !== expected) count += stats?.count ?? 0;
  }
  return count;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Warm up, then measure. `pid` is the server process whose peak RSS and CPU time are reported; with
 * `databaseCpu`, the CPU time of the PostgreSQL processes on this machine too.
 */
export async function measure(
  url: string,
  spec: RequestSpec,
  options: {
    connections: number;
    warmupSeconds: number;
    seconds: number;
    pid: number;
    databaseCpu?: boolean;
  },
): Promise<Measurement> {
  if (options.warmupSeconds > 0) await run(url, spec, options.connections, options.warmupSeconds);
  const histogram = createHistogram({ lowest: 1, highest: 60_000_000, figures: 3 });
  const stopSampling = sampleRss(options.pid);
  const cpuBefore = cpuMs(options.pid);
  const databaseBefore = options.databaseCpu ? postgresCpuMs() : Number.NaN;
  const result = await run(url, spec, options.connections, options.seconds, (ms) =>
    histogram.record(Math.max(1, Math.round(ms * 1000))),
  );
  const peak = stopSampling();
  const ms = (percentile: number) => round(histogram.percentile(percentile) / 1000, 3);
  const requests = result.requests.total;
  const perRequest = (msSpent: number) =>
    Number.isFinite(msSpent) && requests > 0 ? round((msSpent * 1000) / requests, 1) : undefined;
  const cpu = perRequest(cpuMs(options.pid) - cpuBefore);
  const databaseCpu = options.databaseCpu ? perRequest(postgresCpuMs() - databaseBefore) : undefined;
  return {
    connections: options.connections,
    seconds: result.duration,
    requests,
    rps: Math.round(requests / result.duration),
    p50: ms(50),
    p99: ms(99),
    p999: ms(99.9),
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: spec.expectStatus === undefined ? result.non2xx : otherStatuses(result, spec.expectStatus),
    peakRssMiB: round(Number.isFinite(peak) ? peak : rssMiB(options.pid), 1),
    ...(cpu === undefined ? {} : { cpuUsPerRequest: cpu }),
    ...(databaseCpu === undefined ? {} : { databaseCpuUsPerRequest: databaseCpu }),
  };
}
