/*
 * The process's environment, read at the edge: with src/environments/child-env.ts, the only
 * module under src/ and adapters/ that touches process.env (eslint keeps it so). The settings
 * loader reads it once into a frozen Settings snapshot; everything else is handed that
 * snapshot, or the variables taken from one. No imports: `hermes exec` asks it before it
 * loads anything else.
 */

/** The process's own (mutable) environment: only the settings loader takes it, to lay `.env` under it. */
export function processEnvironment(): NodeJS.ProcessEnv {
  return process.env;
}

/** The process's environment as it is now, frozen: for commands that load no configuration. */
export function readEnvironment(): Readonly<Record<string, string | undefined>> {
  return Object.freeze({ ...process.env });
}

/**
 * Sets (or, with undefined, removes) variables in `target`, the process's environment by
 * default, so that children started from now on choose from them: what a reload of `.env`
 * changed. The running settings change by a new snapshot, not by this.
 */
export function exportVariables(changes: Readonly<Record<string, string | undefined>>, target: NodeJS.ProcessEnv = process.env): void {
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete target[name];
    else target[name] = value;
  }
}
