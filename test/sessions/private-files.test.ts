import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openStateDb } from '../../src/sessions/index.js';
import { createLogger } from '../../src/shared/logger.js';
import { PRIVATE_FOLDER_MODE, restrictMode } from '../../src/shared/private-files.js';
import { packageRoot } from '../../src/shared/package-root.js';

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
/** The plain user the gateway runs as in the second leg (root only): not the attacker. */
const GATEWAY_USER = 65533;

/** What another user gets trying to read the file: the attack, by a child under setpriv. */
function readAsNobody(path: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'cat', path], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

/** A HERMES_HOME as an older gateway left it: 0755 folders, 0644 files, state.db with its WAL files. */
function looseHome(): string {
  // Under /tmp itself: the test run's own temp folder is not reachable by the other users of the test.
  const home = mkdtempSync(join('/tmp', 'hermes-private-'));
  chmodSync(home, 0o755);
  mkdirSync(join(home, 'logs'), { mode: 0o755 });
  writeFileSync(join(home, 'logs/agent.log'), '{"msg":"an old line with a secret"}\n', { mode: 0o644 });
  // A database written before, WAL files left on disk: made here with loose modes.
  const first = openStateDb(join(home, 'state.db'));
  first.exec("create table if not exists leak (v text); insert into leak values ('the conversation')");
  first.close();
  for (const name of ['state.db', 'state.db-wal', 'state.db-shm']) {
    if (!existsSync(join(home, name))) writeFileSync(join(home, name), '');
    chmodSync(join(home, name), 0o644);
  }
  chmodSync(join(home, 'logs'), 0o755);
  return home;
}

const files = ['state.db', 'state.db-wal', 'state.db-shm', 'logs/agent.log'];

/** Opens the state database and the log the way the gateway does (and tightens HERMES_HOME as the CLI does). */
function openAsGateway(home: string): () => void {
  restrictMode(home, PRIVATE_FOLDER_MODE);
  const db = openStateDb(join(home, 'state.db'));
  db.exec("insert into leak values ('more')");
  const logger = createLogger({ file: join(home, 'logs/agent.log'), level: 'info', sync: true, env: {} });
  logger.info('a new line');
  return () => db.close();
}

describe.runIf(asRoot || process.env.CI === 'true')('state.db, its WAL files and the logs are private to the gateway user', () => {
  it('as root: an older loose HERMES_HOME is tightened on open (0700 folders, 0600 files), and another user reads none of it', () => {
    const home = looseHome();
    const close = openAsGateway(home);
    try {
      expect(mode(home)).toBe(0o700);
      expect(mode(join(home, 'logs'))).toBe(0o700);
      for (const name of files) expect(mode(join(home, name)), name).toBe(0o600);
      for (const name of files) {
        const attack = readAsNobody(join(home, name));
        expect(attack.status, `${name} was readable by uid ${NOBODY}`).not.toBe(0);
        expect(attack.stdout).toBe('');
        expect(attack.stderr).toMatch(/Permission denied/);
      }
      // Even with HERMES_HOME opened up again by hand, the files themselves stay closed.
      chmodSync(home, 0o755);
      chmodSync(join(home, 'logs'), 0o755);
      for (const name of files) {
        const attack = readAsNobody(join(home, name));
        expect(attack.status, `${name} was readable by uid ${NOBODY} through an open folder`).not.toBe(0);
        expect(attack.stdout).toBe('');
      }
    } finally {
      close();
    }
  });

  it('as a plain user: a gateway run by another unprivileged user keeps its files from uid 65534', () => {
    const home = looseHome();
    // The files belong to the plain user, as they would after a `chown -R`.
    for (const path of [home, join(home, 'logs'), ...files.map((name) => join(home, name))]) chownSync(path, GATEWAY_USER, GATEWAY_USER);
    // The built modules (npm run build): the plain user runs plain Node.
    const built = (file: string) => JSON.stringify(pathToFileURL(join(packageRoot(), 'dist/src', file)).href);
    const script = `import { openStateDb } from ${built('sessions/index.js')};
import { createLogger } from ${built('shared/logger.js')};
import { restrictMode } from ${built('shared/private-files.js')};
restrictMode(${JSON.stringify(home)}, 0o700);
const db = openStateDb(${JSON.stringify(join(home, 'state.db'))});
db.exec("insert into leak values ('as a plain user')");
createLogger({ file: ${JSON.stringify(join(home, 'logs/agent.log'))}, level: 'info', sync: true, env: {} }).info('line');
db.close();`;
    const run = spawnSync('setpriv', [`--reuid=${GATEWAY_USER}`, `--regid=${GATEWAY_USER}`, '--clear-groups', process.execPath, '--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: packageRoot(),
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(mode(home)).toBe(0o700);
    for (const name of ['state.db', 'logs/agent.log']) {
      expect(mode(join(home, name)), name).toBe(0o600);
      expect(statSync(join(home, name)).uid).toBe(GATEWAY_USER);
    }
    chmodSync(home, 0o755);
    chmodSync(join(home, 'logs'), 0o755);
    for (const name of files) {
      if (!existsSync(join(home, name))) continue;
      const attack = readAsNobody(join(home, name));
      expect(attack.status, `${name} was readable by uid ${NOBODY}`).not.toBe(0);
      expect(attack.stdout).toBe('');
    }
  });
});

describe('a fresh HERMES_HOME', () => {
  it('is made with a 0700 logs/ and a 0600 log, and a new state.db is 0600', () => {
    const home = join(mkdtempSync(join(tmpdir(), 'hermes-fresh-')), 'home');
    const logger = createLogger({ file: join(home, 'logs/agent.log'), level: 'info', sync: true, env: {} });
    logger.info('first');
    const db = openStateDb(join(home, 'state.db'));
    db.close();
    expect(mode(home)).toBe(0o700);
    expect(mode(join(home, 'logs'))).toBe(0o700);
    expect(mode(join(home, 'logs/agent.log'))).toBe(0o600);
    expect(mode(join(home, 'state.db'))).toBe(0o600);
  });
});
