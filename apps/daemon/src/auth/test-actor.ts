import { AuthenticatedActor } from './actor';

// The caller a service spec acts as: a plain active member signed in with an API token, in no organization. A spec
// names only what its case changes (an admin, a machine credential, an organization).
export function testActor(overrides: Partial<AuthenticatedActor> = {}): AuthenticatedActor {
  return {
    id: 3,
    name: 'alice',
    isAdmin: false,
    status: 'active',
    via: 'api_token',
    credentialId: 1,
    machineId: null,
    organizationId: null,
    ...overrides,
  };
}
