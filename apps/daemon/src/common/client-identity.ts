import type { IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';

import proxyaddr from 'proxy-addr';

export type TrustFunction = (address: string, hop: number) => boolean;

// Throws on an entry that is not an IP or CIDR, so a typo in SVC_API_TRUSTED_PROXIES stops the boot.
export function compileTrust(trustedProxies: readonly string[]): TrustFunction {
  return proxyaddr.compile([...trustedProxies]);
}

export function clientAddress(req: IncomingMessage, trust: TrustFunction): string {
  return proxyaddr(req, trust);
}

function expandIPv6(address: string): number[] | null {
  let text = address.split('%')[0];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4 && isIPv4(v4[1])) {
    const o = v4[1].split('.').map(Number);
    const hex = `${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
    text = `${text.slice(0, -v4[1].length)}${hex}`;
  }
  const [head, rest] = text.split('::', 2);
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const headGroups = parse(head);
  const restGroups = rest === undefined ? [] : parse(rest);
  const missing = 8 - headGroups.length - restGroups.length;
  if (missing < 0 || (rest === undefined && missing !== 0)) return null;
  const groups = [...headGroups, ...new Array<number>(missing).fill(0), ...restGroups];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

type ParsedAddress = { v4: number[] } | { v6: number[] } | { other: string };

// IPv4-mapped IPv6 (::ffff:a.b.c.d) is IPv4.
function parseAddress(address: string): ParsedAddress {
  if (isIPv4(address)) return { v4: address.split('.').map(Number) };
  if (!isIPv6(address)) return { other: address };
  const groups = expandIPv6(address);
  if (!groups) return { other: address };
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return { v4: [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff] };
  return { v6: groups };
}

const v6Prefix = (groups: number[], count: number) =>
  groups
    .slice(0, count)
    .map((g) => g.toString(16))
    .join(':');

// IPv6 by its /64: one host holds a whole /64 and could otherwise mint a fresh budget per address.
export function clientKey(address: string): string {
  const parsed = parseAddress(address);
  if ('v4' in parsed) return parsed.v4.join('.');
  if ('v6' in parsed) return `${v6Prefix(parsed.v6, 4)}::/64`;
  return `other:${parsed.other}`;
}

// IPv4 /24 or IPv6 /48: the blocks one operator commonly holds.
export function networkKey(address: string): string {
  const parsed = parseAddress(address);
  if ('v4' in parsed) return `${parsed.v4.slice(0, 3).join('.')}.0/24`;
  if ('v6' in parsed) return `${v6Prefix(parsed.v6, 3)}::/48`;
  return `other:${parsed.other}`;
}

// IPv4 /16 or IPv6 /32 (a provider's allocation): several /24s of one operator share one limit.
export function wideNetworkKey(address: string): string {
  const parsed = parseAddress(address);
  if ('v4' in parsed) return `${parsed.v4.slice(0, 2).join('.')}.0.0/16`;
  if ('v6' in parsed) return `${v6Prefix(parsed.v6, 2)}::/32`;
  return `other:${parsed.other}`;
}
