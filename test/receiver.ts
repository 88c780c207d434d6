// A real HTTP server on 127.0.0.1 (port 0) that records what webhook deliveries it gets.
import http from 'node:http';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Answers one request; may hold it open. `index` counts requests from 0. */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, index: number) => void;

export interface Receiver {
  port: number;
  url(path?: string): string;
  received: Received[];
  /** Requests whose Lead-Intake-Event-Id is this id. */
  forEvent(id: string): Received[];
  setHandler(handler: Handler): void;
  close(): Promise<void>;
}

export const ok: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
};

export async function startReceiver(handler: Handler = ok): Promise<Receiver> {
  let current = handler;
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = received.length;
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      current(req, res, index);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    forEvent: (id) => received.filter((r) => r.headers['lead-intake-event-id'] === id),
    setHandler: (h) => {
      current = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
