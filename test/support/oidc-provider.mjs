/* global process, console */
// A real OpenID provider (oidc-provider, ESM-only) on loopback for the company sign-in tests, run as a child process
// because jest under swc cannot load ESM. Environment: OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_REDIRECT_URI,
// OIDC_ACCOUNTS (JSON: { "<login>": { "email": "...", "email_verified": true } }), OIDC_ALLOW_CODE_REUSE=1 (a lax
// provider that redeems one authorization code again and again). Prints "issuer <url>" when ready.
import { createServer } from 'node:http';

import Provider from 'oidc-provider';

const accounts = JSON.parse(process.env.OIDC_ACCOUNTS ?? '{}');
const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://localhost:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.OIDC_CLIENT_ID,
      client_secret: process.env.OIDC_CLIENT_SECRET,
      redirect_uris: [process.env.OIDC_REDIRECT_URI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  pkce: { required: () => true },
  cookies: { keys: ['svc-test-oidc-cookie-key'] },
  findAccount: (_ctx, id) => ({
    accountId: id,
    claims: () => ({ sub: id, ...(accounts[id] ?? {}) }),
  }),
});
if (process.env.OIDC_ALLOW_CODE_REUSE === '1') {
  // oidc-provider refuses a consumed code (and revokes its grant); a code that is never marked consumed is reusable.
  provider.AuthorizationCode.prototype.consume = async function consume() {};
}
provider.on('server_error', (_ctx, err) => console.error('oidc-provider server_error', err));
server.on('request', provider.callback());
process.stdout.write(`issuer ${issuer}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
