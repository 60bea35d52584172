// Opens the build state beside an output (directory or S3) for `build` and `plan`.
import type { ResolvedConfig } from '../config/resolve.ts';
import type { Settings } from '../config/types.ts';
import type { StoreSource } from '../load/store.ts';
import { isS3, parseS3Location } from '../s3/location.ts';
import { codeFingerprint } from './fingerprint.ts';
import { configParts } from './parts.ts';
import { IncrementalBuild } from './incremental.ts';
import { DirectoryStateKeeper, type StateKeeper } from './state-keeper.ts';
import type { ShardKey } from './state-types.ts';

export async function openStateKeeper(out: string, settings: Settings): Promise<StateKeeper> {
  if (!isS3(out)) return new DirectoryStateKeeper(out);
  const loc = parseS3Location(out)!;
  const [{ S3StateKeeper }, { s3Client }] = await Promise.all([
    import('./s3-state.ts'),
    import('../s3/client.ts'),
  ]);
  return new S3StateKeeper(s3Client(settings.s3), loc);
}

export async function openIncremental(opts: {
  config: ResolvedConfig;
  store: StoreSource;
  state: StateKeeper;
  shard: ShardKey | undefined;
  now: number;
  prune: boolean;
  force: boolean;
  warn?: (message: string) => void;
  readOnly?: boolean;
}): Promise<IncrementalBuild> {
  const { config, ...rest } = opts;
  return IncrementalBuild.open({
    ...rest,
    settings: config.settings,
    shard: opts.shard ?? { index: 0, count: 1 },
    code: await codeFingerprint(),
    config: configParts(config),
  });
}
