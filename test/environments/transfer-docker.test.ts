import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DockerEnvironment } from '../../src/environments/docker/index.js';
import { uploadTo } from '../../src/environments/transfer/index.js';
import { tempDir } from '../helpers/tool-context.js';
import { engineSkipReason, startTestContainer } from '../helpers/container-engine.js';
import { transferCases, type TransferTarget } from './transfer-cases.js';

const missing = await engineSkipReason();
if (missing) console.warn(`docker transfer tests cannot run here: ${missing}`);

describe.runIf(!missing)('files in and out of the docker backend on a real engine (exec -i cat streams)', () => {
  let env: DockerEnvironment;
  let target: TransferTarget;

  beforeAll(async () => {
    env = await startTestContainer(tempDir('hermes-transfer-docker-home-'), 'transfer-test');
    target = { env, dir: '/workspace/files' };
  }, 300_000);

  afterAll(async () => {
    await env?.cleanup();
  });

  transferCases(() => target);

  it('puts the file in the container\'s workspace, as one exec with only a fixed program on its command line', async () => {
    const before = env.commandLines.length;
    const result = await uploadTo(env, Buffer.from('in the container\n'), 'note.txt');
    expect(result.path).toBe('/workspace/note.txt');
    const lines = env.commandLines.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0].slice(1, 3)).toEqual(['exec', '-i']);
    expect(lines[0].join(' ')).not.toContain('note.txt');
    expect((await env.execute('cat /workspace/note.txt; hostname')).output).toMatch(/^in the container\n/);
  });
});
