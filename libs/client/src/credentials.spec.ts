import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  credentialsPath,
  findCredentials,
  readCredentialFile,
  readCredentials,
  removeCredentials,
  switchCredentials,
  writeCredentials,
} from './credentials';

const dir = () => mkdtempSync(join(tmpdir(), 'svc-credentials-'));

describe('the credential file', () => {
  it('should read a version-1 file as one current server', () => {
    const d = dir();
    writeFileSync(credentialsPath(d), JSON.stringify({ url: 'http://a:1/', token: 't', kind: 'api_token' }));
    expect(readCredentials(d)).toEqual({ url: 'http://a:1', token: 't', kind: 'api_token' });
    expect(readCredentialFile(d)).toMatchObject({ version: 2, current: 'http://a:1' });
  });

  it('should keep several servers, the last written current, with mode 0600', () => {
    const d = dir();
    writeCredentials(d, { url: 'http://a:1', token: 'ta' });
    writeCredentials(d, { url: 'http://b:2/', token: 'tb' });
    writeCredentials(d, { url: 'http://a:1', token: 'ta2' });
    expect(readCredentials(d)).toEqual({ url: 'http://a:1', token: 'ta2' });
    expect(findCredentials(d, 'http://b:2')).toEqual({ url: 'http://b:2', token: 'tb' });
    expect(readCredentialFile(d).servers).toHaveLength(2);
    expect(statSync(credentialsPath(d)).mode & 0o777).toBe(0o600);
  });

  it('should switch and remove, handing current to a remaining server', () => {
    const d = dir();
    writeCredentials(d, { url: 'http://a:1', token: 'ta' });
    writeCredentials(d, { url: 'http://b:2', token: 'tb' });
    expect(switchCredentials(d, 'http://a:1/')?.token).toBe('ta');
    expect(switchCredentials(d, 'http://c:3')).toBeNull();
    expect(readCredentials(d)?.url).toBe('http://a:1');
    expect(removeCredentials(d, null)?.url).toBe('http://a:1');
    expect(readCredentials(d)?.url).toBe('http://b:2');
    expect(removeCredentials(d, 'http://b:2')?.url).toBe('http://b:2');
    expect(readCredentials(d)).toBeNull();
    expect(removeCredentials(d, null)).toBeNull();
  });

  it('should read a damaged file as empty', () => {
    const d = dir();
    writeFileSync(credentialsPath(d), '{not json');
    expect(readCredentials(d)).toBeNull();
    writeCredentials(d, { url: 'http://a:1', token: 't' });
    expect(JSON.parse(readFileSync(credentialsPath(d), 'utf8'))).toMatchObject({ current: 'http://a:1' });
  });
});
