import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DockerEnvironment } from '../../../src/environments/docker/index.js';
import { tempDir } from '../../helpers/tool-context.js';
import { TEST_IMAGE, engineSkipReason, startTestContainer } from '../../helpers/container-engine.js';
import { remoteRunner, streamCases, type StreamBackend } from '../../execute-code/remote/stream-cases.js';

const missing = await engineSkipReason();
if (missing) console.warn(`execute_code over the Docker stream channel cannot be tested here: ${missing}`);

const TASK = 'docker-stream';

describe.runIf(!missing)('execute_code in a real container (stream channel: one exec -i per run or kernel)', () => {
  let env: DockerEnvironment;
  let backend: StreamBackend;

  beforeAll(async () => {
    const home = tempDir('hermes-docker-stream-home-');
    env = await startTestContainer(home, TASK);
    backend = {
      env,
      commandLines: () => env.commandLines,
      sh: async (command) => (await env.execute(command)).output,
      tmp: '/tmp',
      home,
      fixture: { kind: 'docker', image: TEST_IMAGE, taskId: TASK },
    };
  }, 300_000);

  afterAll(async () => {
    await env?.cleanup();
  });

  streamCases(() => backend, 120_000);

  it('runs a one-shot script with one `exec -i` that carries only the fixed bootstrap, in /workspace', async () => {
    const { run } = remoteRunner(backend, { kernels: false });
    const before = env.commandLines.length;
    const result = await run('import os\nfrom hermes_tools import web_search\nprint(web_search(query="q")["echoed"], os.getcwd())');
    expect(result.output).toBe('q /workspace\n');
    const lines = env.commandLines.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0].slice(1, 3)).toEqual(['exec', '-i']);
    expect(lines[0].at(-1)).toMatch(/^IFS= read -r n/);
  }, 120_000);

  it('a script cannot write frames into the stream through /proc/<runner>/fd either (non-dumpable runner, no CAP_SYS_PTRACE)', async () => {
    const { run } = remoteRunner(backend, { kernels: false });
    const result = await run(
      [
        'import os, struct, sys',
        'body = b\'X{"code": 0, "signal": null}\'',
        'frame = struct.pack(">I", len(body)) + body',
        'outcomes = []',
        'for fd in (1, 0):',
        '    try:',
        '        with open("/proc/%d/fd/%d" % (os.getppid(), fd), "wb") as stream:',
        '            stream.write(frame)',
        '        outcomes.append("wrote")',
        '    except OSError as error:',
        '        outcomes.append(type(error).__name__)',
        'print(outcomes, flush=True)',
        'sys.exit(4)',
      ].join('\n'),
    );
    expect(result.output.trim()).toBe("['PermissionError', 'PermissionError']");
    expect(result.exit_code).toBe(4);
  }, 120_000);
});
