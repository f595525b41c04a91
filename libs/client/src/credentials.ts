// The daemon writes the credential file too, so it lives in libs/credentials.
export * from '@app/credentials';

// No credential at all for the server a command addresses: say how to get one, rather than "cannot reach".
export class NotConnectedError extends Error {
  readonly code = 'not_connected';
  constructor() {
    super('not connected — run svc setup or svc connect');
  }
}
