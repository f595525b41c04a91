// The credential file lives in libs/credentials (the daemon writes it too); the client re-exports it unchanged.
export * from '@app/credentials';

// No credential at all for the server a command addresses: say how to get one, rather than "cannot reach".
export class NotConnectedError extends Error {
  readonly code = 'not_connected';
  constructor() {
    super('not connected — run svc setup or svc connect');
  }
}
