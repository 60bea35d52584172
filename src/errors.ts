// The errors a stage raises for the command line to report: each carries its exit code and
// says its own message once, so commands/main.ts reads them without knowing who threw.

/** Exit codes by kind of failure (0 and 1 are a build's outcomes, 3 plan's "changes"). */
export const EXIT = { badInput: 2, config: 2, store: 4, publish: 4, leaseHeld: 5 } as const;

/** What the command line prints for a failure: the whole text, and details for --json. */
export interface FailureReport {
  /** One line for the --json object. */
  error: string;
  /** The whole message for stderr. */
  text: string;
  details: Record<string, unknown>;
}

/** A failure badgepress explains: its message names what is wrong, where, and what to do. */
export abstract class BadgepressError extends Error {
  abstract readonly exitCode: number;

  report(): FailureReport {
    return { error: this.message, text: this.message, details: {} };
  }
}

/** Bad input a command refuses with exit 2, writing nothing: flags, or bad records under --strict. */
export class BadInputError extends BadgepressError {
  override name = 'BadInputError';
  readonly exitCode: number = EXIT.badInput;
}

/** A flag or a location given on the command line or in the config that cannot be used. */
export class UsageError extends BadInputError {
  override name = 'UsageError';
}

/** Configuration problems (every one, each with file:line where it has one): nothing is written. */
export class ConfigError extends BadgepressError {
  override name = 'ConfigError';
  readonly exitCode: number = EXIT.config;
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.problems = problems;
  }

  override report(): FailureReport {
    const error = 'configuration problems, nothing written';
    return {
      error,
      text: `${error}:\n${this.problems.map((p) => `  ${p}`).join('\n')}`,
      details: { problems: this.problems },
    };
  }
}

/** A store or output that could not be read or written (exit 4); the message says what to check. */
export class LocationError extends BadgepressError {
  override name = 'LocationError';
  readonly exitCode: number = EXIT.store;
}

/**
 * `err` said of a location by `say(cause)`, unless it already is a BadgepressError: an error
 * is wrapped once, so no message repeats its own cause inside itself.
 */
export function wrapOnce(err: unknown, say: (cause: string) => string): BadgepressError {
  if (err instanceof BadgepressError) return err;
  const { code, message } = (err ?? {}) as NodeJS.ErrnoException;
  return new LocationError(say(code ?? message ?? String(err)));
}

/** Later failures noted on an error, e.g. a lease that could not be released after a publish failed. */
const added = new WeakMap<object, string[]>();

/**
 * Runs each clean-up step after `failure` (the step's work failed, or undefined when it did
 * not) and returns what the command should throw: the first failure, with every clean-up
 * failure added to it, never put in its place; a clean-up failure when the work succeeded.
 */
export async function cleanUpAfter(
  failure: unknown,
  steps: Array<() => Promise<unknown>>,
): Promise<unknown> {
  let first = failure;
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      if (first === undefined) first = err;
      else if (typeof first === 'object' && first !== null)
        added.set(first, [...(added.get(first) ?? []), (err as Error)?.message ?? String(err)]);
    }
  }
  return first;
}

/** The failures added to `err` by cleanUpAfter, first to last. */
export function addedFailures(err: unknown): string[] {
  return typeof err === 'object' && err !== null ? (added.get(err) ?? []) : [];
}
