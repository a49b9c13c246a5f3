import type { HermesConfig, HermesPaths } from '../config/index.js';
import type { Logger } from '../shared/logger.js';
import type { SessionStore } from '../sessions/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { Tool } from '../tools/types.js';
import { memoryTool, sessionSearchTool, skillManageTool } from '../tools/builtin/index.js';
import { MemoryService, memoryCommandReply, skillsCommandReply, type Person } from '../memory/index.js';
import { textTokens } from './context/tokens.js';
import { loadSkills } from './skills.js';
import type { PromptSize, RunTurnOptions } from './types.js';

/** A turn's person: the sender the gateway authorized, on the platform account it came through. */
export function personOf(options: Pick<RunTurnOptions, 'user'>): Person | undefined {
  if (!options.user?.id) return undefined;
  return { account: options.user.platform || 'local', id: options.user.id };
}

/**
 * The agent's side of src/memory: the service on the session database, its three tools
 * (registered where scripts reach them too), the person's notes for each turn's prompt,
 * and what /memory, /skills and /usage say.
 */
export class AgentMemory {
  readonly service: MemoryService;
  private readonly tools: Tool[];
  private readonly prompts = new Map<string, { system: string; memory: string; skillsListed: boolean }>();

  constructor(
    private readonly options: { store: SessionStore; config: HermesConfig; paths: HermesPaths; logger: Logger; registry?: ToolRegistry },
  ) {
    this.service = new MemoryService({ db: options.store.database, settings: () => options.config.memory, skillsDir: options.paths.skills, logger: options.logger });
    const memoryOn = options.config.memory.memory_enabled || options.config.memory.user_profile_enabled;
    this.tools = [...(memoryOn ? [memoryTool(this.service)] : []), sessionSearchTool(this.service), skillManageTool(this.service.skills)];
  }

  /** The agent's own tools from here: none when they went into the given registry (execute_code's scripts reach them there). */
  ownTools(): Tool[] {
    const registry = this.options.registry;
    if (!registry) return this.tools;
    const left = this.tools.filter((tool) => !registry.has(tool.name));
    for (const tool of left) registry.register(tool);
    return [];
  }

  /** Where the session's next message starts; taken before a turn adds its first. */
  mark(sessionId: string): number {
    return this.service.mark(sessionId);
  }

  /** Starts a turn's memory: who speaks, where the turn's messages begin (`mark`); the speaker's notes for the prompt. */
  begin(sessionId: string, options: RunTurnOptions, fromSeq: number): string | undefined {
    return this.service.beginTurn({ sessionId, threadKey: options.sessionKey, person: personOf(options) }, fromSeq);
  }

  /** Ends it: the turn's messages indexed under its person for session_search. */
  end(sessionId: string, options: RunTurnOptions): void {
    this.service.endTurn({ sessionId, threadKey: options.sessionKey, person: personOf(options) });
  }

  /** Keeps the system prompt a session's last turn sent; /usage counts it (counting every turn would cost each turn). */
  recordPrompt(sessionId: string, system: string, memory: string | undefined, tools: readonly string[]): void {
    this.prompts.set(sessionId, { system, memory: memory ?? '', skillsListed: tools.includes('skill_view') });
  }

  /** The last turn's system prompt in tokens, and its memory notes' and skills list's part. */
  promptSize(sessionId: string): PromptSize | undefined {
    const prompt = this.prompts.get(sessionId);
    if (!prompt) return undefined;
    const skills = prompt.skillsListed ? loadSkills(this.options.paths.skills, this.options.logger) : [];
    const skillsText = skills.map((skill) => `- ${skill.name}: ${skill.description}`).join('\n');
    return { tokens: textTokens(prompt.system), memoryTokens: textTokens(prompt.memory), skillsTokens: textTokens(skillsText), skills: skills.length };
  }

  forgetSession(sessionId: string): void {
    this.prompts.delete(sessionId);
  }

  /** `/memory [forget]` for the sender; their notes are shown only in a direct chat. */
  memoryCommand(person: Person, args: string, direct: boolean): string {
    return memoryCommandReply(this.service, person, args, direct);
  }

  /** `/skills`. */
  skillsCommand(): string {
    const skills = loadSkills(this.options.paths.skills, this.options.logger);
    return skillsCommandReply(skills, this.options.paths.skills);
  }
}
