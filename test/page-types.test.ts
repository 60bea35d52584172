// A page's content type has one home (model/http.ts, PAGE_TYPES): the type a build publishes a
// page file with is the type every resolver answers that file with.
import { describe, expect, it } from 'vitest';
import { build } from '../src/pipeline/loop.ts';
import { loadShape } from '../src/pipeline/stages.ts';
import { resolveConfig } from '../src/config/resolve.ts';
import { DirectoryStore } from '../src/load/store.ts';
import { HTML_TYPE, JSON_TYPE, PAGE_TYPES, SVG_TYPE, XML_TYPE } from '../src/model/http.ts';
import type { PublishFile } from '../src/model/publish-file.ts';
import { DirectorySink } from '../src/publish/dir-sink.ts';
import { pagesBuild } from '../src/render/pages/setup.ts';
import { pageContentType } from '../src/resolver/pages.ts';
import { tempDir } from './helpers/tmp.ts';

describe('page content types', () => {
  it('name a type for each kind of page file, JSON for the rest', () => {
    expect(pageContentType('index.html')).toBe(HTML_TYPE);
    expect(pageContentType('repositories/x/feed.atom')).toBe(XML_TYPE);
    expect(pageContentType('favicon.svg')).toBe(SVG_TYPE);
    expect(pageContentType('search.json')).toBe(JSON_TYPE);
    expect(Object.keys(PAGE_TYPES).sort()).toEqual([
      'atom',
      'css',
      'html',
      'js',
      'svg',
      'txt',
      'xml',
    ]);
  });

  for (const [name, config] of [
    ['Shape A', undefined],
    ['Shape B', 'examples/shape-b/badgepress.yaml'],
  ] as const) {
    it(`every page a build publishes (${name}) goes out with the type the resolver answers it with`, async () => {
      const out = tempDir();
      const resolved = await resolveConfig(config, {
        out,
        ...(config ? {} : { store: 'examples/store' }),
      });
      const types = new Map<string, string>();
      class RecordingSink extends DirectorySink {
        override put(file: PublishFile) {
          types.set(file.key, file.contentType);
          return super.put(file);
        }
      }
      const pages = pagesBuild(resolved, undefined);
      expect(pages).toBeDefined();
      await build({
        shape: loadShape(resolved),
        store: new DirectoryStore(resolved.settings.store),
        sink: new RecordingSink(out),
        now: 1_764_000_000,
        report: () => {},
        pages: pages!,
      });
      const pageKeys = [...types.keys()].filter(
        (k) => !k.startsWith('api/') && !k.startsWith('.badgepress/'),
      );
      expect(pageKeys.length).toBeGreaterThan(10);
      const extensions = new Set(pageKeys.map((k) => k.slice(k.lastIndexOf('.') + 1)));
      expect([...extensions].sort()).toEqual(
        expect.arrayContaining(['atom', 'css', 'html', 'js', 'svg', 'txt', 'xml']),
      );
      for (const key of pageKeys) expect(types.get(key), key).toBe(pageContentType(key));
    });
  }
});
