// `scan --help` and `build --help` describe every flag their parser accepts: each flag has a
// line of its own (two spaces, the flag, its argument if any) followed by what it does.
import { describe, expect, it } from 'vitest';
import { BUILD_FLAGS } from '../src/commands/build.ts';
import { SCAN_FLAGS } from '../src/commands/scan.ts';
import { DISCOVER_FLAGS } from '../src/commands/discover.ts';
import { runCli } from './helpers/cli.ts';

/** The flags a help text describes: "  --flag [ARG]" then at least two spaces and some words. */
const described = (help: string) =>
  new Set([...help.matchAll(/^ {2}--([a-z0-9-]+)(?: \S+)? {2,}\S.{8,}$/gm)].map((m) => m[1]!));

describe('--help', () => {
  for (const [command, flags] of [
    ['scan', SCAN_FLAGS],
    ['build', BUILD_FLAGS],
    ['discover', DISCOVER_FLAGS],
  ] as const) {
    it(`${command} --help describes every flag its parser accepts`, () => {
      const r = runCli([command, '--help']);
      expect(r.code).toBe(0);
      const helped = described(r.stdout);
      for (const flag of Object.keys(flags)) expect(helped, `--${flag} in "${command} --help"`).toContain(flag);
      // And nothing it does not accept.
      for (const flag of helped) expect(Object.keys(flags)).toContain(flag);
    });
  }
});
