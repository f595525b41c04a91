// The hosted forward's target: the part of /api/orgs/<slug>/v1/... from /v1/ on (with its query), taken from the raw
// request URL, or null when it could reach anything but a /v1 route. A dot segment (`.` or `..`, percent-encoded or
// not, or inside a segment that decodes to several) or a backslash (which URL parsers read as a slash) would be
// normalised away by the inner request's URL parser, so `/v1/../../api/...` would leave /v1: such paths are refused,
// not normalised (no client sends them). The slug is not re-derived from the decoded parameter: an encoded slug
// (`defaul%74`) would not match it and the whole URL would be forwarded to the forward again.
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
