// `s3://bucket/prefix` as used by --store and --out.

export interface S3Location {
  bucket: string;
  /** "" or a prefix ending in "/". */
  prefix: string;
}

export function parseS3Location(text: string): S3Location | undefined {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(text);
  if (!m) return undefined;
  const raw = (m[2] ?? '').replace(/^\/+/, '');
  return { bucket: m[1]!, prefix: raw === '' || raw.endsWith('/') ? raw : `${raw}/` };
}

export function showS3(loc: S3Location, key = ''): string {
  return `s3://${loc.bucket}/${loc.prefix}${key}`;
}

// A scheme of two or more letters followed by "/": one letter would be a Windows drive (C:/).
const URL_LIKE = /^([a-z][a-z0-9+.-]+):\/+(.*)$/is;

/**
 * What is wrong with a --store/--out location, or undefined when it is a valid s3:// URL or
 * a plain path. Anything that looks like a URL but is not exactly `s3://bucket/prefix` is
 * refused, `S3://` and `s3:/` included: taken as a path it would quietly become a local
 * directory named "s3:".
 */
export function locationProblem(text: string): string | undefined {
  if (text.startsWith('s3://')) {
    return parseS3Location(text)
      ? undefined
      : 'expected s3://bucket/prefix with a valid bucket name (3 to 63 lower-case letters, digits, dots and hyphens)';
  }
  const m = URL_LIKE.exec(text);
  if (!m) return undefined;
  const [, scheme, rest] = m as unknown as [string, string, string];
  const asDirectory = `; for a local directory of that name write ./${text}`;
  if (scheme.toLowerCase() === 's3')
    return `write the scheme exactly as s3:// (lower case, two slashes): s3://${rest}${asDirectory}`;
  return `${scheme}:// is not a location badgepress writes to or reads from: use s3://bucket/prefix or a directory${asDirectory}`;
}

/** Whether a store or output location is in S3 (`s3://bucket/prefix`) rather than a path. */
export function isS3(location: string): boolean {
  return location.startsWith('s3://');
}
