// What the tree of a measured commit holds that a rule reads: a security policy file and the
// .mailmap. Trees are read through one cat-file process; a blobless mirror has them all.
import {
  type CatFile,
  parseTree,
  type RootChange,
  type StoredObject,
  type TreeEntry,
} from './cat-file.ts';
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

/** A tree read or worked out: its id (absent: the repository lacks it) and its kept entries. */
interface Root {
  oid?: string;
  entries: TreeEntry[];
}

const isRegularFile = (e: TreeEntry) => e.mode.startsWith('100');
const isTree = (e: TreeEntry) => e.mode === '40000';

/**
 * The first policy file in `root` or its places, in Scorecard's order. A symbolic link, a
 * submodule or a directory under a policy's name is none, nor is an empty file. `folders`:
 * the entries of the root's folders a policy may be in, by their names as the root spells
 * them; every folder named as a place in any case is looked in (Scorecard compares whole
 * paths case-insensitively: `Docs/` beside `docs/` hides neither), in the root's order.
 */
function securityPolicyIn(
  root: readonly TreeEntry[],
  folders: ReadonlyMap<string, readonly TreeEntry[]>,
): string | undefined {
  for (const [place, names] of Object.entries(POLICY_PLACES)) {
    const within: Array<[folder: string, entries: readonly TreeEntry[]]> =
      place === ''
        ? [['', root]]
        : root
            .filter((e) => isTree(e) && e.name.toLowerCase() === place)
            .map((e) => [e.name, folders.get(e.name) ?? []]);
    for (const [folder, entries] of within) {
      const policy = entries.find(
        (e) => isRegularFile(e) && names.includes(e.name.toLowerCase()) && !EMPTY_BLOBS.has(e.oid),
      );
      if (policy) return folder === '' ? policy.name : `${folder}/${policy.name}`;
    }
  }
  return undefined;
}

/**
 * Which of the `.mailmap` blobs the trees `roots` name are not in the repository, after
 * fetching what the scan may fetch (a blobless mirror lacks every blob it did not ask for).
 * Never fetches lazily: `cat-file` is asked only for blobs known to be there.
 */
type MissingBlobs = (
  roots: readonly string[],
  blobs: readonly string[],
) => Promise<ReadonlySet<string>>;

/**
 * How the roots of many commits are read beside cat-file: `stored`, how the repository stores
 * each root tree (storedObjects); `changes`, the root entries that differ from the first to the
 * second commit of each pair, keyed by the second (rootChanges). A rejection of either makes
 * the roots be read whole instead.
 */
interface RootReader {
  stored(trees: readonly string[]): Promise<ReadonlyArray<StoredObject | undefined>>;
  changes(
    pairs: ReadonlyArray<readonly [from: string, to: string]>,
    rootBytes: number,
  ): Promise<Map<string, RootChange[]>>;
}

// Above this many bytes of root trees to read again (the sizes of the roots other than the one
// read whole), the other roots' entries are worked out from what changed between them.
const LIST_ABOVE_BYTES = 1 << 20;

// Where an entry sorts in a tree: git compares names as bytes, a tree's as if it ended in "/".
// A kept name is ASCII but for the Kelvin sign (the one other character that lower-cases to
// ASCII): JavaScript's order of such strings is the order of their UTF-8 bytes.
const sortKey = (e: TreeEntry) => (isTree(e) ? `${e.name}/` : e.name);

/**
 * The kept entries of a root tree from those of another root (`entries`, in tree order) and
 * git's changes from that root to this one (either way in time): only changes to a kept name
 * matter. Undefined when the changes do not fit the entries (an entry changed that is not
 * there as git says it was, a name twice): the root is then read whole.
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
 * Commits that share a root tree share its read; with `roots`, when reading the roots beyond
 * the first read would print more than `listAboveBytes`, one root is read whole (at the end of
 * the commits the repository stores whole) and each other one worked out from its neighbour's
 * on that side and what git says changed between them (applyRootChanges).
 */
export async function readSnapshots(
  cat: CatFile,
  commits: readonly string[],
  missingOf?: MissingBlobs,
  roots?: RootReader,
  listAboveBytes = LIST_ABOVE_BYTES,
): Promise<Map<string, Snapshot>> {
  const trees = new Map<string, Promise<Root>>();
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
      mailmap = cat
        .read(oid)
        .then((blob) => (blob ? parseMailmap(blob.body.toString('utf8')) : NO_MAILMAP));
      mailmaps.set(oid, mailmap);
    }
    return mailmap;
  };
  // Each commit's root tree id from its commit object (small, one round trip): asking git for
  // `<commit>^{tree}` would have it read and check the whole tree once more.
  const rootIds = await Promise.all(
    commits.map((c) =>
      cat
        .read(c)
        .then((obj) =>
          obj?.type === 'commit'
            ? /^tree ([0-9a-f]+)\n/.exec(obj.body.toString('latin1', 0, 80))?.[1]
            : undefined,
        ),
    ),
  );
  const rootIdOf = new Map(commits.map((c, i) => [c, rootIds[i]]));
  const distinct = [...new Set(rootIds.filter((id): id is string => id !== undefined))];
  // Many roots: how the repository stores them says which to read whole, and whether to read
  // the others whole or work them out.
  const stored =
    roots && distinct.length > 1 ? await roots.stored(distinct).catch(() => undefined) : undefined;
  if (stored) {
    const storedOf = new Map(distinct.map((id, i) => [id, stored[i]]));
    await workOutRoots(commits, rootIds, storedOf, roots!, treeOf, trees, listAboveBytes);
  }
  const rootOf = (commit: string): Promise<Root> => {
    const oid = rootIdOf.get(commit);
    return oid === undefined ? Promise.resolve({ entries: [] }) : treeOf(oid);
  };
  // Every request is written before its answer is awaited: one round trip for the roots not
  // read or listed yet, one for the folders a policy may be in, one for the mailmaps.
  const read = await Promise.all(
    commits.map(async (commit) => {
      const root = await rootOf(commit);
      // Every folder a policy may be in, each spelling of a place's name (.github and .GitHub).
      const wanted = root.entries.filter(
        (e) => isTree(e) && e.name !== '' && Object.hasOwn(POLICY_PLACES, e.name.toLowerCase()),
      );
      const found = await Promise.all(wanted.map((e) => treeOf(e.oid)));
      const places = new Map(wanted.map((e, i) => [e.name, found[i]!.entries]));
      const mailmap = root.entries.find((e) => e.name === '.mailmap' && isRegularFile(e))?.oid;
      return { commit, root, places, mailmap };
    }),
  );
  const blobs = [
    ...new Set(read.map((r) => r.mailmap).filter((oid): oid is string => oid !== undefined)),
  ];
  const mailmapRoots = [
    ...new Set(
      read
        .filter((r) => r.mailmap !== undefined && r.root.oid !== undefined)
        .map((r) => r.root.oid!),
    ),
  ];
  const missing =
    missingOf && blobs.length > 0 ? await missingOf(mailmapRoots, blobs) : new Set<string>();
  const snapshots = await Promise.all(
    read.map(async ({ commit, root, places, mailmap: oid }): Promise<[string, Snapshot]> => {
      const absent = oid !== undefined && missing.has(oid);
      const mailmap = oid !== undefined && !absent ? await mailmapOf(oid) : NO_MAILMAP;
      const policy = securityPolicyIn(root.entries, places);
      return [
        commit,
        {
          ...(policy ? { securityPolicy: policy } : {}),
          mailmap,
          ...(absent ? { mailmapMissing: oid } : {}),
        },
      ];
    }),
  );
  return new Map(snapshots);
}

/**
 * Works out the kept entries of the roots `ids` of `commits` into `trees` when reading them
 * all would print more than `listAboveBytes`: one root read whole, at the end of the commits
 * whose root the repository stores whole (a clone's pack holds the newest whole and each older
 * root as a delta of a newer one; fast-import's, the oldest whole), and each other root from
 * its neighbour's on that side and git's changes between the two. A root git's
 * changes do not fit is read whole, and the walk goes on from it.
 */
async function workOutRoots(
  commits: readonly string[],
  ids: ReadonlyArray<string | undefined>,
  stored: ReadonlyMap<string, StoredObject | undefined>,
  roots: RootReader,
  treeOf: (name: string) => Promise<Root>,
  trees: Map<string, Promise<Root>>,
  listAboveBytes: number,
): Promise<void> {
  const storedAt = (i: number) => (ids[i] === undefined ? undefined : stored.get(ids[i]));
  const whole = (i: number) => storedAt(i)?.type === 'tree' && storedAt(i)?.deltaBase === undefined;
  const last = commits.length - 1;
  // Rebuilding a root at the far end of a chain of deltas is what costs git: start where the
  // root is stored whole. Neither end whole: from the first, as the months go.
  const backwards = !whole(0) && whole(last);
  const order = commits.map((_, i) => (backwards ? last - i : i));
  const start = order[0]!;
  const startRoot = ids[start];
  // Bytes of the other roots, each once: what reading them whole would print.
  let again = 0;
  for (const [id, object] of stored)
    if (id !== startRoot && object?.type === 'tree') again += object.size;
  if (startRoot === undefined || storedAt(start)?.type !== 'tree' || again <= listAboveBytes)
    return;
  // git diffs while the start root is read and parsed.
  const changes = roots
    .changes(
      order.slice(1).map((to, k) => [commits[order[k]!]!, commits[to]!] as const),
      storedAt(start)!.size,
    )
    .catch(() => undefined);
  let entries: TreeEntry[] | undefined = (await treeOf(startRoot)).entries;
  const changed = await changes;
  if (!changed) return;
  for (const i of order.slice(1)) {
    const root = ids[i];
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
