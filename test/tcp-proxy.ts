// A TCP proxy in front of a real server, to take it away and bring it back (or make it hang) during a test.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  url(scheme?: string): string;
  /** Refuses new connections and cuts open ones, like a server that went down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Holds bytes back while on (connections stay open, like a stalled network), and lets them through when off. */
  stall(on: boolean): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let stalled = false;
  const held: (() => void)[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    const forward = (to: net.Socket) => (chunk: Buffer) => {
      if (stalled) held.push(() => to.write(chunk));
      else to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  return {
    port,
    url: (scheme = 'redis') => `${scheme}://127.0.0.1:${port}`,
    stop,
    start: () => listen(port),
    stall: (on) => {
      stalled = on;
      if (!on) for (const send of held.splice(0)) send();
    },
    close: async () => {
      if (server.listening) await stop();
    },
  };
}
