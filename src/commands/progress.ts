// A live progress line for long builds, only on an interactive terminal (never in CI or
// when piped), redrawn at most ten times a second.
import type { BuildSummary } from '../build.ts';

export interface Progress {
  update(s: BuildSummary): void;
  done(): void;
}

export function progressLine(stream: NodeJS.WriteStream, totalFiles: number | undefined, started: number): Progress {
  if (!stream.isTTY || process.env.CI) return { update() {}, done() {} };
  let last = 0;
  let shown = false;
  return {
    update(s) {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      const secs = (now - started) / 1000;
      const rate = secs > 0 ? Math.round(s.scans / secs) : 0;
      // With one store file per repository, files read stand in for repositories to go.
      const eta = totalFiles && s.repositories > 0 && s.repositories <= totalFiles ? `, ETA ${Math.ceil(((totalFiles - s.repositories) * secs) / s.repositories)} s` : '';
      stream.write(`\r\x1b[2K${s.repositories}${totalFiles ? `/${totalFiles}` : ''} repositories, ${s.scans} scans, ${s.written + s.unchanged} files, ${rate} scans/s${eta}`);
      shown = true;
    },
    done() {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
}
