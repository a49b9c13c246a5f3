import { afterAll, beforeAll, describe } from 'vitest';
import { type DockerEnvironment } from '../../../src/environments/docker/index.js';
import { tempDir } from '../../helpers/tool-context.js';
import { engineSkipReason, startTestContainer } from '../../helpers/container-engine.js';
import { remoteFilesCases, type RemoteFilesTarget } from '../ssh/remote-files-cases.js';

const missing = await engineSkipReason();
if (missing) console.warn(`the docker backend's file helper cannot be tested here: ${missing}`);

describe.runIf(!missing)('the file tools on the docker backend on a real engine (a helper on one exec -i)', () => {
  let env: DockerEnvironment;
  let target: RemoteFilesTarget;

  beforeAll(async () => {
    env = await startTestContainer(tempDir('hermes-docker-files-home-'), 'docker-files');
    target = { env, dir: '/workspace/files', sh: async (command) => (await env.execute(command)).output };
  }, 300_000);

  afterAll(async () => {
    await env?.cleanup();
  });

  remoteFilesCases(() => target, 120_000);
});
