// A Dockerfile's instructions carried out without a container engine, for the guides' images:
// each stage gets a fresh directory standing for its root file system, COPY copies from the
// build context (or from an earlier stage with --from), and each RUN runs through `sh -c` in
// the stage's WORKDIR, in order, failing on the first step that fails. The base image's own
// files are not there: the steps run with this machine's node and npm, as the image's would.
import { cpSync, mkdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { spawnChecked } from './cli.ts';

interface Stage {
  root: string;
  workdir: string;
}

/** The instructions, one a line: comments and blank lines dropped, `\` continuations joined. */
export function instructions(dockerfile: string): Array<{ op: string; args: string }> {
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  return lines.map((l) => {
    const [op, ...rest] = l.split(/\s+/);
    return { op: op!.toUpperCase(), args: rest.join(' ') };
  });
}

/** Paths the build context leaves out, as a .dockerignore of plain names lists them. */
export function ignored(dockerignore: string): (path: string) => boolean {
  const names = dockerignore
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const n of names)
    if (/[*?[!]/.test(n))
      throw new Error(`.dockerignore pattern ${n}: only plain names are carried out here`);
  return (path) => names.some((n) => path === n || path.startsWith(`${n}/`));
}

function copyInto(from: string, to: string): void {
  if (statSync(from).isDirectory()) cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  else cpSync(from, to.endsWith('/') ? join(to, posix.basename(from)) : to);
}

/**
 * Builds the image `dockerfile` describes from `context` into `dir`; returns the directory
 * standing for the last stage's WORKDIR.
 */
export function buildImage(
  dockerfile: string,
  context: string,
  dir: string,
  env: NodeJS.ProcessEnv,
): string {
  const stages = new Map<string, Stage>();
  let stage: Stage | undefined;
  const at = (s: Stage, path: string) => join(s.root, posix.resolve(s.workdir, path));
  for (const { op, args } of instructions(dockerfile)) {
    if (op === 'FROM') {
      stage = { root: join(dir, `stage-${stages.size}`), workdir: '/' };
      mkdirSync(stage.root, { recursive: true });
      stages.set(/\s+AS\s+(\S+)$/i.exec(args)?.[1] ?? String(stages.size), stage);
      continue;
    }
    if (!stage) throw new Error(`${op} before FROM`);
    if (op === 'WORKDIR') {
      stage.workdir = posix.resolve(stage.workdir, args);
      mkdirSync(at(stage, '.'), { recursive: true });
    } else if (op === 'COPY') {
      const words = args.split(/\s+/);
      const from = words[0]!.startsWith('--from=')
        ? stages.get(words.shift()!.slice('--from='.length))
        : undefined;
      if (words[0]?.startsWith('--')) throw new Error(`COPY ${words[0]}: not carried out here`);
      const dest = words.pop()!;
      for (const src of words) {
        const source = from
          ? join(from.root, posix.resolve(from.workdir, src))
          : join(context, src);
        const target = at(stage, dest) + (dest.endsWith('/') || words.length > 1 ? '/' : '');
        copyInto(source, target);
      }
    } else if (op === 'RUN') {
      const r = spawnChecked('sh', ['-c', args], { cwd: at(stage, '.'), env, timeout: 300_000 });
      if (r.status !== 0)
        throw new Error(`RUN ${args} exited ${r.status}:\n${r.stdout}${r.stderr}`);
    } else {
      throw new Error(`Dockerfile instruction ${op}: not carried out here`);
    }
  }
  if (!stage) throw new Error('no FROM in the Dockerfile');
  return at(stage, '.');
}
