import { chmodSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers/tool-context.js';

export interface FakeClient {
  /** The client's path. */
  binary: string;
  /** Its folder (put it first on PATH to make `name` resolve to it). */
  dir: string;
  /** Where it keeps its one container id and the log of its calls. */
  state: string;
  /** Every argv it was called with, joined by spaces, oldest first. */
  calls(): string[];
}

/**
 * A stand-in `docker`/`podman` client. Alive, it answers `version` and runs `exec` on this
 * host, for the environment's own logic (wrapper, recreation, label reuse) and the engine
 * choice; dead, it fails every command the way a docker client does when its daemon is down.
 */
export function fakeClient(name: 'docker' | 'podman', options: { alive: boolean; dir?: string } = { alive: true }): FakeClient {
  const dir = options.dir ?? tempDir('hermes-fake-engine-');
  const state = tempDir(`hermes-fake-${name}-state-`);
  const binary = join(dir, name);
  const body = options.alive
    ? `case "$1" in
  version) echo 99.0-fake-${name}; exit 0;;
  ps) [ -e $s/current ] && echo "$(cat $s/current) running"; exit 0;;
  run) id=c$RANDOM; echo $id > $s/current; echo $id; exit 0;;
  start) exit 0;;
  rm) [ "$3" = "-v" ] && [ "$4" = "$(cat $s/current 2>/dev/null)" ] && rm -f $s/current; exit 0;;
  volume) exit 0;;
  inspect) [ -e $s/current ] && [ "$4" = "$(cat $s/current)" ] && { echo true; exit 0; }; echo "Error: No such container: $4" >&2; exit 1;;
  exec) [ "$3" = "$(cat $s/current 2>/dev/null)" ] || { echo "Error response from daemon: No such container: $3" >&2; exit 1; }; shift 3; exec "$@";;
esac
exit 2`
    : `echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2
exit 1`;
  writeFileSync(binary, `#!/bin/bash\ns=${state}\necho "$*" >> $s/calls\n${body}\n`);
  chmodSync(binary, 0o755);
  const log = join(state, 'calls');
  return { binary, dir, state, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
}
