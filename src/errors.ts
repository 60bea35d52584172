// Errors every stage may raise about its input, mapped to exit codes by the command line.

/** Bad input a command refuses with exit 2, writing nothing: flags, or bad records under --strict. */
export class BadInputError extends Error {
  override name = 'BadInputError';
}

/** A flag or a location given on the command line or in the config that cannot be used. */
export class UsageError extends BadInputError {
  override name = 'UsageError';
}
