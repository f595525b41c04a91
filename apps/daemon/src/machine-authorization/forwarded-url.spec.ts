import { forwardedUrl } from './forwarded-url';

describe(forwardedUrl.name, () => {
  it('forwards the /v1 path and its query as sent', () => {
    expect(forwardedUrl('/api/orgs/default/v1/items/ATL-1')).toBe('/v1/items/ATL-1');
    expect(forwardedUrl('/api/orgs/default/v1/items?project=atlas&x=a/../b')).toBe('/v1/items?project=atlas&x=a/../b');
    expect(forwardedUrl('/api/orgs/defaul%74/v1/projects')).toBe('/v1/projects');
    expect(forwardedUrl('/api/orgs/default/v1/items/ATL-1/sections/%C3%A9%20x')).toBe(
      '/v1/items/ATL-1/sections/%C3%A9%20x',
    );
    // dots inside a name are not segments
    expect(forwardedUrl('/api/orgs/default/v1/items/a..b/.c')).toBe('/v1/items/a..b/.c');
  });

  it.each([
    '/api/orgs/default/v1/../../../api/machine/authorizations',
    '/api/orgs/default/v1/..',
    '/api/orgs/default/v1/./items',
    '/api/orgs/default/v1/%2e%2e/%2E%2E/metrics',
    '/api/orgs/default/v1/.%2e/healthz',
    '/api/orgs/default/v1/..%2f..%2fmetrics',
    '/api/orgs/default/v1/..\\..\\metrics',
    '/api/orgs/default/v1/items/%5c..%5c..%5cmetrics',
    '/api/orgs/default/v1/.\t./metrics',
    '/api/orgs/default/v1/.\n./metrics',
    '/api/orgs/default/v2/items',
    '/v1/items',
  ])('refuses %s', (url) => {
    expect(forwardedUrl(url)).toBeNull();
  });
});
