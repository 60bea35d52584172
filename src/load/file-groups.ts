// Store files grouped by the repositories they share: two files that name one repository are
// read together, so its history is whole. Kept as index links, not a map of arrays (at
// 100,000 files, 12 bytes a file instead of about 100).

export class FileGroups {
  private readonly parent: number[] = [];
  private readonly firstFileOf = new Map<string, number>();

  private find(i: number): number {
    const p = this.parent;
    return p[i] === i ? i : (p[i] = this.find(p[i]!));
  }

  /** File `i` joins the groups (call once per file, in index order before it names anything). */
  add(i: number): void {
    this.parent[i] = i;
  }

  /** File `i` names `url`: it joins the group of the first file that named it. */
  names(i: number, url: string): void {
    const first = this.firstFileOf.get(url);
    if (first === undefined) this.firstFileOf.set(url, i);
    else this.parent[this.find(i)] = this.find(first);
  }

  /**
   * The groups of the files `read(i)` holds, each in store order (by name, whatever order the
   * files were read in: records are taken in it, so of two duplicates the first in the store
   * is kept, as a full build keeps it), groups in the order of their first file. The index of
   * repositories is let go of first: it holds a string per repository otherwise.
   */
  *inOrder(files: readonly string[], read: (i: number) => boolean): Generator<number[]> {
    this.firstFileOf.clear();
    const n = files.length;
    const headOf = new Int32Array(n).fill(-1);
    const nextIn = new Int32Array(n).fill(-1);
    const tailOf = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      if (!read(i)) continue;
      const root = this.find(i);
      if (headOf[root] === -1) headOf[root] = i;
      else nextIn[tailOf[root]!] = i;
      tailOf[root] = i;
    }
    for (let i = 0; i < n; i++) {
      if (!read(i) || headOf[this.find(i)] !== i) continue;
      const group: number[] = [];
      for (let j = i; j !== -1; j = nextIn[j]!) group.push(j);
      yield group.length > 1
        ? group.sort((a, b) => (files[a]! < files[b]! ? -1 : files[a]! > files[b]! ? 1 : 0))
        : group;
    }
  }
}
