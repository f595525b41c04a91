import { createConnection, createServer, Server, Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  via: (url: string) => string;
  // the outage: stops listening and cuts every open connection (clients see ECONNREFUSED / a reset)
  stop: () => Promise<void>;
  start: () => Promise<void>;
}

// A TCP relay to host:port that a test can cut and restore: a database outage as the daemons see it (their pool's
// connections reset, new ones refused), deterministic and without touching the shared PostgreSQL.
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = createConnection(target);
        sockets.add(client);
        sockets.add(upstream);
        const close = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', close).on('close', close);
        upstream.on('error', close).on('close', close);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        const address = s.address();
        port = typeof address === 'object' && address ? address.port : port;
        server = s;
        resolve();
      });
    });
  await listen();
  return {
    get port() {
      return port;
    },
    via: (url: string) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    stop: async () => {
      const s = server;
      server = null;
      const closed = s ? new Promise<void>((resolve) => s.close(() => resolve())) : Promise.resolve();
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      await closed;
    },
    start: async () => {
      if (!server) await listen();
    },
  };
}
