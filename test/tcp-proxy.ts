// A TCP proxy in front of a real server, to take it away and bring it back (or make it hang) during a test.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  url(scheme?: string): string;
  /** Refuses new connections and cuts open ones, like a server that went down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Keeps connections open but stops passing bytes, like a server that hangs. */
  blackhole(on: boolean): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let swallow = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk) => {
      if (!swallow) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!swallow) client.write(chunk);
    });
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
    blackhole: (on) => {
      swallow = on;
    },
    close: async () => {
      if (server.listening) await stop();
    },
  };
}
