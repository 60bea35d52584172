// How load problems reach the operator: every one with file:line, up to a readable limit.
import type { LoadIssue } from '../load/types.ts';

export function issuePrinter(stream: NodeJS.WritableStream, max = 200): { print: (i: LoadIssue) => void; flush: () => void } {
  let shown = 0;
  let hidden = 0;
  return {
    print(i) {
      if (shown >= max) {
        hidden++;
        return;
      }
      shown++;
      stream.write(`${i.severity}: ${i.where}: ${i.message}\n`);
    },
    flush() {
      if (hidden > 0) stream.write(`… and ${hidden} more problems not shown\n`);
    },
  };
}
