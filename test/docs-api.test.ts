// docs/reference/api.md shows real answers: every JSON example marked
// `<!-- example: A|B <key> [(abridged)|(one result)] -->` is compared with the file of that key
// in a fresh build of the example it names (examples/store for A, examples/shape-b for B), and
// every `$ curl -si URL` transcript with what the resolver answers for that request from the
// Shape A build. When the output changes on purpose, paste the new file into the page.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolve } from '../src/resolver/core.ts';
import { directoryReader } from '../src/resolver/adapter/node/directory-reader.ts';
import { ROOT } from './helpers/cli.ts';
import { buildSite } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';

const page = readFileSync(join(ROOT, 'docs/reference/api.md'), 'utf8');
const examples = [
  ...page.matchAll(
    /<!-- example: (A|B) (\S+)(?: \((abridged|one result)\))? -->\n```json\n([\s\S]*?)```/g,
  ),
].map((m) => ({
  shape: m[1] as 'A' | 'B',
  key: m[2]!,
  kind: (m[3] ?? 'whole') as 'abridged' | 'one result' | 'whole',
  json: JSON.parse(m[4]!) as unknown,
}));
const transcripts = [
  ...page.matchAll(
    /```\n\$ curl -si "http:\/\/127\.0\.0\.1:8787([^"?]+)(?:\?([^"]*))?"\n([\s\S]*?)```/g,
  ),
].map((m) => ({
  path: m[1]!,
  query: m[2] ?? '',
  shown: m[3]!,
}));

const dir = tempDir();
const sites = { A: join(dir, 'a'), B: join(dir, 'b') };

beforeAll(async () => {
  await buildSite({
    store: join(ROOT, 'examples/store'),
    out: sites.A,
    config: join(ROOT, 'config/badgepress.yaml'),
  });
  await buildSite({
    store: join(ROOT, 'examples/shape-b/store'),
    out: sites.B,
    config: join(ROOT, 'examples/shape-b/badgepress.yaml'),
  });
}, 60_000);

/** `shown` is `actual` with members or array items left out (array order kept), nothing changed or added. */
function isAbridged(shown: unknown, actual: unknown): boolean {
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return false;
    let i = 0;
    for (const item of shown) {
      while (i < actual.length && !isAbridged(item, actual[i])) i++;
      if (i++ >= actual.length) return false;
    }
    return true;
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(shown).every(
      ([k, v]) => k in actual && isAbridged(v, (actual as Record<string, unknown>)[k]),
    );
  }
  return Object.is(shown, actual);
}

describe('docs/reference/api.md', () => {
  it('has examples of both shapes, reports and explanations', () => {
    expect(examples.map((e) => `${e.shape} ${e.key.split('/').slice(4).join('/')}`).sort()).toEqual(
      [
        'A badges/MAINTENANCE',
        'A index.json',
        'A sarif',
        'B badges/OPEN-SOURCE',
        'B sarif',
        'B sarif',
      ],
    );
  });

  it('every JSON example is the file a build of the examples writes', () => {
    for (const e of examples) {
      const actual = JSON.parse(readFileSync(join(sites[e.shape], e.key), 'utf8')) as {
        runs?: Array<{ results: unknown[] }>;
      };
      if (e.kind === 'whole') expect(e.json, e.key).toEqual(actual);
      else if (e.kind === 'abridged')
        expect(isAbridged(e.json, actual), `${e.key} is an abridged copy of the built file`).toBe(
          true,
        );
      else expect(actual.runs![0]!.results, e.key).toContainEqual(e.json);
    }
  });

  it('the abridged check refuses a changed value', () => {
    const built = { a: [{ x: 1 }, { x: 2 }], b: 'y' };
    expect(isAbridged({ a: [{ x: 2 }] }, built)).toBe(true);
    expect(isAbridged({ a: [{ x: 3 }] }, built)).toBe(false);
    expect(isAbridged({ a: [{ x: 2 }, { x: 1 }] }, built)).toBe(false);
    expect(isAbridged({ c: 1 }, built)).toBe(false);
  });

  it('every curl transcript is what the resolver answers (status, headers shown, body)', async () => {
    expect(transcripts.length).toBeGreaterThanOrEqual(2);
    const read = directoryReader(sites.A);
    for (const t of transcripts) {
      const [head, body = ''] = t.shown.split('\n\n') as [string, string?];
      const [statusLine, ...headerLines] = head.trim().split('\n');
      const answer = await resolve({ method: 'GET', path: t.path, query: t.query }, read);
      expect(statusLine, t.path).toBe(
        `HTTP/1.1 ${answer.status} ${statusLine!.split(' ').slice(2).join(' ')}`,
      );
      for (const line of headerLines) {
        const [name, value] = [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)];
        expect(answer.headers[name.toLowerCase()], `${t.path} ${name}`).toBe(value);
      }
      const text =
        answer.body === null
          ? ''
          : typeof answer.body === 'string'
            ? answer.body
            : new TextDecoder().decode(answer.body);
      expect(text.trim(), t.path).toBe(body.trim());
    }
  });
});
