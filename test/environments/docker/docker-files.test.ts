import { afterAll, beforeAll, describe } from 'vitest';
import { validateConfig } from '../../../src/config/index.js';
import { hermesPaths } from '../../../src/config/paths.js';
import { DockerProvider, type DockerEnvironment } from '../../../src/environments/docker/index.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { tempDir } from '../../helpers/tool-context.js';
import { TEST_IMAGE, engineSkipReason, requireEngine } from '../../helpers/container-engine.js';
import { remoteFilesCases, type RemoteFilesTarget } from '../ssh/remote-files-cases.js';

const missing = await engineSkipReason();
if (missing) console.warn(`the docker backend's file helper cannot be tested here: ${missing}`);

describe.runIf(!missing)('the file tools on the docker backend on a real engine (a helper on one exec -i)', () => {
  let env: DockerEnvironment;
  let target: RemoteFilesTarget;

  beforeAll(async () => {
    await requireEngine();
    const { config } = validateConfig({ terminal: { container_persistent: false, docker: { image: TEST_IMAGE } } }, 'test');
    const provider = new DockerProvider({ config, paths: hermesPaths(tempDir('hermes-docker-files-home-')) });
    env = (await provider.createEnvironment({ cwd: '/', timeout: 60, taskId: 'docker-files', logger: silentLogger() })) as DockerEnvironment;
    target = { env, dir: '/workspace/files', sh: async (command) => (await env.execute(command)).output };
  }, 300_000);

  afterAll(async () => {
    await env?.cleanup();
  });

  remoteFilesCases(() => target, 120_000);
});
