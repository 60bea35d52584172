// What the tree of a measured commit holds that a rule reads: a security policy file and the
// .mailmap. Trees are read through one cat-file process; a blobless mirror has them all.
import { type CatFile, parseTree, type RootChange, type TreeEntry } from './cat-file.ts';
import { NO_MAILMAP, parseMailmap, type Mailmap } from './mailmap.ts';

export interface Snapshot {
  /** The security policy's path as the tree spells it, when there is a non-empty one. */
  securityPolicy?: string;
  mailmap: Mailmap;
  /** The .mailmap blob the tree names that the repository lacks (read as no mailmap). */
  mailmapMissing?: string;
}

// OpenSSF Scorecard's Security-Policy file names (checks/raw/security_policy.go), compared
// case-insensitively: SECURITY.{md,markdown,adoc,rst} in the root, .github/ or docs/, and doc/security.rst.
const POLICY_NAMES = ['security.md', 'security.markdown', 'security.adoc', 'security.rst'];
const POLICY_PLACES: Record<string, readonly string[]> = {
  '': POLICY_NAMES,
  '.github': POLICY_NAMES,
  docs: POLICY_NAMES,
  doc: ['security.rst'],
};

// The empty blob: a file of no bytes is no policy (SHA-1 and SHA-256 repositories).
const EMPTY_BLOBS = new Set([
  'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391',
  '473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813',
]);

// The only names a rule reads in a tree (lower case): the policy files, their folders, .mailmap.
const READ_NAMES: ReadonlySet<string> = new Set([
  ...Object.values(POLICY_PLACES).flat(),
  ...Object.keys(POLICY_PLACES).filter((p) => p !== ''),
  '.mailmap',
]);

const isRegularFile = (e: TreeEntry) => e.mode.startsWith('100');
const isTree = (e: TreeEntry) => e.mode === '40000';

/**
 * The first policy file in `root` or its places, in Scorecard's order. A symbolic link, a
 * submodule or a directory under a policy's name is none, nor is an empty file.
 */
export function securityPolicyIn(
  root: readonly TreeEntry[],
  places: ReadonlyMap<string, readonly TreeEntry[]>,
): string | undefined {
  for (const [place, names] of Object.entries(POLICY_PLACES)) {
    const entries = place === '' ? root : places.get(place);
    for (const e of entries ?? []) {
      if (isRegularFile(e) && names.includes(e.name.toLowerCase()) && !EMPTY_BLOBS.has(e.oid)) {
        return place === '' ? e.name : `${placeName(root, place)}/${e.name}`;
      }
    }
  }
  return undefined;
}

function placeName(root: readonly TreeEntry[], place: string): string {
  return root.find((e) => isTree(e) && e.name.toLowerCase() === place)?.name ?? place;
}

/**
 * Which of the `.mailmap` blobs the trees `roots` name are not in the repository, after
 * fetching what the scan may fetch (a blobless mirror lacks every blob it did not ask for).
 * Never fetches lazily: `cat-file` is asked only for blobs known to be there.
 */
export type MissingBlobs = (roots: readonly string[], blobs: readonly string[]) => Promise<ReadonlySet<string>>;

/**
 * The root entries that differ from the older to the newer commit of each pair, keyed by the
 * newer (`rootChanges`); a rejection makes the roots be read in full instead.
 */
export type RootDiffer = (
  pairs: ReadonlyArray<readonly [older: string, newer: string]>,
  rootBytes: number,
) => Promise<Map<string, RootChange[]>>;

// Above this many bytes of root trees to read again (the first root's size times the other
// commits), the other roots' entries are worked out from what changed between them.
const LIST_ABOVE_BYTES = 1 << 20;

// Where an entry sorts in a tree: git compares names as bytes, a tree's as if it ended in "/".
// A kept name is ASCII but for the Kelvin sign (the one other character that lower-cases to
// ASCII): JavaScript's order of such strings is the order of their UTF-8 bytes.
const sortKey = (e: TreeEntry) => (isTree(e) ? `${e.name}/` : e.name);

/**
 * The kept entries of a root tree from those of the root before it (`entries`, in tree order)
 * and git's changes between the two: only changes to a kept name matter. Undefined when the
 * changes do not fit the entries (an entry changed that is not there as git says it was, a
 * name twice): the root is then read whole.
 */
export function applyRootChanges(
  entries: readonly TreeEntry[],
  changes: readonly RootChange[],
): TreeEntry[] | undefined {
  const relevant = changes.filter((c) => READ_NAMES.has(c.name.toLowerCase()));
  if (relevant.length === 0) return entries as TreeEntry[];
  const next = [...entries];
  // What went first, then what came: a folder made a file is two changes under one name, the
  // file (sorting first) added before the folder is removed.
  for (const { name, before } of relevant) {
    if (!before) continue;
    const at = next.findIndex((e) => e.name === name);
    const was = next[at];
    if (!was || was.oid !== before.oid || isTree(was) !== isTree(before)) return undefined;
    if (next.some((e, k) => k > at && e.name === name)) return undefined;
    next.splice(at, 1);
  }
  for (const { name, after } of relevant) {
    if (!after) continue;
    if (next.some((e) => e.name === name)) return undefined;
    const key = sortKey(after);
    const place = next.findIndex((e) => sortKey(e) > key);
    next.splice(place < 0 ? next.length : place, 0, after);
  }
  return next;
}

/**
 * Reads the snapshot of each commit (by oid) through one cat-file process; each tree and blob
 * read once. Without `missingOf` every .mailmap blob is taken to be present (a full repository).
 * Commits that share a root tree share its read; with `rootsDiffer`, when reading the roots
 * beyond the first would print more than `listAboveBytes`, each is worked out from the one
 * before it and what git says changed between them (applyRootChanges).
 */
export async function readSnapshots(
  cat: CatFile,
  commits: readonly string[],
  missingOf?: MissingBlobs,
  rootsDiffer?: RootDiffer,
  listAboveBytes = LIST_ABOVE_BYTES,
): Promise<Map<string, Snapshot>> {
  const trees = new Map<string, Promise<{ oid?: string; entries: TreeEntry[] }>>();
  const mailmaps = new Map<string, Promise<Mailmap>>();
  const treeOf = (name: string) => {
    let tree = trees.get(name);
    if (!tree) {
      tree = cat
        .read(name)
        .then((obj) =>
          obj && obj.type === 'tree'
            ? { oid: obj.oid, entries: parseTree(obj.body, obj.oid.length / 2, READ_NAMES) }
            : { entries: [] },
        );
      trees.set(name, tree);
    }
    return tree;
  };
  const mailmapOf = (oid: string): Promise<Mailmap> => {
    let mailmap = mailmaps.get(oid);
    if (!mailmap) {
      mailmap = cat.read(oid).then((blob) => (blob ? parseMailmap(blob.body.toString('utf8')) : NO_MAILMAP));
      mailmaps.set(oid, mailmap);
    }
    return mailmap;
  };
  // The first commit's root read whole (its size says what the others would cost); the others'
  // root tree ids from their commit objects (small), in the same round trip. When reading the
  // others would print more than listAboveBytes (the first root's size times the other commits),
  // what changed from each commit's root to the next one's is asked of git as soon as that size
  // is known: git works on it while the first root is read.
  let changes: Promise<Map<string, RootChange[]> | undefined> | undefined;
  const firstRoot =
    commits.length > 0
      ? cat.read(`${commits[0]}^{tree}`, (type, size) => {
          if (rootsDiffer && type === 'tree' && size * (commits.length - 1) > listAboveBytes)
            changes = rootsDiffer(
              commits.slice(1).map((commit, i) => [commits[i]!, commit] as const),
              size,
            ).catch(() => undefined);
        })
      : undefined;
  const rootIds = await Promise.all(
    commits
      .slice(1)
      .map((c) =>
        cat
          .read(c)
          .then((obj) =>
            obj?.type === 'commit' ? /^tree ([0-9a-f]+)\n/.exec(obj.body.toString('latin1', 0, 80))?.[1] : undefined,
          ),
      ),
  );
  const first = await firstRoot;
  if (first?.type === 'tree')
    trees.set(
      first.oid,
      Promise.resolve({ oid: first.oid, entries: parseTree(first.body, first.oid.length / 2, READ_NAMES) }),
    );
  const rootIdOf = new Map<string, string | undefined>(
    commits.map((c, i) => [c, i === 0 ? (first?.type === 'tree' ? first.oid : undefined) : rootIds[i - 1]]),
  );
  const changed = await changes;
  if (changed && first?.type === 'tree') {
    // Each commit's root from the one before's (known by then) and what changed between them.
    let entries: TreeEntry[] | undefined = (await trees.get(first.oid)!).entries;
    for (let i = 1; i < commits.length; i++) {
      const root = rootIds[i - 1];
      const known = root === undefined ? undefined : trees.get(root);
      if (root === undefined || known) {
        entries = known && (await known).entries;
        continue;
      }
      const worked = entries && applyRootChanges(entries, changed.get(commits[i]!) ?? []);
      if (worked) trees.set(root, Promise.resolve({ oid: root, entries: worked }));
      // What git said does not fit, or nothing to work from: this root read whole, the next
      // worked out from it.
      entries = worked ?? (await treeOf(root)).entries;
    }
  }
  const rootOf = (commit: string): Promise<{ oid?: string; entries: TreeEntry[] }> => {
    const oid = rootIdOf.get(commit);
    return oid === undefined ? Promise.resolve({ entries: [] }) : treeOf(oid);
  };
  // Every request is written before its answer is awaited: one round trip for the roots not
  // read or listed yet, one for the folders a policy may be in, one for the mailmaps.
  const read = await Promise.all(
    commits.map(async (commit) => {
      const root = await rootOf(commit);
      const places = new Map<string, TreeEntry[]>();
      const wanted = root.entries.filter(
        (e) => isTree(e) && Object.hasOwn(POLICY_PLACES, e.name.toLowerCase()) && e.name !== '',
      );
      const found = await Promise.all(wanted.map((e) => treeOf(e.oid)));
      wanted.forEach((e, i) => {
        if (!places.has(e.name.toLowerCase())) places.set(e.name.toLowerCase(), found[i]!.entries);
      });
      const mailmap = root.entries.find((e) => e.name === '.mailmap' && isRegularFile(e))?.oid;
      return { commit, root, places, mailmap };
    }),
  );
  const blobs = [...new Set(read.map((r) => r.mailmap).filter((oid): oid is string => oid !== undefined))];
  const roots = [
    ...new Set(read.filter((r) => r.mailmap !== undefined && r.root.oid !== undefined).map((r) => r.root.oid!)),
  ];
  const missing = missingOf && blobs.length > 0 ? await missingOf(roots, blobs) : new Set<string>();
  const snapshots = await Promise.all(
    read.map(async ({ commit, root, places, mailmap: oid }): Promise<[string, Snapshot]> => {
      const absent = oid !== undefined && missing.has(oid);
      const mailmap = oid !== undefined && !absent ? await mailmapOf(oid) : NO_MAILMAP;
      const policy = securityPolicyIn(root.entries, places);
      return [
        commit,
        { ...(policy ? { securityPolicy: policy } : {}), mailmap, ...(absent ? { mailmapMissing: oid } : {}) },
      ];
    }),
  );
  return new Map(snapshots);
}
