import { DEFAULT_FRONTIER_CACHE_BUDGET } from './app-config';
import { ConfigError, parseConfig } from './config';

describe(parseConfig.name, () => {
  it('should apply defaults when nothing is set', () => {
    const config = parseConfig({ HOME: '/home/someone' });
    expect(config.port).toBe(7700);
    expect(config.host).toBe('127.0.0.1');
    expect(config.databaseUrl).toBeNull();
    expect(config.mode).toBe('self-host');
    expect(config.heapGrowthPercent).toBe(30);
  });

  it('should take the heap growth in percent, 0 for V8 to choose, and refuse anything else', () => {
    expect(parseConfig({ SVC_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(parseConfig({ SVC_HEAP_GROWTH_PERCENT: '75' }).heapGrowthPercent).toBe(75);
    expect(() => parseConfig({ SVC_HEAP_GROWTH_PERCENT: 'lots' })).toThrow(ConfigError);
    expect(() => parseConfig({ SVC_HEAP_GROWTH_PERCENT: '-5' })).toThrow(ConfigError);
  });

  it('should take the frontier cache budget in candidates, edges and outside blockers, and refuse anything else', () => {
    expect(parseConfig({}).frontierCacheBudget).toBe(DEFAULT_FRONTIER_CACHE_BUDGET);
    expect(parseConfig({ SVC_FRONTIER_CACHE_BUDGET: '2000000' }).frontierCacheBudget).toBe(2_000_000);
    expect(parseConfig({ SVC_FRONTIER_CACHE_BUDGET: '0' }).frontierCacheBudget).toBe(0);
    expect(() => parseConfig({ SVC_FRONTIER_CACHE_BUDGET: '1.5' })).toThrow(ConfigError);
    expect(() => parseConfig({ SVC_FRONTIER_CACHE_BUDGET: '-1' })).toThrow(ConfigError);
  });

  it('should prepare statements unless SVC_DB_PREPARED_STATEMENTS is false (the booleans read true or 1)', () => {
    expect(parseConfig({}).dbPreparedStatements).toBe(true);
    expect(parseConfig({ SVC_DB_PREPARED_STATEMENTS: '' }).dbPreparedStatements).toBe(true);
    expect(parseConfig({ SVC_DB_PREPARED_STATEMENTS: 'false' }).dbPreparedStatements).toBe(false);
    expect(parseConfig({ SVC_DB_PREPARED_STATEMENTS: '0' }).dbPreparedStatements).toBe(false);
    expect(parseConfig({ SVC_DB_PREPARED_STATEMENTS: 'true' }).dbPreparedStatements).toBe(true);
    expect(parseConfig({ SVC_DB_PREPARED_STATEMENTS: '1' }).dbPreparedStatements).toBe(true);
  });

  it('should parse typed values when they are valid', () => {
    const config = parseConfig({
      SVC_PORT: '8080',
      SVC_DATABASE_URL: 'postgres://u:p@db:5432/svc',
      SVC_API_TRUSTED_PROXIES: '10.0.0.1, 192.168.0.0/16 ,',
    });
    expect(config.port).toBe(8080);
    expect(config.databaseUrl).toBe('postgres://u:p@db:5432/svc');
    expect(config.trustedProxies).toEqual(['10.0.0.1', '192.168.0.0/16']);
  });

  it('should refuse a trusted proxy list it cannot match with a ConfigError naming the variable', () => {
    for (const value of ['0.0.0.0/0', 'not-an-address', '10.0.0.0/40']) {
      expect(() => parseConfig({ SVC_API_TRUSTED_PROXIES: value })).toThrow(ConfigError);
      expect(() => parseConfig({ SVC_API_TRUSTED_PROXIES: value })).toThrow(/SVC_API_TRUSTED_PROXIES/);
    }
    expect(parseConfig({ SVC_API_TRUSTED_PROXIES: 'loopback, 172.30.57.2' }).trustedProxies).toEqual([
      'loopback',
      '172.30.57.2',
    ]);
  });

  it('should name every bad variable when several are invalid', () => {
    let error: unknown;
    try {
      parseConfig({ SVC_PORT: 'eighty', SVC_DATABASE_URL: 'mysql://x', SVC_MODE: 'cloudy' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain('SVC_PORT');
    expect(message).toContain('SVC_DATABASE_URL');
    expect(message).toContain('SVC_MODE');
  });

  it('should refuse a short server secret when one is set', () => {
    expect(() => parseConfig({ SVC_SERVER_SECRET: 'short' })).toThrow(/SVC_SERVER_SECRET/);
  });

  it('should refuse a guessable bootstrap token without echoing it, and take one shaped like a generated token', () => {
    for (const weak of [
      '',
      'changeme',
      'svc_short',
      `admin_${'x'.repeat(40)}`,
      `svc_${'x'.repeat(31)}`,
      `svc_${'x'.repeat(32)} `,
    ]) {
      let error: unknown;
      try {
        parseConfig({ SVC_BOOTSTRAP_TOKEN: weak });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as ConfigError).message;
      expect(message).toContain('SVC_BOOTSTRAP_TOKEN');
      if (weak.length > 0) expect(message).not.toContain(weak.trim());
    }
    const token = `svc_${'a1_-'.repeat(8)}`;
    expect(parseConfig({ SVC_BOOTSTRAP_TOKEN: token }).bootstrapToken).toBe(token);
  });
});
