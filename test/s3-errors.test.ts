// S3 settings and failures that need no S3 peer, or a broken one: the region from the AWS
// chain, an endpoint that accepts connections and never answers, locations that look like
// URLs but are not s3://bucket/prefix, and when an upload's ETag can be checked at all.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/config/load.ts';
import { s3Client } from '../src/s3/client.ts';
import { etagIsMd5 } from '../src/s3/errors.ts';
import { locationProblem } from '../src/s3/location.ts';
import { ROOT, spawnChecked } from './helpers/cli.ts';
import { runCliAsync } from './helpers/cli-async.ts';
import { configProblems } from './helpers/config.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const settings = {
  concurrency: 4,
  maxAttempts: 1,
  connectTimeoutSeconds: 10,
  requestTimeoutSeconds: 60,
};
const STORE = join(ROOT, 'examples/store');

describe('region: the settings, else the AWS chain (profile included), else us-east-1', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of [
      'AWS_REGION',
      'AWS_DEFAULT_REGION',
      'AWS_PROFILE',
      'AWS_CONFIG_FILE',
      'AWS_SHARED_CREDENTIALS_FILE',
      'HOME',
    ]) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });
  let n = 0;
  /** A fresh HOME with ~/.aws/config as given, and no region in the environment. */
  function home(awsConfig: string | undefined, env: Record<string, string> = {}): void {
    const h = join(dir, `home-${++n}`);
    mkdirSync(join(h, '.aws'), { recursive: true });
    if (awsConfig !== undefined) writeFileSync(join(h, '.aws', 'config'), awsConfig);
    for (const k of [
      'AWS_REGION',
      'AWS_DEFAULT_REGION',
      'AWS_PROFILE',
      'AWS_CONFIG_FILE',
      'AWS_SHARED_CREDENTIALS_FILE',
    ])
      delete process.env[k];
    Object.assign(process.env, {
      HOME: h,
      AWS_CONFIG_FILE: join(h, '.aws', 'config'),
      AWS_SHARED_CREDENTIALS_FILE: join(h, '.aws', 'credentials'),
      ...env,
    });
  }
  const region = async (s: Partial<typeof settings> & { region?: string } = {}) => {
    const client = s3Client({ ...settings, ...s });
    try {
      return await client.config.region();
    } finally {
      client.destroy();
    }
  };

  it("a profile's region in ~/.aws/config is used (AWS_PROFILE, and the default profile)", async () => {
    home('[default]\nregion = ap-south-2\n[profile work]\nregion = eu-west-3\n', {
      AWS_PROFILE: 'work',
    });
    expect(await region()).toBe('eu-west-3');
    home('[default]\nregion = ap-south-2\n');
    expect(await region()).toBe('ap-south-2');
  });

  it('AWS_REGION beats the profile; s3.region beats both', async () => {
    home('[default]\nregion = ap-south-2\n', { AWS_REGION: 'sa-east-1' });
    expect(await region()).toBe('sa-east-1');
    expect(await region({ region: 'eu-north-1' })).toBe('eu-north-1');
  });

  it('nothing anywhere: AWS_DEFAULT_REGION (as the AWS CLI reads), else us-east-1', async () => {
    home(undefined);
    expect(await region()).toBe('us-east-1');
    home(undefined, { AWS_DEFAULT_REGION: 'ca-central-1' });
    expect(await region()).toBe('ca-central-1');
  });
});

describe('an endpoint that accepts connections and never answers', () => {
  let server: Server;
  const sockets = new Set<Socket>();
  let accepted = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      accepted++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((ok) => server.close(ok));
  });

  it('gives up after s3.requestTimeoutSeconds, says so, and exits 4', async () => {
    const port = (server.address() as AddressInfo).port;
    const config = join(dir, 'stalled.yaml');
    writeFileSync(
      config,
      `store: ${STORE}\nout: s3://stalled/site\ns3:\n  endpoint: http://127.0.0.1:${port}\n  pathStyle: true\n  maxAttempts: 2\n  connectTimeoutSeconds: 2\n  requestTimeoutSeconds: 0.5\n`,
    );
    const r = await runCliAsync(['build', '--config', config], {
      env: { AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'us-east-1' },
    });
    expect(r.stderr).toMatch(
      /^badgepress: --out s3:\/\/stalled\/site\/: cannot (list the bucket|(read|write) the build lease \S+) \(TimeoutError: .+; the endpoint did not answer in time \(s3\.connectTimeoutSeconds \/ s3\.requestTimeoutSeconds in the config\)\); check the bucket name, credentials and --s3-endpoint$/m,
    );
    expect(r.code).toBe(4);
    expect(accepted).toBe(2); // one per attempt: it was asked, and asked again
  });

  it('the timeouts are validated like every setting', async () => {
    const problemsOf = configProblems(dir, (file) => loadSettings(file));
    const { file, problems } = await problemsOf(
      's3:\n  connectTimeoutSeconds: 0\n  requestTimeoutSeconds: "60"\n',
    );
    expect(problems).toEqual([
      `${file}:2 s3.connectTimeoutSeconds: must be > 0`,
      `${file}:3 s3.requestTimeoutSeconds: must be number`,
    ]);
  });
});

describe('an endpoint that resets every connection', () => {
  let server: Server;
  beforeAll(async () => {
    // Reads the request, then resets the connection, as a store that restarts mid-request does.
    server = createServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  });
  afterAll(() => new Promise((ok) => server.close(ok)));

  it('says the connection was closed, not that the endpoint was slow, and exits 4', async () => {
    const port = (server.address() as AddressInfo).port;
    const config = join(dir, 'resetting.yaml');
    writeFileSync(
      config,
      `store: ${STORE}\nout: s3://resetting/site\ns3:\n  endpoint: http://127.0.0.1:${port}\n  pathStyle: true\n  maxAttempts: 2\n`,
    );
    const r = await runCliAsync(['build', '--config', config], {
      env: { AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'us-east-1' },
    });
    expect(r.stderr).toMatch(
      /cannot (list the bucket|(read|write) the build lease \S+) \(\w+: .*(ECONNRESET|socket hang up).*; the endpoint closed the connection/,
    );
    expect(r.stderr).not.toMatch(/did not answer in time/);
    expect(r.code).toBe(4);
  });
});

describe('locations that look like URLs must be exactly s3://bucket/prefix', () => {
  it.each([
    [
      's3:/badges/x',
      'write the scheme exactly as s3:// (lower case, two slashes): s3://badges/x; for a local directory of that name write ./s3:/badges/x',
    ],
    [
      'S3://badges/x',
      'write the scheme exactly as s3:// (lower case, two slashes): s3://badges/x; for a local directory of that name write ./S3://badges/x',
    ],
    ['s3:badges/x', undefined], // no slash after the colon: a plain (if odd) relative path
    [
      'https://example.org/site',
      'https:// is not a location badgepress writes to or reads from: use s3://bucket/prefix or a directory; for a local directory of that name write ./https://example.org/site',
    ],
    [
      'gs://bucket/x',
      'gs:// is not a location badgepress writes to or reads from: use s3://bucket/prefix or a directory; for a local directory of that name write ./gs://bucket/x',
    ],
    [
      's3://Bad_Bucket/x',
      'expected s3://bucket/prefix with a valid bucket name (3 to 63 lower-case letters, digits, dots and hyphens)',
    ],
    [
      's3:///x',
      'expected s3://bucket/prefix with a valid bucket name (3 to 63 lower-case letters, digits, dots and hyphens)',
    ],
    ['s3://badges/x', undefined],
    ['./s3:/badges/x', undefined],
    ['dist', undefined],
    ['/srv/site', undefined],
    ['C:/site', undefined], // a Windows drive, not a scheme
  ])('%s', (text, problem) => {
    expect(locationProblem(text)).toBe(problem);
  });

  it('--out and --store name the flag; store:/out: in the config name file:line', async () => {
    await expect(
      loadSettings(undefined, { store: STORE, out: 's3:/badges/x' }),
    ).rejects.toMatchObject({
      problems: [
        '--out "s3:/badges/x": write the scheme exactly as s3:// (lower case, two slashes): s3://badges/x; for a local directory of that name write ./s3:/badges/x',
      ],
    });
    await expect(loadSettings(undefined, { store: 'S3://scans/values' })).rejects.toMatchObject({
      problems: [
        expect.stringMatching(
          /^--store "S3:\/\/scans\/values": write the scheme exactly as s3:\/\//,
        ),
      ],
    });
    const problemsOf = configProblems(dir, (file) => loadSettings(file));
    const { file, problems } = await problemsOf(
      'shape: A\nstore: https://example.org/values\nout: S3://badges/site\n',
    );
    expect(problems).toEqual([
      `${file}:2 store: "https://example.org/values": https:// is not a location badgepress writes to or reads from: use s3://bucket/prefix or a directory; for a local directory of that name write ./https://example.org/values`,
      `${file}:3 out: "S3://badges/site": write the scheme exactly as s3:// (lower case, two slashes): s3://badges/site; for a local directory of that name write ./S3://badges/site`,
    ]);
  });

  it('the CLI refuses with exit 2 and writes nothing (no ./s3: directory appears)', () => {
    const cwd = join(dir, 'cwd');
    mkdirSync(cwd);
    for (const out of ['s3:/badges/x', 'S3://badges/x']) {
      // bin/badgepress.js, as installed: `--import tsx` would not resolve outside the checkout.
      const r = spawnChecked(
        process.execPath,
        [join(ROOT, 'bin/badgepress.js'), 'build', '--store', STORE, '--out', out],
        {
          cwd,
          env: { ...process.env, CI: 'true' },
        },
      );
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--out ${JSON.stringify(out)}: write the scheme exactly as s3://`);
    }
    expect(readdirSync(cwd)).toEqual([]);
    expect(existsSync(join(cwd, 's3:'))).toBe(false);
  });
});

describe('whether an upload answer carries an MD5 ETag', () => {
  it.each([
    [{ ETag: '"x"' }, true],
    [{ ETag: '"x"', ServerSideEncryption: 'AES256' }, true],
    [{ ETag: '"x"', ServerSideEncryption: 'aws:kms' }, false],
    [{ ETag: '"x"', ServerSideEncryption: 'aws:kms:dsse' }, false],
    [{ ETag: '"x"', SSECustomerAlgorithm: 'AES256' }, false],
  ])('%j → %s', (answer, expected) => {
    expect(etagIsMd5(answer)).toBe(expected);
  });
});
