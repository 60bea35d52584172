// Requests that try to climb out of the served directory to files the resolver could name:
// `…/<dots><sep>…x/sarif` with every spelling of ".." and "/", and the canaries they aim at.
// A key is `api/v1/repositories/<segment>/…`, so four ".." from the segment reach the parent
// of the site; the canaries sit there under names a key can end in (x/sarif, x/index.json,
// x/badges/…), and inside the site as links to them, so a resolver that lets the segment
// through uncanonicalised, or a reader that follows a link out, hands one back.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { WIDGET } from './fixture.ts';

export const CANARY = 'CANARY-7f3a9c outside the site';
/** A repository directory inside the site that is a link to the canaries outside it. */
export const LINKED_REPOSITORY = encodeURIComponent('https://linked.example/outside/x');

/** Plants the canaries beside and (as links) inside the site directory `dir`. */
export function plantCanaries(dir: string): void {
  const outside = join(dirname(dir), 'x');
  mkdirSync(join(outside, 'badges'), { recursive: true });
  mkdirSync(join(outside, 'at/1760000000/badges'), { recursive: true });
  for (const base of [outside, join(outside, 'at/1760000000')]) {
    writeFileSync(join(base, 'sarif'), `{"canary":"${CANARY}"}`);
    writeFileSync(
      join(base, 'badges/MAINTENANCE.svg'),
      `<svg xmlns="http://www.w3.org/2000/svg"><title>${CANARY}</title></svg>`,
    );
    writeFileSync(join(base, 'badges/MAINTENANCE'), `{"canary":"${CANARY}"}`);
  }
  writeFileSync(
    join(outside, 'index.json'),
    JSON.stringify({ repositoryUrl: CANARY, timestamps: [1760000000], badges: ['MAINTENANCE'] }),
  );
  const repos = join(dir, 'api/v1/repositories');
  symlinkSync(outside, join(repos, LINKED_REPOSITORY), 'dir');
  symlinkSync(join(outside, 'badges/MAINTENANCE.svg'), join(repos, WIDGET, 'badges/LEAK.svg'));
  symlinkSync(join(outside, 'sarif'), join(repos, WIDGET, 'badges/LEAK'));
}

const dots = fc.constantFrom('..', '..', '%2e%2e', '.%2E', '%252e%252e');
const seps = fc.constantFrom('/', '/', '%2f', '%5C', '\\');
const tail = fc.constantFrom(
  'sarif',
  'index.json',
  'badges/MAINTENANCE.svg',
  'badges/MAINTENANCE',
  'at/1760000000/sarif',
  'at/1760000000/badges/MAINTENANCE.svg',
);

/** `/api/v1/repositories/` + n × (dots + sep) + `x/` + a file name a key can end in. */
export const traversalPath = fc
  .record({ n: fc.integer({ min: 1, max: 6 }), dot: dots, sep: seps, tail })
  .map(({ n, dot, sep, tail: t }) => `/api/v1/repositories/${(dot + sep).repeat(n)}x/${t}`);

/** Paths into the linked repository and to linked files inside a real one. */
export const linkedPath = fc.constantFrom(
  `/api/v1/repositories/${LINKED_REPOSITORY}/sarif`,
  `/api/v1/repositories/${LINKED_REPOSITORY}/index.json`,
  `/api/v1/repositories/${LINKED_REPOSITORY}/badges/MAINTENANCE.svg`,
  `/api/v1/repositories/${LINKED_REPOSITORY}/at/1760000000/sarif`,
  `/api/v1/repositories/${WIDGET}/badges/LEAK.svg`,
  `/api/v1/repositories/${WIDGET}/badges/LEAK`,
);

/** A Location the resolver may send: an encoded URL segment, a time, a file; nothing else. */
export const LOCATION =
  /^\/api\/v1\/repositories\/[^/]*%3A[^/]*\/at\/\d+\/(?:expired\/)?(?:sarif|badges\/[A-Za-z0-9][A-Za-z0-9_-]*(?:\.svg)?)$/;
