import { describe, expect, it } from 'vitest';
import { canonicalRepositoryUrl, schemeProblem } from '../src/model/repository-url.ts';
import { sarifErrors } from './helpers/sarif.ts';

describe('canonical repository URL', () => {
  it.each([
    [
      'https://github.com/acme/widget',
      'https://github.com/acme/widget',
      'https%3A%2F%2Fgithub.com%2Facme%2Fwidget',
    ],
    [
      'HTTPS://GitHub.COM/Acme/Widget',
      'https://github.com/Acme/Widget',
      'https%3A%2F%2Fgithub.com%2FAcme%2FWidget',
    ],
    [
      'https://git.example.org:8443/a/b',
      'https://git.example.org:8443/a/b',
      'https%3A%2F%2Fgit.example.org%3A8443%2Fa%2Fb',
    ],
    [
      'https://h.org/a b+c%20/γ.git/',
      'https://h.org/a b+c%20/γ.git/',
      'https%3A%2F%2Fh.org%2Fa%20b%2Bc%2520%2F%CE%B3.git%2F',
    ],
  ])('%s', (input, url, encoded) => {
    expect(canonicalRepositoryUrl(input)).toEqual({ ok: true, url, encoded });
    expect(decodeURIComponent(encoded)).toBe(url);
  });

  it.each([
    '',
    'github.com/a/b',
    'https://github.com',
    'https://github.com/',
    'https:///a/b',
    'https://exa mple.org/a',
    'https://h.org/a\nb',
    'https://h.org/a\u0000',
    'https://h.org/\ud800',
    42,
    null,
  ])('refuses %j', (input) => {
    expect(canonicalRepositoryUrl(input).ok).toBe(false);
  });

  it('writes hosts in ASCII: bücher, BÜCHER and xn--bcher-kva are one repository', () => {
    const one = 'https://xn--bcher-kva.example/Acme/Books';
    for (const spelling of [
      'https://bücher.example/Acme/Books',
      'HTTPS://BÜCHER.EXAMPLE/Acme/Books',
      'https://XN--BCHER-KVA.example/Acme/Books',
      'https://bücher。example/Acme/Books',
    ]) {
      expect(canonicalRepositoryUrl(spelling), spelling).toMatchObject({ ok: true, url: one });
    }
    expect(canonicalRepositoryUrl('https://[2001:DB8::1]:8443/a/b')).toMatchObject({
      ok: true,
      url: 'https://[2001:db8::1]:8443/a/b',
    });
  });

  it.each([
    ['https://user:pass@github.com/acme/widget', 'userinfo', /credentials/],
    ['https://ghp_token@github.com/acme/widget', 'userinfo', /credentials/],
    ['https://[::1/x', 'host', /malformed host "\[::1"/],
    ['https://exa<mple.org/a', 'host', /malformed host/],
    ['https://h%41.org/a', 'host', /malformed host/],
    ['https://h.org:/a', 'host', /malformed host/],
    ['https://h.org:80x/a', 'host', /malformed host/],
  ])('refuses %s (%s)', (input, problem, reason) => {
    expect(canonicalRepositoryUrl(input)).toMatchObject({
      ok: false,
      problem,
      reason: expect.stringMatching(reason),
    });
  });

  it('schemes: http and https by default; the site may name others', () => {
    expect(schemeProblem('https://h.org/a', ['http', 'https'])).toBeUndefined();
    expect(schemeProblem('javascript://h.org/a', ['http', 'https'])).toBe(
      'repositoryUrl uses the scheme "javascript", which this site does not accept; accepted: http, https (repositoryUrlSchemes: in the site config)',
    );
    expect(schemeProblem('git+ssh://h.org/a', ['https', 'git+ssh'])).toBeUndefined();
  });

  it('refuses an encoding longer than one path segment', () => {
    const r = canonicalRepositoryUrl(`https://h.org/${'x'.repeat(240)}`);
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/more than the 255/) });
    expect(canonicalRepositoryUrl(`https://h.org/${'x'.repeat(200)}`).ok).toBe(true);
  });
});

describe('the SARIF validator used by the tests', () => {
  it('rejects a report that breaks the schema', () => {
    expect(sarifErrors({ version: '2.1.0', runs: [{}] }).length).toBeGreaterThan(0);
    expect(sarifErrors({ version: '2.0.0', runs: [] }).length).toBeGreaterThan(0);
    expect(
      sarifErrors({
        version: '2.1.0',
        runs: [{ tool: { driver: { name: 'x', informationUri: 'not a uri' } } }],
      }).length,
    ).toBeGreaterThan(0);
  });
});
