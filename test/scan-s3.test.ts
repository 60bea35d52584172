// A scan into an s3:// store (s3rver on 127.0.0.1): the same records as a directory store, a
// re-run that writes nothing, and a concurrent writer detected, never silently overwritten.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from './helpers/cli-in-process.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';
import { utc, WorkRepo } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';
import { S3StoreWriter } from '../src/store/s3-writer.ts';
import { startGitea } from '../scripts/lib/forge-peers/gitea.ts';
import { StoreConflictError } from '../src/store/writer.ts';

describe('scan into S3', () => {
  const root = tempDir('badgepress-scan-s3-');
  let peer: S3Peer;
  let repos: string;
  const args = (store: string, asOf: string) => [
    'scan',
    '--repos',
    repos,
    '--store',
    store,
    '--as-of',
    asOf,
    '--s3-endpoint',
    peer.endpoint,
    '--s3-path-style',
    '--json',
  ];

  beforeAll(async () => {
    peer = await startS3Peer(['scans']);
    const work = WorkRepo.init(join(root, 'w'));
    work.commit({ at: utc(2026, 5, 1), files: { 'SECURITY.md': 'x' } });
    work.bareClone(join(root, 'w.git'));
    repos = join(root, 'repos.txt');
    writeFileSync(repos, `https://example.org/acme/widget mirror=${join(root, 'w.git')}\n`);
  });
  afterAll(() => peer?.stop());

  it('writes the same bytes a directory store gets, and a re-run writes nothing', async () => {
    const r = await runCommand(args('s3://scans/store/', '2026-11-01'), { env: peer.env });
    expect(JSON.parse(r.stdout)).toMatchObject({ measured: 1, records: 1, exitCode: 0 });
    const dir = await runCommand(args(join(root, 'dir-store'), '2026-11-01'));
    expect(JSON.parse(dir.stdout)).toMatchObject({ records: 1 });
    const objects = await peer.objects('scans', 'store/');
    // The lease is gone once the scan ends (the probe of conditional writes stays); the record
    // is where a directory store has it.
    expect([...objects.keys()].sort()).toEqual([
      '.badgepress/conditional-writes-probe',
      'example.org/acme/widget.ndjson',
    ]);
    const { readFileSync } = await import('node:fs');
    expect(objects.get('example.org/acme/widget.ndjson')!.body.toString()).toBe(
      readFileSync(join(root, 'dir-store/example.org/acme/widget.ndjson'), 'utf8'),
    );
    const again = await runCommand(args('s3://scans/store/', '2026-11-01'), { env: peer.env });
    expect(JSON.parse(again.stdout)).toMatchObject({ upToDate: 1, records: 0, exitCode: 0 });
    const later = await runCommand(args('s3://scans/store/', '2026-11-02'), { env: peer.env });
    expect(JSON.parse(later.stdout)).toMatchObject({ records: 1 });
    expect(
      (await peer.objects('scans', 'store/'))
        .get('example.org/acme/widget.ndjson')!
        .body.toString()
        .split('\n'),
    ).toHaveLength(3);
  });

  it('with a source, names what left it from the URLs the S3 store holds', async () => {
    const config = join(root, 'source.yaml');
    const scanWith = async (archived: boolean, more: string[]) => {
      const forge = await startGitea({
        owner: 'acme',
        catalogue: { web: 'https://example.org', repos: [{ path: 'acme/widget', archived }] },
      });
      try {
        writeFileSync(
          config,
          `hosts:\n  example.org: { kind: gitea, apiUrl: "${forge.url}", requestsPerSecond: 1000 }\n`,
        );
        const store = [
          '--store',
          's3://scans/sourced/',
          '--s3-endpoint',
          peer.endpoint,
          '--s3-path-style',
        ];
        const r = await runCommand(
          [
            'scan',
            '--config',
            config,
            '--source',
            'https://example.org/acme',
            ...more,
            ...store,
            '--forge',
            'never',
            '--json',
          ],
          {
            env: peer.env,
          },
        );
        expect(forge.violations).toEqual([]);
        return JSON.parse(r.stdout);
      } finally {
        await forge.close();
      }
    };
    // Listed by the source, read from the list's mirror.
    expect(await scanWith(false, ['--repos', repos, '--as-of', '2026-11-01'])).toMatchObject({
      measured: 1,
      exitCode: 0,
      sources: { repositories: 1, left: [] },
    });
    // Archived since: nothing to scan, and the store's URL is looked up.
    const later = await scanWith(true, ['--as-of', '2026-11-02']);
    expect(later).toMatchObject({ repositories: 0, exitCode: 0 });
    expect(later.sources).toEqual({
      repositories: 0,
      moved: [],
      left: [
        {
          url: 'https://example.org/acme/widget',
          why: 'archived (the source leaves archived ones out)',
        },
      ],
      requests: 2,
      // Gitea/Forgejo sends no ETag on its API: no listing page is asked conditionally.
      notModified: 0,
    });
  });

  it('a store that ignores conditional writes is refused unless the config accepts the risk', async () => {
    const raw = (store: string) => [
      'scan',
      '--repos',
      repos,
      '--store',
      store,
      '--as-of',
      '2026-11-01',
      '--s3-endpoint',
      peer.rawEndpoint,
      '--s3-path-style',
    ];
    const refused = await runCommand(raw('s3://scans/lax/'), { env: peer.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /s3:\/\/scans\/lax\/\.badgepress\/scan-lease\.json: the store ignores conditional writes .*scan lease cannot keep two scans .*s3\.conditionalWrites: unsupported-accept-risk/,
    );
    expect(
      [...(await peer.objects('scans', 'lax/')).keys()].filter(
        (k) => !k.startsWith('.badgepress/'),
      ),
    ).toEqual([]);
    const config = join(root, 'lax.yaml');
    writeFileSync(config, 's3:\n  conditionalWrites: unsupported-accept-risk\n');
    const accepted = await runCommand([...raw('s3://scans/lax/'), '--config', config], {
      env: peer.env,
    });
    expect(accepted.code).toBe(0);
    expect(accepted.stderr).toContain('ignores conditional writes');
    expect([...(await peer.objects('scans', 'lax/')).keys()]).toContain(
      'example.org/acme/widget.ndjson',
    );
  });

  it('a scan of another --shard n holding the store is seen through the listing: exit 5, nothing written', async () => {
    const now = Math.floor(Date.now() / 1000);
    const lease = JSON.stringify({
      host: 'elsewhere',
      pid: 4242,
      token: 'other',
      acquiredAt: now,
      expiresAt: now + 600,
    });
    await peer.client().send(
      new PutObjectCommand({
        Bucket: 'scans',
        Key: 'sharded/.badgepress/scan-lease-shard-1-of-3.json',
        Body: lease,
      }),
    );
    const r = await runCommand([...args('s3://scans/sharded/', '2026-11-01'), '--shard', '0/2'], {
      env: peer.env,
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(
      'another badgepress scan with --shard 1/3 (host elsewhere, pid 4242',
    );
    expect(
      [...(await peer.objects('scans', 'sharded/')).keys()].filter(
        (k) => !k.startsWith('.badgepress/'),
      ),
    ).toEqual([]);
    // Shard 0 of 3 is another shard of the same n: it writes.
    const same = await runCommand(
      [...args('s3://scans/sharded/', '2026-11-01'), '--shard', '0/3'],
      { env: peer.env },
    );
    expect(same.code, same.stderr).toBe(0);
  });

  it('s3rver ignores If-Match; a writer between our read and our write is detected all the same', async () => {
    const client = peer.client(peer.rawEndpoint);
    await client.send(new PutObjectCommand({ Bucket: 'scans', Key: 'probe', Body: 'one' }));
    // The probe: a PUT whose condition fails on S3 (412) is accepted by s3rver.
    const ignored = await client
      .send(
        new PutObjectCommand({
          Bucket: 'scans',
          Key: 'probe',
          Body: 'two',
          IfMatch: '"not-the-etag"',
        }),
      )
      .then(
        () => true,
        () => false,
      );
    expect(ignored).toBe(true);

    const writer = new S3StoreWriter(peer.client(peer.rawEndpoint), {
      bucket: 'scans',
      prefix: 'race/',
    });
    expect(await writer.storedTimes('a.ndjson', 'https://example.org/a')).toEqual(new Map());
    await client.send(
      new PutObjectCommand({ Bucket: 'scans', Key: 'race/a.ndjson', Body: '{"theirs":true}\n' }),
    );
    await expect(writer.append('a.ndjson', ['{"ours":true}\n'])).rejects.toBeInstanceOf(
      StoreConflictError,
    );
    const body = (await peer.objects('scans', 'race/')).get('a.ndjson')!.body.toString();
    expect(body).toBe('{"theirs":true}\n');
    await writer.close();
  });
});
