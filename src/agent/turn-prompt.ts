import type { HermesPaths } from '../config/index.js';
import { providerOf, type Environment } from '../environments/index.js';
import type { Logger } from '../shared/logger.js';
import { buildSystemPrompt } from './prompt.js';
import { loadSkills } from './skills.js';

/** The system prompt of a turn or a subagent: the tools it has, the skills, where its commands run. */
export class SystemPrompts {
  constructor(
    private readonly options: {
      paths: HermesPaths;
      logger: Logger;
      /** `terminal.backend`, named when the environment says nothing of itself. */
      backend: string;
      /** A fixed description of where commands run; without it each turn describes its own environment. */
      backendDescription?: string;
    },
  ) {}

  /** `memory`: the speaker's notes (src/memory), for their turn only. */
  for(tools: readonly string[], subagent: boolean, environment: Environment, memory?: string): string {
    const skills = tools.includes('skill_view') ? loadSkills(this.options.paths.skills, this.options.logger) : [];
    const backendDescription = this.options.backendDescription ?? describeEnvironment(environment, this.options.backend);
    return buildSystemPrompt({ backendDescription, toolNames: tools, subagent, skills, ...(memory ? { memory } : {}) });
  }
}

/** Where the turn's commands run, for the system prompt: the backend's own words and the working folder. */
function describeEnvironment(environment: Environment, fallbackName: string): string {
  const provider = providerOf(environment);
  const what = provider?.envDescription || provider?.description || (provider ? 'commands run through this backend' : 'commands run directly on this machine');
  return `${provider?.name ?? fallbackName} — ${what} (working folder ${environment.cwd})`;
}
