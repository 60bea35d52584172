// Addresses the config writes into every report (baseUrl, tool.informationUri) must be URIs a
// SARIF consumer accepts (`format: uri`) and HTML cannot be broken out of: absolute http(s),
// a real host, and only the characters RFC 3986 allows, each `%` a complete escape.

const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;

/** What is wrong with `value` as an absolute http(s) URL, or undefined. */
export function httpUrlProblem(value: string, opts: { queryAllowed: boolean }): string | undefined {
  const advice = opts.queryAllowed
    ? 'e.g. https://example.org/about'
    : 'without query or fragment, e.g. https://badges.example.org';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be an absolute http(s) URL, ${advice}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `must be an absolute http(s) URL, ${advice}`;
  if (!/^https?:\/\/[^/?#]/i.test(value))
    return `must be an absolute http(s) URL with a host, ${advice}`;
  if (!URI_CHARACTERS.test(value))
    return `holds characters a URI may not (spaces, quotes, <, >, …); percent-encode them, ${advice}`;
  if (url.username || url.password) return 'must not hold credentials (user:password@)';
  if (!opts.queryAllowed && (url.search || url.hash || /[?#]/.test(value)))
    return `must be an http(s) URL ${advice}`;
  return undefined;
}
