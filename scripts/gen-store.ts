// The synthetic store on the command line: `npm run gen-store -- --repos N --scans M --out DIR`.
// `--shape B` writes Shape B's count rules instead (scripts/lib/synthetic-store.ts).
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { generateStore, type GenOptions } from './lib/synthetic-store.ts';

const USAGE = 'usage: npm run gen-store -- --repos N --scans M --out DIR [--seed S] [--shape A|B]';

/** The options of a command line, or what is wrong with it (said to the user with the usage). */
export function parseGenArgs(argv: string[]): GenOptions | { problem: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        repos: { type: 'string', default: '100' },
        scans: { type: 'string', default: '10' },
        out: { type: 'string' },
        seed: { type: 'string', default: '1' },
        shape: { type: 'string', default: 'A' },
      },
    }));
  } catch (err) {
    // node:util's own words name the flag ("Unknown option '--repo'"); its first line says it.
    return { problem: (err as Error).message.split('\n')[0]! };
  }
  const whole: Record<string, number> = {};
  for (const name of ['repos', 'scans', 'seed'] as const) {
    const v = values[name]!;
    if (!/^\d{1,9}$/.test(v))
      return { problem: `--${name} ${JSON.stringify(v)}: expected a whole number` };
    whole[name] = Number(v);
  }
  if (values.out === undefined || values.out === '') return { problem: '--out DIR is required' };
  if (values.shape !== 'A' && values.shape !== 'B')
    return { problem: `--shape ${JSON.stringify(values.shape)}: expected A or B` };
  return {
    repos: whole.repos!,
    scans: whole.scans!,
    seed: whole.seed!,
    out: values.out,
    shape: values.shape,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const opts = parseGenArgs(process.argv.slice(2));
  if ('problem' in opts) {
    process.stderr.write(`gen-store: ${opts.problem}\n${USAGE}\n`);
    process.exit(2);
  }
  generateStore(opts);
  process.stdout.write(
    `gen-store: ${opts.repos} repositories × ${opts.scans} scans → ${opts.out}\n`,
  );
}
