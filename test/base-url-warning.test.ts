// A site bound for a bucket elsewhere with baseUrl left at this machine's address (the
// packaged default, http://127.0.0.1:8787) would point every badge URL, snippet and feed at
// localhost, silently: the build says so once, naming baseUrl.
import { describe, expect, it } from 'vitest';
import type { Settings } from '../src/config/types.ts';
import { localBaseUrlWarning } from '../src/commands/setup.ts';
import { runCli } from './helpers/cli.ts';

const settings = (out: string, baseUrl: string, endpoint?: string) =>
  ({ out, baseUrl, s3: endpoint ? { endpoint } : {} }) as unknown as Settings;

describe('baseUrl left at this machine', () => {
  it('is named when the output is a bucket on another machine, and only then', () => {
    expect(localBaseUrlWarning(settings('s3://badges/site', 'http://127.0.0.1:8787'), {})).toMatch(
      /^warning: baseUrl is http:\/\/127\.0\.0\.1:8787, an address of this machine, but the site goes to s3:\/\/badges\/site: /,
    );
    expect(
      localBaseUrlWarning(settings('s3://badges/site', 'http://localhost:8080'), {
        AWS_ENDPOINT_URL_S3: 'https://acct.r2.cloudflarestorage.com',
      }),
    ).toContain('baseUrl is http://localhost:8080');
    expect(
      localBaseUrlWarning(
        settings('s3://badges/site', 'http://[::1]:8787', 'https://s3.eu-central-1.amazonaws.com'),
        {},
      ),
    ).toContain('baseUrl is http://[::1]:8787');
    // A public address, a directory, or a bucket on this machine (MinIO, a test server): nothing to say.
    expect(
      localBaseUrlWarning(settings('s3://badges/site', 'https://badges.example.org'), {}),
    ).toBeUndefined();
    expect(localBaseUrlWarning(settings('/srv/site', 'http://127.0.0.1:8787'), {})).toBeUndefined();
    expect(
      localBaseUrlWarning(
        settings('s3://badges/site', 'http://127.0.0.1:8787', 'http://127.0.0.1:9000'),
        {},
      ),
    ).toBeUndefined();
    expect(
      localBaseUrlWarning(settings('s3://badges/site', 'http://127.0.0.1:8787'), {
        AWS_ENDPOINT_URL: 'http://localhost:9000',
      }),
    ).toBeUndefined();
  });

  it('is said once on stderr by a build to such a bucket, before anything is sent', () => {
    // An endpoint that refuses at once: the build then fails (exit 4), after the warning.
    const r = runCli(['build', '--out', 's3://badges/site', '--s3-endpoint', 'http://0.0.0.0:9'], {
      env: {
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_REGION: 'us-east-1',
        NODE_NO_WARNINGS: '1',
      },
    });
    expect(r.stderr.match(/warning: baseUrl is/g)).toHaveLength(1);
    expect(r.stderr.split('\n')[0]).toBe(
      'badgepress: warning: baseUrl is http://127.0.0.1:8787, an address of this machine, but the site goes to s3://badges/site: every badge URL, embed snippet and feed link in it will point here. Set baseUrl in the config (or --base-url) to the address the site is served at',
    );
    expect(r.code).toBe(4);
  });
});
