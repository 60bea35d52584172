// A live progress line for long builds, only on an interactive terminal (never in CI or
// when piped), redrawn at most ten times a second.
//
// The total that drives the ETA is the number of store files: the store is listed up front,
// while the number of repositories is only known once every file has been parsed (a single
// file may hold them all). A store file counts as done once the build has moved past it: some
// record of it was built, and a later repository no longer draws on it. So the line says
// "store files", and with one file per repository it tracks repositories exactly.
import type { BuildSummary } from '../pipeline/loop.ts';
import type { RepositoryHistory } from '../load/types.ts';

interface Progress {
  update(s: BuildSummary, h: RepositoryHistory): void;
  done(): void;
}

/** What the line needs to know about the store: its files and how records name them. */
interface StoreFiles {
  names: string[];
  display(name: string): string;
}

/** CI=false and CI=0 mean "not CI", as most tools read the variable. */
export function isCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI?.trim().toLowerCase();
  return v !== undefined && v !== '' && v !== '0' && v !== 'false';
}

export function progressShown(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && !isCI();
}

export function progressLine(
  stream: NodeJS.WriteStream,
  store: StoreFiles | undefined,
  started: number,
): Progress {
  if (!progressShown(stream)) return { update() {}, done() {} };
  const fileIndex = new Map(store?.names.map((n, i) => [store.display(n), i]));
  const total = store?.names.length ?? 0;
  const seen = new Set<number>();
  let last = 0;
  let shown = false;
  let etaShown = false;
  return {
    update(s, h) {
      // Files of earlier repositories that this one does not draw on are done.
      const current = new Set<number>();
      for (const r of [...h.scans, ...h.grants]) {
        const i = fileIndex.get(r.source.replace(/:\d+$/, ''));
        if (i !== undefined) current.add(i);
      }
      for (const i of current) seen.add(i);
      // Every file seen is done but those this repository still draws on (all seen now).
      const filesDone = seen.size - current.size;
      const now = Date.now();
      // The first line that can carry an ETA is drawn at once, however soon after the last.
      const firstEta = !etaShown && filesDone > 0;
      if (now - last < 100 && !firstEta) return;
      last = now;
      if (firstEta) etaShown = true;
      const secs = (now - started) / 1000;
      const rate = secs > 0 ? Math.round(s.scans / secs) : 0;
      const files = total > 0 ? `, ${filesDone}/${total} store files done` : '';
      const eta =
        total > 0 && filesDone > 0
          ? `, ETA ${Math.ceil(((total - filesDone) * secs) / filesDone)} s`
          : '';
      stream.write(
        `\r\x1b[2K${s.repositories} repositories, ${s.scans} scans, ${s.written + s.unchanged} site files, ${rate} scans/s${files}${eta}`,
      );
      shown = true;
    },
    done() {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
}
