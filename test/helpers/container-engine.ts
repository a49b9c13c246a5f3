import { execa } from 'execa';
import { validateConfig } from '../../src/config/index.js';
import { hermesPaths } from '../../src/config/paths.js';
import { chooseEngine, describeAnswers, DockerEnvironment, DockerProvider, type AnsweringEngine } from '../../src/environments/docker/index.js';
import { silentLogger } from '../../src/shared/logger.js';

/** The image the real-engine tests run in; .ci/run builds it and may name another. */
export const TEST_IMAGE = process.env.HERMES_DOCKER_TEST_IMAGE || 'localhost/hermes-python:bookworm';

/** The one command that builds TEST_IMAGE on a developer's machine (root, podman, mmdebstrap). */
export const BUILD_IMAGE = 'bash .ci/build-image.sh';

export type TestEngine = { engine: AnsweringEngine; why?: undefined } | { engine?: undefined; why: string };

/**
 * The engine the docker backend would pick here (the same chooseEngine, with
 * terminal.docker.binary empty), and whether TEST_IMAGE is there; else why not.
 */
export async function testEngine(): Promise<TestEngine> {
  const choice = await chooseEngine('');
  if (!choice.use) return { why: `no container engine answers (${describeAnswers(choice.asked)}); install podman (apt-get install podman runc catatonit mmdebstrap)` };
  const image = await execa(choice.use.path, ['image', 'inspect', '--format', '{{.Id}}', TEST_IMAGE], { reject: false, stdin: 'ignore' });
  if (image.exitCode !== 0) return { why: `${choice.use.client} answers but the image ${TEST_IMAGE} is missing: build it with \`${BUILD_IMAGE}\` (as root, about a minute)` };
  return { engine: choice.use };
}

/**
 * Why the real-engine tests skip here, or undefined when they run. Under CI=true they always
 * run: their beforeAll calls requireEngine() and fails with the reason.
 */
export async function engineSkipReason(): Promise<string | undefined> {
  if (process.env.CI === 'true') return undefined;
  return (await testEngine()).why;
}

/** The answering engine, or an error that says what is missing and how to get it. */
export async function requireEngine(): Promise<AnsweringEngine> {
  const found = await testEngine();
  if (!found.engine) throw new Error(`the real-engine Docker tests need a container engine and ${TEST_IMAGE}: ${found.why}`);
  return found.engine;
}

/**
 * A fresh (not persistent) TEST_IMAGE container on the answering engine, with `home` as its
 * HERMES_HOME and `taskId` as its task, cwd / and a 60 s timeout; the caller cleans it up.
 */
export async function startTestContainer(home: string, taskId: string): Promise<DockerEnvironment> {
  await requireEngine();
  const { config } = validateConfig({ terminal: { container_persistent: false, docker: { image: TEST_IMAGE } } }, 'test');
  const provider = new DockerProvider({ config, paths: hermesPaths(home) });
  const env = await provider.createEnvironment({ cwd: '/', timeout: 60, taskId, logger: silentLogger() });
  if (!(env instanceof DockerEnvironment)) throw new Error('the docker provider made something other than a DockerEnvironment');
  return env;
}
