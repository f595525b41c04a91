import { createServer } from 'node:net';

export class PortBusyError extends Error {}

// A busy port is found before the database is touched; port 0 picks a free one at listen.
export function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'EADDRINUSE' ? 'is in use by another program' : `cannot be used (${err.code ?? err.message})`;
      reject(new PortBusyError(`port ${port} on ${host} ${why}; set SVC_PORT to another port`));
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
