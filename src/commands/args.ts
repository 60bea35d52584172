// Command-line parsing shared by the commands: clear errors that name the flag.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.ts';

export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: T,
  usage: string,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${usage}`);
  }
}

export function integerFlag(
  name: string,
  value: string | undefined,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(
      `--${name} ${JSON.stringify(value)}: expected a whole number from ${min} to ${max}`,
    );
  }
  return Number(value);
}
