// A rolling restart of two instances on PostgreSQL behind a real HAProxy that checks /readyz, under mixed load (creates with and without
// Idempotency-Key, reads, lists): no request fails, and every acknowledged create is readable afterwards. Prints
// the figures the README quotes. HAProxy's backend settings are docs/operations.md's.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { findBinary, HAProxy } from './balancer.js';
import {
  dropStorage,
  findLostOrWrong,
  leadBody,
  newStorage,
  type Outcome,
  postgresUrl,
  request,
  ServerProcess,
  type Storage,
  seedBrandAndKey,
  sleep,
} from './harness.js';

type Kind = 'create' | 'create-idempotent' | 'read' | 'list';

/** Clients of the balancer doing a mix of work; every outcome is kept with its kind. */
class MixedLoad {
  readonly acknowledged = new Map<string, Record<string, string>>();
  readonly outcomes: (Outcome & { kind: Kind })[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private counter = 0;

  constructor(
    private readonly url: string,
    private readonly key: string,
  ) {}

  start(concurrency: number): void {
    this.running = true;
    const kinds: Kind[] = ['create', 'create-idempotent', 'read', 'list'];
    for (let i = 0; i < concurrency; i++) this.loops.push(this.loop(kinds[i % kinds.length]!));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(kind: Kind): Promise<void> {
    const headers = { 'x-api-key': this.key };
    while (this.running) {
      if (kind === 'create' || kind === 'create-idempotent') {
        const body = leadBody('roll', this.counter++, 40);
        const outcome = await request(`${this.url}/v1/leads`, {
          method: 'POST',
          headers: {
            ...headers,
            'content-type': 'application/json',
            ...(kind === 'create-idempotent' ? { 'idempotency-key': randomUUID() } : {}),
          },
          body: JSON.stringify(body),
        });
        this.outcomes.push({ ...outcome, kind });
        if (outcome.status === 201) this.acknowledged.set(String(outcome.body?.id), body);
      } else if (kind === 'read') {
        const ids = [...this.acknowledged.keys()];
        if (!ids.length) {
          await sleep(20);
          continue;
        }
        const id = ids[Math.floor(Math.random() * ids.length)];
        this.outcomes.push({ ...(await request(`${this.url}/v1/leads/${id}`, { headers })), kind });
      } else {
        this.outcomes.push({ ...(await request(`${this.url}/v1/leads?limit=20`, { headers })), kind });
      }
    }
  }
}

const haproxy = findBinary('haproxy');
const balancer = 'HAProxy';

describe.skipIf(!haproxy || !postgresUrl())('a rolling restart behind HAProxy on postgres', () => {
  const storages: Storage[] = [];
  afterAll(async () => {
    for (const storage of storages) await dropStorage(storage);
  });

  it('fails no request and loses no acknowledged create', async () => {
    const storage = newStorage('postgres');
    storages.push(storage);
    const { key } = await seedBrandAndKey(storage);
    // SHUTDOWN_DRAIN_MS stays at its default (5000).
    const servers: Record<string, ServerProcess> = {
      a: await ServerProcess.start(storage),
      b: await ServerProcess.start(storage),
    };
    const backends = [
      { name: 'a', port: servers.a!.port },
      { name: 'b', port: servers.b!.port },
    ];
    const proxy = await HAProxy.start(haproxy!, backends);
    const load = new MixedLoad(proxy.url, key);
    try {
      load.start(12);
      await sleep(3000);
      const rollStarted = Date.now();
      const steps: string[] = [];
      for (const name of ['a', 'b']) {
        const old = servers[name]!;
        const signalled = Date.now();
        old.kill('SIGTERM');
        const exit = await old.exited;
        expect(exit, old.log).toEqual({ code: 0, signal: null });
        const stopped = Date.now();
        servers[name] = await ServerProcess.start(storage, { port: old.port });
        await proxy.waitUntilUp(name);
        steps.push(
          `${name}: SIGTERM at ${new Date(signalled).toISOString()}, exit 0 after ${stopped - signalled} ms, back in ${balancer} after ${Date.now() - signalled} ms`,
        );
      }
      const rollEnded = Date.now();
      await sleep(2000);
      await load.stop();

      const failures = load.outcomes.filter((o) => o.status < 200 || o.status >= 300);
      const during = load.outcomes.filter((o) => o.startedAt >= rollStarted && o.startedAt <= rollEnded);
      const longest = Math.max(...during.map((o) => o.ms));
      const byKind = (kind: Kind) => load.outcomes.filter((o) => o.kind === kind).length;
      console.log(
        `[rolling restart, postgres, ${balancer}] ${load.outcomes.length} requests (${byKind('create')} creates, ` +
          `${byKind('create-idempotent')} with Idempotency-Key, ${byKind('read')} reads, ${byKind('list')} lists), ` +
          `failures: ${failures.length}; ${during.length} during the ${rollEnded - rollStarted} ms roll, the longest ` +
          `${Math.round(longest)} ms; ${load.acknowledged.size} acknowledged creates\n  ${steps.join('\n  ')}`,
      );
      expect(
        failures.map((f) => `${f.kind}: ${f.status || f.error} ${JSON.stringify(f.body)}`),
        proxy.log,
      ).toEqual([]);
      expect(during.length).toBeGreaterThan(100);
      expect(await findLostOrWrong(proxy.url, key, load.acknowledged)).toEqual([]);
    } finally {
      await load.stop();
      await proxy.stop();
      for (const server of Object.values(servers)) await server.stop();
    }
  }, 180_000);
});
