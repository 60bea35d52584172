// Errors every stage may raise about its input, mapped to exit codes by the command line.

/** Bad input a command refuses with exit 2, writing nothing: flags, or bad records under --strict. */
export class BadInputError extends Error {
  override name = 'BadInputError';
}

/** A flag or a location given on the command line or in the config that cannot be used. */
export class UsageError extends BadInputError {
  override name = 'UsageError';
}

/** Later failures noted on an error, e.g. a lease that could not be released after a publish failed. */
const added = new WeakMap<object, string[]>();

/**
 * Runs each clean-up step after `failure` (the step's work failed, or undefined when it did
 * not) and returns what the command should throw: the first failure, with every clean-up
 * failure added to it, never put in its place; a clean-up failure when the work succeeded.
 */
export async function cleanUpAfter(failure: unknown, steps: Array<() => Promise<unknown>>): Promise<unknown> {
  let first = failure;
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      if (first === undefined) first = err;
      else if (typeof first === 'object' && first !== null) added.set(first, [...(added.get(first) ?? []), (err as Error)?.message ?? String(err)]);
    }
  }
  return first;
}

/** The failures added to `err` by cleanUpAfter, first to last. */
export function addedFailures(err: unknown): string[] {
  return typeof err === 'object' && err !== null ? (added.get(err) ?? []) : [];
}
