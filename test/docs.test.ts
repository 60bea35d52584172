// The repository stands alone and its documentation holds together: no tracked file names a
// path beside the checkout (a clone from the public home has nothing there), the README stays
// short, every relative link in README.md and docs/ reaches a file, and docs/README.md lists
// every page. Fast: it reads files only.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.ts';

const tracked = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
  .stdout.split('\0')
  .filter(Boolean);
const docPages = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`)
  .sort();

const withoutBlocks = (markdown: string) => markdown.replace(/```[\s\S]*?```/g, '');
/** Prose only: links inside code are examples, not links. */
const withoutCode = (markdown: string) => withoutBlocks(markdown).replace(/`[^`\n]*`/g, '');

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as '-', repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of withoutBlocks(readFileSync(file, 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

describe('the repository stands alone', () => {
  it('no tracked file mentions the directory beside the checkout', () => {
    // Spelled in parts, so this file does not name it itself.
    const beside = ['..', 'shared'].join('/');
    expect(tracked.length).toBeGreaterThan(50);
    const offenders = tracked.filter((file) => {
      const path = join(ROOT, file);
      return (
        existsSync(path) && statSync(path).isFile() && readFileSync(path, 'latin1').includes(beside)
      );
    });
    expect(offenders).toEqual([]);
  });

  it('the SARIF schema the tests validate against is in the repository, as published', async () => {
    const { createHash } = await import('node:crypto');
    const schema = readFileSync(join(ROOT, 'test/fixtures/sarif/sarif-schema-2.1.0.json'));
    expect(createHash('sha256').update(schema).digest('hex')).toBe(
      'c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e',
    );
    expect(tracked).toContain('test/fixtures/sarif/sarif-schema-2.1.0.json');
    expect(tracked).toContain('test/fixtures/sarif/NOTICE.md');
  });
});

describe('documentation', () => {
  it('README.md is at most 10 KB', () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(10 * 1024);
  });

  it('every relative link in README.md and docs/ resolves to a file of the repository, and its #anchor to a heading', () => {
    const broken: string[] = [];
    let links = 0;
    for (const page of ['README.md', ...docPages]) {
      for (const m of withoutCode(readFileSync(join(ROOT, page), 'utf8')).matchAll(
        /\]\(([^)\s]+)\)/g,
      )) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        links++;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file =
          path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), decodeURIComponent(path));
        if (relative(ROOT, file).startsWith('..') || !existsSync(file))
          broken.push(`${page}: ${target}`);
        else if (anchor !== undefined && (!file.endsWith('.md') || !anchorsOf(file).has(anchor)))
          broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(links).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });

  it('docs/README.md links every page under docs/', () => {
    const index = readFileSync(join(ROOT, 'docs/README.md'), 'utf8');
    const linked = new Set([...index.matchAll(/\]\(([^)#\s]+)/g)].map((m) => `docs/${m[1]!}`));
    const unlisted = docPages.filter((p) => p !== 'docs/README.md' && !linked.has(p));
    expect(docPages.length).toBeGreaterThan(8);
    expect(unlisted).toEqual([]);
  });
});
