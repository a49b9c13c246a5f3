import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Logger } from '../shared/logger.js';
import { errorMessage } from '../shared/errors.js';
import { defineTool } from '../tools/define-tool.js';
import type { Tool } from '../tools/types.js';

/** A skill: `HERMES_HOME/skills/<name>/SKILL.md`, YAML front matter and a Markdown body. */
export interface Skill {
  name: string;
  description: string;
  /** Variables passed through to execute_code and terminal children once the skill is viewed. */
  requiredEnvironmentVariables: string[];
  body: string;
  file: string;
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One entry of `required_environment_variables`: `NAME` or `{ name: NAME, prompt: … }`, as skills written for the reference have them. */
const variableEntry = z.union([z.string(), z.looseObject({ name: z.string() }).transform((entry) => entry.name)]);

/** The entries that name a variable; anything else (not a list, an entry of another shape, a bad name) is left out. */
const variableNames = z
  .array(z.unknown())
  .catch([])
  .transform((items) =>
    items.flatMap((item) => {
      const name = variableEntry.safeParse(item);
      return name.success && VAR_NAME.test(name.data) ? [name.data] : [];
    }),
  );

/** The front matter: a mapping of keys, each read when it has the right type and ignored otherwise. */
const frontMatter = z.looseObject({
  name: z.string().optional().catch(undefined),
  description: z.string().optional().catch(undefined),
  required_environment_variables: variableNames.optional(),
});

/** Reads one SKILL.md; throws with the reason when it cannot be used. */
export function readSkill(file: string, folderName: string): Skill {
  const text = readFileSync(file, 'utf8');
  const match = FRONT_MATTER.exec(text);
  let meta: z.output<typeof frontMatter> = {};
  if (match) {
    const parsed: unknown = parseYaml(match[1]);
    if (parsed !== null && parsed !== undefined) {
      const read = frontMatter.safeParse(parsed);
      if (!read.success) throw new Error('the front matter is not a mapping of keys');
      meta = read.data;
    }
  }
  const body = match ? text.slice(match[0].length) : text;
  return {
    name: meta.name?.trim() || folderName,
    description: meta.description?.trim() ?? '',
    requiredEnvironmentVariables: meta.required_environment_variables ?? [],
    body: body.trim(),
    file,
  };
}

/** Every readable skill under `dir`, by name. A broken SKILL.md is skipped with a log line. */
export function loadSkills(dir: string, logger: Logger): Skill[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const skills: Skill[] = [];
  for (const entry of entries.sort()) {
    const file = join(dir, entry, 'SKILL.md');
    try {
      if (!statSync(file).isFile()) continue;
    } catch {
      continue;
    }
    try {
      skills.push(readSkill(file, entry));
    } catch (error) {
      logger.warn({ file }, `skills: ${file} skipped: ${errorMessage(error)}`);
    }
  }
  return skills;
}

export interface SkillToolsOptions {
  /** HERMES_HOME/skills. */
  dir: string;
  /** Records that `sessionId` viewed a skill declaring these variables; they pass through from now on. */
  grantPassthrough(sessionId: string, names: readonly string[]): void;
  env?: NodeJS.ProcessEnv;
}

/** `skills_list` and `skill_view`. Skills are read from disk on each call, so new ones show up at once. */
export function skillTools(options: SkillToolsOptions): Tool[] {
  const env = options.env ?? {};
  const list = defineTool({
    name: 'skills_list',
    description:
      'List the installed skills (name and description). A skill is a set of instructions for a kind of task; ' +
      'read one with skill_view before following it.',
    args: z.object({}),
    async run(_args, ctx) {
      const skills = loadSkills(options.dir, ctx.logger);
      return { skills: skills.map(({ name, description }) => ({ name, description })), count: skills.length };
    },
  });
  const view = defineTool({
    name: 'skill_view',
    description:
      "Read a skill's instructions by name. Environment variables the skill declares become available to " +
      'execute_code and terminal from then on in this session (a running execute_code kernel sees them after reset: true).',
    args: z.object({ name: z.string().min(1).describe('The skill name, as skills_list shows it') }),
    async run({ name }, ctx) {
      const skills = loadSkills(options.dir, ctx.logger);
      const skill = skills.find((s) => s.name === name) ?? skills.find((s) => s.name.toLowerCase() === name.toLowerCase());
      if (!skill) {
        const known = skills.map((s) => s.name).join(', ') || 'none installed';
        return { error: `No skill named "${name}". Installed skills: ${known}` };
      }
      const vars = skill.requiredEnvironmentVariables;
      if (vars.length > 0) options.grantPassthrough(ctx.sessionId, vars);
      const missing = vars.filter((v) => !env[v]);
      return {
        name: skill.name,
        description: skill.description,
        content: skill.body,
        required_environment_variables: vars,
        ...(missing.length > 0
          ? { missing_environment_variables: missing, note: `Not set in the gateway's environment: ${missing.join(', ')}. Ask the user to set them in HERMES_HOME/.env.` }
          : {}),
      };
    },
  });
  return [list, view];
}
