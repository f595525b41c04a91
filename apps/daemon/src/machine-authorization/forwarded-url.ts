// The /v1/... part of a hosted path from the raw URL, or null. Dot segments (even encoded) and backslashes are
// refused, not normalised: the inner request's parser would resolve `/v1/../../api/...` out of /v1. The slug is not
// re-derived from the decoded parameter: an encoded slug would forward the whole URL to the forward again.
const FORWARDED = /^\/api\/orgs\/[^/?#]+(\/v1\/[^?#]*)(\?[^#]*)?$/s;

export function forwardedUrl(rawUrl: string): string | null {
  const match = FORWARDED.exec(rawUrl);
  if (!match) return null;
  const [, path, query = ''] = match;
  // URL parsers also drop tabs and newlines (`.<TAB>.` is `..` to them): no control character or space passes.
  // eslint-disable-next-line no-control-regex
  if (path.includes('\\') || /[\u0000-\u0020\u007f]/.test(path)) return null;
  for (const segment of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      decoded = segment;
    }
    if (decoded.split(/[/\\]/).some((part) => part === '.' || part === '..')) return null;
  }
  // What the inner request's parser (WHATWG URL, as light-my-request uses) makes of it must still be under /v1/.
  if (!new URL(path, 'http://forward.invalid').pathname.startsWith('/v1/')) return null;
  return `${path}${query}`;
}
