// A hostile git configuration for the scan tests: every config key we know of that makes git
// run a program (each program a script that only writes a marker file) or changes what git
// prints. Given as the user's global config (HOME, XDG_CONFIG_HOME and GIT_CONFIG_GLOBAL), as
// the system config (GIT_CONFIG_SYSTEM), and written into a repository's own config.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from './git-repo.ts';

export interface HostileGit {
  /** The environment a scan runs with: every place git looks for user and system config. */
  env: Record<string, string>;
  /** What the marker scripts wrote: one line per program git ran ('' when none ran). */
  ran(): string;
  /** Writes the hostile keys into the config of the repository at `gitDir`. */
  infect(gitDir: string): void;
}

export function hostileGit(root: string): HostileGit {
  const bin = join(root, 'hostile-bin');
  const hooks = join(root, 'hostile-hooks');
  const log = join(root, 'hostile-ran.log');
  mkdirSync(bin, { recursive: true });
  mkdirSync(hooks, { recursive: true });
  const program = (name: string, extra = '') => {
    const path = join(bin, name);
    writeFileSync(path, `#!/bin/sh\necho "${name} $*" >> '${log}'\n${extra}exit 0\n`);
    chmodSync(path, 0o755);
    return path;
  };
  // gpg as git runs it to verify: its messages (stderr) are what git shows with a commit.
  const gpg = program(
    'gpg',
    'echo "gpg: Signature made by a hostile config" >&2\necho "[GNUPG:] GOODSIG 0 hostile" \n',
  );
  for (const hook of [
    'pre-auto-gc',
    'post-checkout',
    'reference-transaction',
    'post-index-change',
    'fsmonitor-watchman',
  ]) {
    writeFileSync(join(hooks, hook), `#!/bin/sh\necho "hook ${hook}" >> '${log}'\n`);
    chmodSync(join(hooks, hook), 0o755);
  }
  const mailmap = join(root, 'hostile.mailmap');
  writeFileSync(
    mailmap,
    'Mallory <mallory@example.org> <alice@example.org>\nMallory <mallory@example.org> <bob@example.org>\n',
  );
  const keys: Array<[string, string]> = [
    ['log.showSignature', 'true'],
    ['gpg.program', gpg],
    ['gpg.openpgp.program', gpg],
    ['gpg.ssh.program', program('gpg-ssh')],
    ['core.fsmonitor', program('fsmonitor')],
    ['core.hooksPath', hooks],
    ['core.pager', program('pager')],
    ['pager.log', program('pager-log')],
    ['diff.external', program('diff')],
    ['core.alternateRefsCommand', program('alternate-refs')],
    ['core.sshCommand', program('ssh')],
    ['core.askPass', program('askpass')],
    ['credential.helper', `!${program('credential')}`],
    ['alias.log', `!${program('alias-log')}`],
    ['alias.fetch', `!${program('alias-fetch')}`],
    ['i18n.logOutputEncoding', 'ISO-8859-1'],
    ['log.mailmap', 'true'],
    ['mailmap.file', mailmap],
    ['log.abbrevCommit', 'true'],
    ['log.decorate', 'full'],
    ['format.pretty', 'fuller'],
    ['color.ui', 'always'],
    ['http.followRedirects', 'true'],
    ['protocol.allow', 'always'],
  ];
  const configText = keys.map(([k, v]) => {
    const dot = k.lastIndexOf('.');
    const [section, ...sub] = k.slice(0, dot).split('.');
    const head = sub.length > 0 ? `[${section} "${sub.join('.')}"]` : `[${section}]`;
    return `${head}\n\t${k.slice(dot + 1)} = ${JSON.stringify(v)}\n`;
  });
  const home = join(root, 'hostile-home');
  const xdg = join(home, '.config');
  mkdirSync(join(xdg, 'git'), { recursive: true });
  const global = join(home, '.gitconfig');
  writeFileSync(global, configText.join(''));
  writeFileSync(join(xdg, 'git', 'config'), configText.join(''));
  return {
    env: {
      HOME: home,
      XDG_CONFIG_HOME: xdg,
      GIT_CONFIG_GLOBAL: global,
      GIT_CONFIG_SYSTEM: global,
      GIT_PAGER: join(bin, 'pager'),
      GIT_EXTERNAL_DIFF: join(bin, 'diff'),
    },
    ran: () => (existsSync(log) ? readFileSync(log, 'utf8') : ''),
    infect: (gitDir) => {
      for (const [k, v] of keys) git(gitDir, ['config', '--add', k, v]);
    },
  };
}
