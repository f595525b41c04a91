import { oidcSettings } from './oidc-settings';

const config = (oidc: Record<string, string | undefined>) => ({ oidc: { allowedDomains: [], ...oidc } });

describe(oidcSettings.name, () => {
  it('should be off when nothing is set', () => {
    expect(oidcSettings(config({})).state).toBe('off');
  });

  it('should be configured only with issuer, client id and secret', () => {
    const s = oidcSettings(config({ issuer: 'https://id.example.com', clientId: 'svc', clientSecret: 's' }));
    expect(s).toMatchObject({ state: 'configured', label: 'id.example.com' });
  });

  it('should be misconfigured when partly set, naming what is missing', () => {
    const s = oidcSettings(config({ issuer: 'https://id.example.com', clientId: 'svc' }));
    expect(s).toMatchObject({ state: 'misconfigured' });
    expect(s.state === 'misconfigured' && s.problem).toContain('SVC_OIDC_CLIENT_SECRET');
  });

  it('should refuse a plain-http issuer off loopback', () => {
    expect(oidcSettings(config({ issuer: 'http://id.example.com', clientId: 'a', clientSecret: 'b' })).state).toBe(
      'misconfigured',
    );
    expect(oidcSettings(config({ issuer: 'http://127.0.0.1:9000', clientId: 'a', clientSecret: 'b' })).state).toBe(
      'configured',
    );
  });
});
