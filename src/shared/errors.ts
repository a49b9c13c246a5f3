/**
 * The one base class for errors hermes-gateway raises on purpose.
 * `code` is stable and machine-readable; `message` says what was wrong, where, and what to do.
 */
export class HermesError extends Error {
  override readonly name: string = 'HermesError';
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A configuration file or value that cannot be used. */
export class ConfigError extends HermesError {
  override readonly name = 'ConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFIG_INVALID', message, options);
  }
}

/** Text of any thrown value, for logs and `{ error }` results. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
