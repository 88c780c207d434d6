// The ceiling: plain Fastify on the same Node, doing only what no implementation of the API can avoid —
// parse the JSON body and validate it with the service's own rules, then send the bytes a real response
// has. No storage, no auth, no hooks. The service's requests/s divided by this is its "ratio to the ceiling".
//
// Run as a child of bench/run.ts: CEILING_SAMPLES names a JSON file holding a real create response, a real
// 100-item list page and a real single-lead read, captured from the service in the same run.
import fs from 'node:fs';
import Fastify from 'fastify';
import { parseLeadInput } from '../src/leads/input.js';
import { ValidationError } from '../src/shared/errors.js';

export interface CeilingSamples {
  create: { body: string; location: string };
  list: string;
  one: string;
}

export async function startCeiling(samples: CeilingSamples, port: number, host = '127.0.0.1') {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  const json = 'application/json; charset=utf-8';
  app.post('/v1/leads', async (request, reply) => {
    try {
      parseLeadInput(request.body);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return reply.code(422).send({ errors: error.errors });
    }
    return reply.code(201).header('location', samples.create.location).type(json).send(samples.create.body);
  });
  app.get('/v1/leads', async (_request, reply) => reply.type(json).send(samples.list));
  app.get('/v1/leads/:id', async (_request, reply) => reply.type(json).send(samples.one));
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.listen({ port, host });
  return app;
}

const isEntry = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntry) {
  const file = process.env.CEILING_SAMPLES;
  if (!file) throw new Error('CEILING_SAMPLES must name the samples file');
  const samples = JSON.parse(fs.readFileSync(file, 'utf8')) as CeilingSamples;
  const app = await startCeiling(samples, Number(process.env.PORT ?? 0));
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
