// Where a build reads and writes: a directory or an S3 location, for the store and the output.
// The AWS SDK is loaded only when a location is in S3: a directory build stays lean.
import { statSync } from 'node:fs';
import type { Settings } from '../config/types.ts';
import { UsageError } from '../errors.ts';
import { DirectoryStore, type StoreSource } from '../load/store.ts';
import { DirectorySink } from '../publish/dir-sink.ts';
import type { Sink } from '../publish/sink.ts';
import { isS3, parseS3Location, type S3Location } from '../s3/location.ts';

function s3Location(flag: string, location: string): S3Location {
  const loc = parseS3Location(location);
  if (!loc)
    throw new UsageError(
      `--${flag} ${JSON.stringify(location)}: expected s3://bucket/prefix with a valid bucket name`,
    );
  return loc;
}

export async function openStore(location: string, settings: Settings): Promise<StoreSource> {
  if (!isS3(location)) {
    // A store that is not there is a wrong argument (exit 2), not a store that failed (4).
    if (!isDirectory(location)) {
      throw new UsageError(
        `store ${location}: no such directory; give the directory of stored values with --store or store: in the config`,
      );
    }
    return new DirectoryStore(location);
  }
  const loc = s3Location('store', location);
  const [{ S3Store }, { s3Client }] = await Promise.all([
    import('../load/s3-store.ts'),
    import('../s3/client.ts'),
  ]);
  return new S3Store(s3Client(settings.s3), loc);
}

export async function openSink(location: string, settings: Settings): Promise<Sink> {
  if (!isS3(location)) return new DirectorySink(location);
  const loc = s3Location('out', location);
  const [{ S3Sink }, { s3Client }] = await Promise.all([
    import('../publish/s3-sink.ts'),
    import('../s3/client.ts'),
  ]);
  return new S3Sink(s3Client(settings.s3), loc);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
