import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { hermesPaths, validateConfig, type ConfigOverrides, type HermesConfig, type HermesPaths } from '../../src/config/index.js';
import { silentLogger } from '../../src/shared/index.js';
import { defineTool, ToolRegistry, type Tool } from '../../src/tools/index.js';
import { Agent, createAgent, type AgentOptions } from '../../src/agent/index.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from '../fakes/openai-server.js';

/** A fresh HERMES_HOME, a fake model server and a config pointing at it. */
export interface Harness {
  home: string;
  paths: HermesPaths;
  fake: FakeOpenAI;
  config(overrides?: ConfigOverrides): HermesConfig;
  agent(options?: Partial<Omit<AgentOptions, 'config'>> & { config?: ConfigOverrides }): Agent;
  /** The agent createAgent wires (the real tools, backend and executor) on this config; cleanup closes it. */
  realAgent(overrides?: ConfigOverrides, env?: NodeJS.ProcessEnv): Promise<Agent>;
  cleanup(): Promise<void>;
}

export async function harness(fakeOptions: FakeOpenAIOptions = {}): Promise<Harness> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-agent-'));
  const paths = hermesPaths(home);
  const fake = await startFakeOpenAI(fakeOptions);
  const agents: Agent[] = [];
  const config = (overrides: ConfigOverrides = {}): HermesConfig => {
    const base = {
      // The loop's tests speak whole replies unless they ask for streaming; the default (on) is test/agent/stream-default.test.ts's.
      model: { base_url: fake.url, name: 'fake-model', max_retries: 0, stream: false },
      terminal: { cwd: home },
    };
    const merged = structuredClone(base) as Record<string, Record<string, unknown>>;
    for (const [key, value] of Object.entries(overrides)) merged[key] = { ...(merged[key] ?? {}), ...(value as object) };
    return validateConfig(merged, 'test').config;
  };
  return {
    home,
    paths,
    fake,
    config,
    agent(options = {}) {
      const { config: overrides, ...rest } = options;
      const agent = new Agent({ config: config(overrides), paths, logger: silentLogger(), ...rest });
      agents.push(agent);
      return agent;
    },
    async realAgent(overrides = {}, env) {
      const agent = await createAgent({ config: config(overrides), paths, warnings: [] }, { logger: silentLogger(), ...(env ? { env } : {}) });
      agents.push(agent);
      return agent;
    },
    async cleanup() {
      for (const agent of agents) await agent.close();
      await fake.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A tool that runs a shell command through the session's environment (like terminal). */
export function shellTool(): Tool {
  return defineTool({
    name: 'terminal',
    description: 'Run a shell command',
    args: z.object({ command: z.string() }),
    async run({ command }, ctx) {
      return ctx.environment.execute(command, { signal: ctx.signal });
    },
  });
}

/** A tool that echoes its typed arguments back. */
export function echoTool(): Tool {
  return defineTool({
    name: 'echo',
    description: 'Echo a message a number of times',
    args: z.object({ message: z.string(), times: z.number().int() }),
    async run({ message, times }) {
      return { echoed: Array.from({ length: times }, () => message).join(' ') };
    },
  });
}

export const registryOf = (...tools: Tool[]) => new ToolRegistry(tools);

/** Every message of a request body with its role and content, for readable assertions. */
export function toolMessages(body: { messages: Array<Record<string, unknown>> }) {
  return body.messages.filter((m) => m.role === 'tool') as Array<{ role: 'tool'; tool_call_id: string; content: string }>;
}
