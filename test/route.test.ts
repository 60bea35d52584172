// src/resolver/route.ts: which file a request names, or the status and words of why it names
// none. Pure, so tested in-process; the adapters' conformance tests run it through each runtime.
import { describe, expect, it } from 'vitest';
import { canonicalSegment, route, safe } from '../src/resolver/route.ts';

const ENC = 'https%3A%2F%2Fgithub.com%2Facme%2Fwidget';
const P = `/api/v1/repositories/${ENC}`;
const ok = (path: string, query = '', method = 'GET') => {
  const r = route(method, path, query);
  if (!r.ok) throw new Error(`${path}?${query}: ${r.status} ${r.detail}`);
  return r.target;
};

describe('route: the file a request names', () => {
  it('maps each file name to its resource', () => {
    expect(ok(`${P}/badges/MAINT.svg`)).toEqual({
      encoded: ENC,
      resource: { kind: 'svg', badgeId: 'MAINT' },
    });
    expect(ok(`${P}/badges/MAINT`).resource).toEqual({ kind: 'explanation', badgeId: 'MAINT' });
    expect(ok(`${P}/badges/MAINT.json`).resource).toEqual({ kind: 'shields', badgeId: 'MAINT' });
    expect(ok(`${P}/badges/MAINT.for-the-badge.svg`).resource).toEqual({
      kind: 'styled',
      badgeId: 'MAINT',
      style: 'for-the-badge',
    });
    expect(ok(`${P}/sarif`).resource).toEqual({ kind: 'sarif' });
    expect(ok(`${P}/code-scanning.sarif`).resource).toEqual({ kind: 'code-scanning' });
    expect(ok(`${P}/index.json`).resource).toEqual({ kind: 'index' });
    expect(ok(`${P}/sarif`, '', 'HEAD').resource).toEqual({ kind: 'sarif' });
  });

  it('accepts the repository decoded, with "//" merged, or in upper case, as the one canonical segment', () => {
    expect(ok('/api/v1/repositories/https://github.com/acme/widget/sarif').encoded).toBe(ENC);
    expect(ok('/api/v1/repositories/https:/github.com/acme/widget/sarif').encoded).toBe(ENC);
    expect(ok('/api/v1/repositories/HTTPS%3A%2F%2FGitHub.COM%2Facme%2Fwidget/sarif').encoded).toBe(
      ENC,
    );
    // The path keeps its case: only scheme and host are case-free.
    expect(canonicalSegment('https%3A%2F%2Fgithub.com%2FAcme%2Fwidget')).toEqual({
      ok: true,
      encoded: 'https%3A%2F%2Fgithub.com%2FAcme%2Fwidget',
    });
  });

  it('reads /at/<ts>/ and /at/<ts>/expired/ as a per-time file, and ?timestamp= as a time to look up', () => {
    expect(ok(`${P}/at/1763000000/badges/MAINT.svg`).at).toEqual({
      timestamp: 1763000000,
      expired: false,
    });
    expect(ok(`${P}/at/1763000000/expired/sarif`)).toEqual({
      encoded: ENC,
      resource: { kind: 'sarif' },
      at: { timestamp: 1763000000, expired: true },
    });
    expect(ok(`${P}/badges/MAINT.svg`, 'timestamp=1763000000').timestamp).toBe(1763000000);
    // Form decoding, as URLSearchParams reads it: %31%37 is "17".
    expect(ok(`${P}/sarif`, '?timestamp=%31%37').timestamp).toBe(17);
    // The index answers every time: a timestamp is not kept for it.
    expect(ok(`${P}/index.json`, 'timestamp=1763000000')).toEqual({
      encoded: ENC,
      resource: { kind: 'index' },
    });
  });

  it('maps ?style= on an SVG badge to the styled file; flat is the plain SVG; other files ignore it', () => {
    expect(ok(`${P}/badges/MAINT.svg`, 'style=plastic').resource).toEqual({
      kind: 'styled',
      badgeId: 'MAINT',
      style: 'plastic',
    });
    expect(ok(`${P}/badges/MAINT.svg`, 'style=flat').resource).toEqual({
      kind: 'svg',
      badgeId: 'MAINT',
    });
    expect(ok(`${P}/sarif`, 'style=nonsense').resource).toEqual({ kind: 'sarif' });
  });
});

describe('route: why a request names no file', () => {
  const no = (path: string, query = '', method = 'GET') => route(method, path, query);

  it('405 for other methods, 404 outside the API or for a bad badge id', () => {
    expect(no(`${P}/sarif`, '', 'POST')).toEqual({
      ok: false,
      status: 405,
      detail: 'POST: use GET or HEAD',
    });
    expect(no('/other/sarif')).toEqual({ ok: false, status: 404, detail: 'no such resource' });
    expect(no(`${P}/badges.svg`)).toEqual({ ok: false, status: 404, detail: 'no such resource' });
    expect(no(`${P}/badges/-x.svg`)).toEqual({
      ok: false,
      status: 404,
      detail: 'unknown badge id "-x"',
    });
  });

  it('400 for a repository segment that is no URL, naming the badge the request was for', () => {
    const shape = 'the repository segment must be an encoded <scheme>://<host>/<path> URL';
    expect(no('/api/v1/repositories/not-a-url/badges/MAINT.svg')).toEqual({
      ok: false,
      status: 400,
      detail: shape,
      badgeId: 'MAINT',
    });
    expect(no('/api/v1/repositories/https%3A%2F%2Fgithub.com%2Fa%E0%A4%A/sarif')).toEqual({
      ok: false,
      status: 400,
      detail: `${shape} (bad %-escape)`,
    });
    expect(no('/api/v1/repositories/https%3A%2F%2Fgithub.com%2Fa%01b/sarif')).toEqual({
      ok: false,
      status: 400,
      detail: 'the repository URL in the path holds a control character',
    });
    expect(no(`${P}/${'x'.repeat(8200)}/sarif`)).toEqual({
      ok: false,
      status: 400,
      detail: 'the path is too long',
    });
  });

  it('400 for a time that is not one whole number, or too large', () => {
    const bad = {
      ok: false,
      status: 400,
      detail: 'timestamp must be one integer (Unix seconds)',
      badgeId: 'MAINT',
    };
    expect(no(`${P}/badges/MAINT.svg`, 'timestamp=1&timestamp=2')).toEqual(bad);
    expect(no(`${P}/badges/MAINT.svg`, 'timestamp=-1')).toEqual(bad);
    expect(no(`${P}/badges/MAINT.svg`, 'timestamp=')).toEqual(bad);
    expect(no(`${P}/badges/MAINT.svg`, 'timestamp=9999999999999999')).toEqual(bad);
    expect(no(`${P}/at/9999999999999999/badges/MAINT.svg`)).toEqual({
      ok: false,
      status: 400,
      detail: 'bad time in the path',
      badgeId: 'MAINT',
    });
  });

  it('400 for an unknown style, and for a time on a file that exists for the latest result only', () => {
    expect(no(`${P}/badges/MAINT.svg`, 'style=neon')).toEqual({
      ok: false,
      status: 400,
      detail: 'style must be one of flat, flat-square, plastic, for-the-badge, social',
      badgeId: 'MAINT',
    });
    expect(no(`${P}/badges/MAINT.svg`, 'style=plastic&style=social')).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/^style must be one of/),
    });
    const latestOnly = {
      ok: false,
      status: 400,
      detail: 'this file exists for the latest result only',
    };
    expect(no(`${P}/badges/MAINT.svg`, 'style=plastic&timestamp=1763000000')).toEqual({
      ...latestOnly,
      badgeId: 'MAINT',
    });
    expect(no(`${P}/at/1763000000/badges/MAINT.json`)).toEqual({ ...latestOnly, badgeId: 'MAINT' });
    expect(no(`${P}/code-scanning.sarif`, 'timestamp=1763000000')).toEqual(latestOnly);
  });
});

describe('safe: request text echoed in a message', () => {
  it('replaces what is not printable ASCII and cuts at 64 characters', () => {
    expect(safe('G\nET\u00e9')).toBe('G?ET?');
    expect(safe('x'.repeat(64))).toBe('x'.repeat(64));
    expect(safe('x'.repeat(65))).toBe(`${'x'.repeat(61)}...`);
    expect(route('P\u0000ST', `${P}/sarif`, '')).toMatchObject({
      status: 405,
      detail: 'P?ST: use GET or HEAD',
    });
  });
});
