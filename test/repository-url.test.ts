import { describe, expect, it } from 'vitest';
import { canonicalRepositoryUrl } from '../src/model/repository-url.ts';
import { sarifErrors } from './helpers/sarif.ts';

describe('canonical repository URL', () => {
  it.each([
    ['https://github.com/acme/widget', 'https://github.com/acme/widget', 'https%3A%2F%2Fgithub.com%2Facme%2Fwidget'],
    ['HTTPS://GitHub.COM/Acme/Widget', 'https://github.com/Acme/Widget', 'https%3A%2F%2Fgithub.com%2FAcme%2FWidget'],
    ['https://git.example.org:8443/a/b', 'https://git.example.org:8443/a/b', 'https%3A%2F%2Fgit.example.org%3A8443%2Fa%2Fb'],
    ['https://h.org/a b+c%20/γ.git/', 'https://h.org/a b+c%20/γ.git/', 'https%3A%2F%2Fh.org%2Fa%20b%2Bc%2520%2F%CE%B3.git%2F'],
  ])('%s', (input, url, encoded) => {
    expect(canonicalRepositoryUrl(input)).toEqual({ ok: true, url, encoded });
    expect(decodeURIComponent(encoded)).toBe(url);
  });

  it.each(['', 'github.com/a/b', 'https://github.com', 'https://github.com/', 'https:///a/b', 'https://exa mple.org/a', 'https://h.org/a\nb', 'https://h.org/a\u0000', 'https://h.org/\ud800', 42, null])(
    'refuses %j',
    (input) => {
      expect(canonicalRepositoryUrl(input).ok).toBe(false);
    },
  );

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
    expect(sarifErrors({ version: '2.1.0', runs: [{ tool: { driver: { name: 'x', informationUri: 'not a uri' } } }] }).length).toBeGreaterThan(0);
  });
});
