import type { IncomingMessage } from 'node:http';

import { clientAddress, clientKey, compileTrust, networkKey, wideNetworkKey } from './client-identity';

function request(peer: string, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage;
}

describe(clientAddress.name, () => {
  it('should ignore X-Forwarded-For from an undeclared peer', () => {
    expect(clientAddress(request('203.0.113.9', '1.2.3.4'), compileTrust([]))).toBe('203.0.113.9');
    expect(clientAddress(request('203.0.113.9', '1.2.3.4'), compileTrust(['127.0.0.1']))).toBe('203.0.113.9');
  });

  it('should take the forwarded client from a declared proxy', () => {
    expect(clientAddress(request('127.0.0.1', '198.51.100.7'), compileTrust(['127.0.0.1']))).toBe('198.51.100.7');
  });

  it('should stop at the first undeclared hop of a chain', () => {
    const trust = compileTrust(['10.0.0.0/8']);
    expect(clientAddress(request('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.5'), trust)).toBe('198.51.100.7');
  });

  it('should match IPv6 CIDRs and IPv4-mapped peers', () => {
    expect(clientAddress(request('2001:db8::1', '198.51.100.7'), compileTrust(['2001:db8::/32']))).toBe('198.51.100.7');
    expect(clientAddress(request('::ffff:127.0.0.1', '198.51.100.8'), compileTrust(['127.0.0.1']))).toBe(
      '198.51.100.8',
    );
  });

  it('should refuse an invalid trusted-proxy entry', () => {
    expect(() => compileTrust(['not-an-ip'])).toThrow();
  });
});

describe(clientKey.name, () => {
  it('should keep IPv4 and unwrap IPv4-mapped IPv6', () => {
    expect(clientKey('192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
  });

  it('should group IPv6 addresses by their /64', () => {
    expect(clientKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });
});

describe(networkKey.name, () => {
  it('should group IPv4 addresses by their /24, also when IPv4-mapped', () => {
    expect(networkKey('192.0.2.1')).toBe('192.0.2.0/24');
    expect(networkKey('192.0.2.254')).toBe('192.0.2.0/24');
    expect(networkKey('::ffff:192.0.2.9')).toBe('192.0.2.0/24');
    expect(networkKey('::ffff:c000:0209')).toBe('192.0.2.0/24');
    expect(networkKey('192.0.3.1')).toBe('192.0.3.0/24');
  });

  it('should group IPv6 addresses by their /48', () => {
    expect(networkKey('2001:db8:1:2::1')).toBe('2001:db8:1::/48');
    expect(networkKey('2001:db8:1:ffff:1:2:3:4')).toBe('2001:db8:1::/48');
    expect(networkKey('2001:db8:2::1')).toBe('2001:db8:2::/48');
  });

  it('should keep anything else as its own network', () => {
    expect(networkKey('not-an-ip')).toBe('other:not-an-ip');
  });
});

describe(wideNetworkKey.name, () => {
  it('should group IPv4 addresses by their /16, also when IPv4-mapped', () => {
    expect(wideNetworkKey('192.0.2.1')).toBe('192.0.0.0/16');
    expect(wideNetworkKey('192.0.255.254')).toBe('192.0.0.0/16');
    expect(wideNetworkKey('::ffff:192.0.7.9')).toBe('192.0.0.0/16');
    expect(wideNetworkKey('192.1.2.1')).toBe('192.1.0.0/16');
  });

  it('should group IPv6 addresses by their /32', () => {
    expect(wideNetworkKey('2001:db8:1:2::1')).toBe('2001:db8::/32');
    expect(wideNetworkKey('2001:db8:ffff::1')).toBe('2001:db8::/32');
    expect(wideNetworkKey('2001:db9::1')).toBe('2001:db9::/32');
  });

  it('should keep anything else as its own network', () => {
    expect(wideNetworkKey('not-an-ip')).toBe('other:not-an-ip');
  });
});
