import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/config/index.js';
import { hermesPaths } from '../../../src/config/paths.js';
import { DockerProvider, chooseEngine, forgetEngineAnswers, type DockerEnvironment } from '../../../src/environments/docker/index.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { tempDir } from '../../helpers/tool-context.js';
import { runCli } from '../cli-harness.js';
import { fakeClient, type FakeClient } from './fake-client.js';

const originalPath = process.env.PATH;

/** Stand-in docker and podman clients first on PATH, alive or dead as asked. */
function clients(docker: boolean, podman: boolean): { docker: FakeClient; podman: FakeClient } {
  const dir = tempDir('hermes-engines-');
  process.env.PATH = `${dir}:${originalPath}`;
  return { docker: fakeClient('docker', { alive: docker, dir }), podman: fakeClient('podman', { alive: podman, dir }) };
}

function provider(binary = ''): DockerProvider {
  const { config } = validateConfig({ terminal: { container_persistent: false, docker: { binary } } }, 'test');
  return new DockerProvider({ config, paths: hermesPaths(tempDir('hermes-docker-home-')) });
}

/** A HERMES_HOME whose config selects the docker backend (plus `extra` YAML under terminal.docker). */
function dockerHome(extra = ''): string {
  const home = tempDir('hermes-doctor-home-');
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  backend: docker\n  docker:\n    image: localhost/x\n${extra}`);
  return home;
}

describe('which container engine the docker backend uses', () => {
  beforeEach(() => forgetEngineAnswers());
  afterEach(() => {
    process.env.PATH = originalPath;
    forgetEngineAnswers();
  });

  it('a docker client whose daemon is down loses to a podman that answers, and the environment runs podman', async () => {
    const fake = clients(false, true);
    const choice = await chooseEngine('');
    expect(choice.use).toMatchObject({ client: 'podman', path: fake.podman.binary, version: '99.0-fake-podman' });
    expect(choice.asked[0]).toMatchObject({ client: 'docker', path: fake.docker.binary, error: expect.stringContaining('Cannot connect to the Docker daemon') });
    const env = (await provider().createEnvironment({ cwd: '/', timeout: 30, taskId: 'choice', logger: silentLogger() })) as DockerEnvironment;
    expect((await env.execute('echo through-podman', { cwd: '/tmp' })).output).toBe('through-podman\n');
    expect(new Set(env.commandLines.map((line) => line[0]))).toEqual(new Set([fake.podman.binary]));
    expect(fake.docker.calls()).toEqual(['version --format {{.Server.Version}}']);
  });

  it('prefers docker when both answer, and terminal.docker.binary wins over the order', async () => {
    const fake = clients(true, true);
    expect((await chooseEngine('')).use?.path).toBe(fake.docker.binary);
    expect((await chooseEngine('podman')).use?.path).toBe(fake.podman.binary);
    const pinned = (await provider('podman').createEnvironment({ cwd: '/', timeout: 30, taskId: 'pinned', logger: silentLogger() })) as DockerEnvironment;
    expect(pinned.commandLines[0][0]).toBe(fake.podman.binary);
    expect(fake.docker.calls()).toEqual(['version --format {{.Server.Version}}']);
  });

  it('asks each client once and keeps the answer', async () => {
    const fake = clients(false, true);
    await chooseEngine('');
    await chooseEngine('');
    await provider().doctorChecks();
    const versions = (calls: string[]) => calls.filter((call) => call.startsWith('version'));
    expect(versions(fake.docker.calls())).toHaveLength(1);
    expect(versions(fake.podman.calls())).toHaveLength(1);
  });

  it('refuses to create an environment when no engine answers, saying what each client said', async () => {
    clients(false, false);
    const made = provider().createEnvironment({ cwd: '/', timeout: 30, taskId: 'none', logger: silentLogger() });
    await expect(made).rejects.toMatchObject({
      code: 'DOCKER_ENGINE',
      message: expect.stringMatching(/^no container engine answers: docker \(\/.*\/docker\): Cannot connect to the Docker daemon.*; podman \(\/.*\/podman\): Cannot connect.*hermes doctor/),
    });
  });

  it('hermes doctor names the engine that answered and how to pick the other', async () => {
    clients(false, true);
    const home = dockerHome();
    const run = await runCli(home, 'doctor');
    expect(run.stdout).toMatch(/^\[ ok \] docker: engine: podman at \/\S+\/podman answers \(engine 99\.0-fake-podman\), the first of docker, podman that answers$/m);
    expect(run.stdout).toMatch(
      /^\[warn\] docker: other engine docker: \/\S+\/docker does not answer: Cannot connect to the Docker daemon.*\n {7}→ once its engine answers it is chosen before podman; to keep podman: hermes config set terminal\.docker\.binary podman$/m,
    );
  });

  it('hermes doctor fails when the pinned client does not answer and names the one that does', async () => {
    clients(false, true);
    const home = dockerHome();
    expect((await runCli(home, 'config', 'set', 'terminal.docker.binary', 'docker')).error).toBeUndefined();
    const run = await runCli(home, 'doctor');
    expect(run.stdout).toMatch(/^\[FAIL\] docker: engine: terminal\.docker\.binary \(docker\) does not answer: docker \(\/\S+\/docker\): Cannot connect.*\n {7}→ podman answers: hermes config set terminal\.docker\.binary podman$/m);
    expect(run.exitCode).toBe(1);
    expect((await runCli(home, 'config', 'set', 'terminal.docker.binary', 'podman')).error).toBeUndefined();
    forgetEngineAnswers();
    const fixed = await runCli(home, 'doctor');
    expect(fixed.stdout).toMatch(/^\[ ok \] docker: engine: podman at \/\S+\/podman answers \(engine 99\.0-fake-podman\), set by terminal\.docker\.binary$/m);
    expect(fixed.stdout).toMatch(/^\[warn\] docker: other engine docker: .*\n {7}→ start its engine, then hermes config set terminal\.docker\.binary docker$/m);
  });

  it('hermes doctor says when another engine answers too', async () => {
    clients(true, true);
    const run = await runCli(dockerHome(), 'doctor');
    expect(run.stdout).toMatch(/^\[ ok \] docker: engine: docker at \/\S+\/docker answers \(engine 99\.0-fake-docker\), the first of docker, podman that answers$/m);
    expect(run.stdout).toMatch(/^\[ ok \] docker: other engine podman: \/\S+\/podman answers too \(engine 99\.0-fake-podman\); to use it: hermes config set terminal\.docker\.binary podman$/m);
  });
});
