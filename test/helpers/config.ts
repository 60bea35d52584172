// Writes a config text to a file, loads it, and returns the problems a ConfigError lists.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ConfigError } from '../../src/errors.ts';

let n = 0;

export function configProblems(dir: string, load: (file: string) => Promise<unknown>) {
  return async (yaml: string): Promise<{ file: string; problems: string[] }> => {
    const file = join(dir, `t${++n}.yaml`);
    writeFileSync(file, yaml);
    try {
      await load(file);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return { file, problems: (err as ConfigError).problems };
    }
    return { file, problems: [] };
  };
}
