import type { AppConfig } from '../config/app-config';

export type OidcSettings =
  | { state: 'off' }
  | { state: 'misconfigured'; problem: string }
  | {
      state: 'configured';
      issuer: URL;
      clientId: string;
      clientSecret: string;
      allowedDomains: string[];
      label: string;
    };

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

// Issuer, client id and secret all set, issuer https (http only on loopback); anything in between is misconfigured.
export function oidcSettings(config: Pick<AppConfig, 'oidc'>): OidcSettings {
  const { issuer, clientId, clientSecret, allowedDomains } = config.oidc;
  if (!issuer && !clientId && !clientSecret) return { state: 'off' };
  const missing = [
    issuer ? null : 'SVC_OIDC_ISSUER',
    clientId ? null : 'SVC_OIDC_CLIENT_ID',
    clientSecret ? null : 'SVC_OIDC_CLIENT_SECRET',
  ].filter((v): v is string => v !== null);
  if (missing.length > 0) {
    return {
      state: 'misconfigured',
      problem: `company sign-in is partly configured: set ${missing.join(', ')} as well (or unset all three), then restart`,
    };
  }
  let url: URL;
  try {
    url = new URL(issuer!);
  } catch {
    return { state: 'misconfigured', problem: 'SVC_OIDC_ISSUER is not a URL; set the issuer URL, then restart' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    return { state: 'misconfigured', problem: 'SVC_OIDC_ISSUER must be an https URL; fix it, then restart' };
  }
  return {
    state: 'configured',
    issuer: url,
    clientId: clientId!,
    clientSecret: clientSecret!,
    allowedDomains,
    label: url.host,
  };
}
