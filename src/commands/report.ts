// How load problems reach the operator: every one with file:line, up to a readable limit.
import type { LoadIssue } from '../load/types.ts';
import { counted } from '../model/plural.ts';

/** What the loader adds to a record it leaves out and builds without. */
const SKIPPED = '; record skipped';

/** With `strict`, a bad record ends the build instead: the loader's "record skipped" is left out. */
export function issuePrinter(
  stream: NodeJS.WritableStream,
  opts: { max?: number; strict?: boolean } = {},
): { print: (i: LoadIssue) => void; flush: () => void } {
  const max = opts.max ?? 200;
  let shown = 0;
  let hidden = 0;
  return {
    print(i) {
      if (shown >= max) {
        hidden++;
        return;
      }
      shown++;
      const message =
        opts.strict && i.message.endsWith(SKIPPED)
          ? i.message.slice(0, -SKIPPED.length)
          : i.message;
      stream.write(`${i.severity}: ${i.where}: ${message}\n`);
    },
    flush() {
      if (hidden > 0)
        stream.write(`… and ${counted(hidden, 'more problem', 'more problems')} not shown\n`);
    },
  };
}
