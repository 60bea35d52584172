// `scan --help` and `build --help` describe every flag their parser accepts: each flag has a
// line of its own (two spaces, the flag, its argument if any) followed by what it does.
import { describe, expect, it } from 'vitest';
import { BUILD_FLAGS, BUILD_USAGE } from '../src/commands/build.ts';
import { SCAN_FLAGS, SCAN_USAGE } from '../src/commands/scan.ts';
import { DISCOVER_FLAGS } from '../src/commands/discover.ts';
import { runCli } from './helpers/cli.ts';

/** The flags a help text describes: "  --flag [ARG]" then at least two spaces and some words. */
const described = (help: string) =>
  new Set([...help.matchAll(/^ {2}--([a-z0-9-]+)(?: \S+)? {2,}\S.{8,}$/gm)].map((m) => m[1]!));

describe('--help', () => {
  for (const [command, flags, usage] of [
    ['scan', SCAN_FLAGS, SCAN_USAGE],
    ['build', BUILD_FLAGS, BUILD_USAGE],
    // discover's synopsis is its whole --help, descriptions included.
    ['discover', DISCOVER_FLAGS, undefined],
  ] as const) {
    it(`${command} --help describes every flag its parser accepts`, () => {
      const r = runCli([command, '--help']);
      expect(r.code).toBe(0);
      const helped = described(r.stdout);
      for (const flag of Object.keys(flags))
        expect(helped, `--${flag} in "${command} --help"`).toContain(flag);
      // And nothing it does not accept.
      for (const flag of helped) expect(Object.keys(flags)).toContain(flag);
    });

    if (usage === undefined) continue;
    it(`${command}'s synopsis (printed alone on a usage error) describes no flag: --help's list does, each once`, () => {
      expect([...described(usage)]).toEqual([]);
      const lines = runCli([command, '--help']).stdout.split('\n');
      const flagLines = lines
        .filter((l) => /^ {2}--[a-z0-9-]+(?: \S+)? {2,}\S/.test(l))
        .map((l) => l.trim().split(' ')[0]);
      expect(flagLines.length).toBe(new Set(flagLines).size);
    });
  }
});
