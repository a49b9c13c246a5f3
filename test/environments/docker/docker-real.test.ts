import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/config/index.js';
import { hermesPaths } from '../../../src/config/paths.js';
import { DockerProvider, RECREATED_NOTE, type AnsweringEngine, type DockerEnvironment } from '../../../src/environments/docker/index.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { tempDir } from '../../helpers/tool-context.js';
import { TEST_IMAGE, engineSkipReason, requireEngine } from '../../helpers/container-engine.js';

const missing = await engineSkipReason();
if (missing) console.warn(`docker real-engine tests cannot run here: ${missing}`);

function dockerProvider(home: string, docker: Record<string, unknown> = {}, persistent = false): DockerProvider {
  const { config } = validateConfig({ terminal: { container_persistent: persistent, docker: { image: TEST_IMAGE, ...docker } } }, 'test');
  return new DockerProvider({ config, paths: hermesPaths(home) });
}

async function open(provider: DockerProvider, taskId: string): Promise<DockerEnvironment> {
  return (await provider.createEnvironment({ cwd: '/', timeout: 60, taskId, logger: silentLogger() })) as DockerEnvironment;
}

/** This host's first non-loopback IPv4 address: what a container with a network can reach. */
function hostAddress(): string {
  const address = Object.values(networkInterfaces()).flat().find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;
  if (!address) throw new Error('this host has no non-loopback IPv4 address for the network test to listen on');
  return address;
}

/** Python that lists the container's interfaces and tries a TCP connection to host:port. */
const NETWORK_PROBE = (host: string, port: number) => [
  'import os, socket',
  'print(" ".join(sorted(os.listdir("/sys/class/net"))))',
  'try:',
  `    print("connected", socket.create_connection((${JSON.stringify(host)}, ${port}), timeout=5).recv(5).decode())`,
  'except OSError as error:',
  '    print("blocked", type(error).__name__)',
  '',
].join('\n');

describe.runIf(!missing)('DockerEnvironment with a real engine', () => {
  let engine: AnsweringEngine;
  let home: string;
  let provider: DockerProvider;
  let env: DockerEnvironment;
  const engineRun = (...args: string[]) => execa(engine.path, args, { reject: false, stdin: 'ignore' });

  beforeAll(async () => {
    engine = await requireEngine();
    home = tempDir('hermes-docker-home-');
    provider = dockerProvider(home);
    env = await open(provider, 'docker-test');
  }, 300_000);

  afterAll(async () => {
    await env?.cleanup();
  });

  it('runs terminal commands in /workspace with stdin, stderr and the exit code, through the engine that answered', async () => {
    const result = await env.execute('pwd; cat; echo err >&2; command -v python3; exit 3', { stdin: 'from stdin\n' });
    expect(result.output).toBe('/workspace\nfrom stdin\nerr\n/usr/bin/python3\n');
    expect(result.exit_code).toBe(3);
    expect(env.commandLines.at(-1)?.[0]).toBe(engine.path);
    expect((await env.execute('echo kept > note.txt')).exit_code).toBe(0);
    expect((await env.execute('cat /workspace/note.txt')).output).toBe('kept\n');
  });

  it('kills the command group on timeout', async () => {
    const result = await env.execute('sleep 300 & sleep 300; wait', { timeout: 1 });
    expect(result.timed_out).toBe(true);
    expect(result.exit_code).toBe(124);
    const left = await env.execute('for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline; echo; done | grep -c "^sleep 300" || true');
    expect(left.output.trim()).toBe('0');
  });

  it('has no network with terminal.docker.network false: only lo, and a connection to a host listener fails', async () => {
    const address = hostAddress();
    let connections = 0;
    const server: Server = createServer((socket) => ((connections += 1), socket.end('hello')));
    await new Promise<void>((resolve) => server.listen(0, address, resolve));
    const port = (server.address() as { port: number }).port;
    const online = await open(dockerProvider(home, { network: true }), 'docker-network-on');
    try {
      const off = await env.execute('python3 -', { stdin: NETWORK_PROBE(address, port) });
      expect(off.output).toMatch(/^lo\nblocked \w+\n$/);
      expect(connections).toBe(0);
      // The same probe with the network on reaches the listener: it can see a network when there is one.
      const on = await online.execute('python3 -', { stdin: NETWORK_PROBE(address, port) });
      expect(on.output).toMatch(/\nconnected hello\n$/);
      expect(connections).toBe(1);
    } finally {
      await online.cleanup();
      server.close();
    }
  }, 120_000);

  it('labels a non-persistent container with the gateway and session, and removes it and its volume on cleanup', async () => {
    const labelled = await open(provider, 'docker-cleanup');
    const spec = provider.spec('docker-cleanup');
    const labels = await engineRun('inspect', '--format', '{{json .Config.Labels}}', labelled.container);
    expect(JSON.parse(labels.stdout)).toMatchObject({ 'hermes.gateway': spec.gatewayId, 'hermes.session': spec.session });
    expect((await engineRun('volume', 'inspect', spec.volume)).exitCode).toBe(0);
    await labelled.cleanup();
    expect((await engineRun('inspect', labelled.container)).exitCode).not.toBe(0);
    expect((await engineRun('volume', 'inspect', spec.volume)).exitCode).not.toBe(0);
    const left = await engineRun('ps', '-a', '-q', '--filter', `label=hermes.gateway=${spec.gatewayId}`, '--filter', `label=hermes.session=${spec.session}`);
    expect(left.stdout.trim()).toBe('');
  }, 120_000);

  it('reuses the running labelled container when persistent, without restarting it, and keeps it on cleanup', async () => {
    const persistentHome = tempDir('hermes-docker-persistent-');
    const first = await open(dockerProvider(persistentHome, {}, true), 'docker-persistent');
    try {
      await first.execute('echo one > mark');
      const second = await open(dockerProvider(persistentHome, {}, true), 'docker-persistent');
      expect(second.container).toBe(first.container);
      expect(second.commandLines.some((line) => line[1] === 'start' || line[1] === 'run')).toBe(false);
      await second.cleanup();
      expect((await first.execute('cat mark')).output).toBe('one\n');
    } finally {
      await engineRun('rm', '-f', '-v', first.container);
      await engineRun('volume', 'rm', '-f', dockerProvider(persistentHome).spec('docker-persistent').volume);
    }
  }, 120_000);

  it('recreates a container that disappeared, once, and says so', async () => {
    const before = env.container;
    expect((await engineRun('rm', '-f', before)).exitCode).toBe(0);
    const result = await env.execute('echo back');
    expect(result.output).toBe(`${RECREATED_NOTE}\nback\n`);
    expect(env.container).not.toBe(before);
    expect((await env.execute('echo again')).output).toBe('again\n');
  }, 120_000);
});
