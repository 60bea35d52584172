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
