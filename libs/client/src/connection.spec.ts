import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { connectedCredentials, resolveConnection } from './connection';
import { writeCredentials } from './credentials';

const stored = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-connection-'));
  writeCredentials(dir, { url: 'http://stored:7700', token: 'stored-token' });
  return dir;
};

describe('resolveConnection', () => {
  it('treats SVC_URL and SVC_TOKEN set but empty as unset: the stored credential is used', () => {
    const env = { SVC_CONFIG_DIR: stored(), SVC_URL: '', SVC_TOKEN: '' };
    expect(resolveConnection({}, env)).toEqual({ url: 'http://stored:7700', token: 'stored-token' });
    expect(connectedCredentials({}, { ...env, SVC_URL: '  ', SVC_TOKEN: ' ' })).toEqual({
      url: 'http://stored:7700',
      token: 'stored-token',
    });
  });

  it('still lets SVC_URL and SVC_TOKEN with a value win over the file', () => {
    const env = { SVC_CONFIG_DIR: stored(), SVC_URL: 'http://other:1', SVC_TOKEN: 'env-token' };
    expect(resolveConnection({}, env)).toEqual({ url: 'http://other:1', token: 'env-token' });
  });
});
