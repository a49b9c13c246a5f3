import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { guardFileWrite } from '../../approvals/lazy-guard.js';
import { skillNameProblem, type SkillsWriter } from '../../memory/index.js';
import type { ToolContext } from '../types.js';

const manageArgs = z
  .object({
    action: z.enum(['create', 'patch', 'edit', 'delete']).describe('create a new skill, patch part of one, edit (rewrite) one whole, or delete one'),
    name: z.string().min(1).describe('The skill name: lowercase letters, digits, -, _ (its folder under HERMES_HOME/skills)'),
    content: z.string().optional().describe('For create and edit: the whole SKILL.md (--- name, description --- then Markdown instructions)'),
    old_string: z.string().optional().describe('For patch: the exact text to replace'),
    new_string: z.string().optional().describe('For patch: the text to put instead'),
    replace_all: z.boolean().default(false).describe('For patch: replace every occurrence instead of exactly one'),
  })
  .strict();

/** The write checks every write under HERMES_HOME goes through: skills/ is a listed path, so it asks where the approvals say so. */
async function checkSkillWrite(path: string, ctx: ToolContext) {
  return guardFileWrite('skill_manage', [path], {
    mode: ctx.config.approvals.mode,
    requestApproval: ctx.requestApproval,
    signal: ctx.signal,
    home: homedir(),
    hermesHome: ctx.paths.home,
    logger: ctx.logger,
    label: 'skill_manage',
  });
}

/** `skill_manage`: the agent writes its own skills (hermes-agent's tool: create, patch, edit, delete). */
export function skillManageTool(skills: SkillsWriter) {
  return defineTool({
    name: 'skill_manage',
    description:
      'Create and maintain skills: your procedural memory, reusable instructions for a kind of task, kept in ' +
      'HERMES_HOME/skills/<name>/SKILL.md and listed in every new session\'s system prompt (read one with skill_view). ' +
      'Create one after a difficult task succeeded, when the person corrected your approach, or when they ask you to ' +
      'remember a procedure; patch one when its steps turned out stale or incomplete. SKILL.md format:\n' +
      '---\nname: my-skill\ndescription: One line saying when to use it\n---\n# Steps\n1. …\n' +
      'Never put credentials in a skill.',
    args: manageArgs,
    async run(args, ctx) {
      const problem = skillNameProblem(args.name);
      if (problem) return { error: problem };
      const target = args.action === 'delete' ? join(skills.dir, args.name) : skills.fileOf(args.name);
      const verdict = await checkSkillWrite(target, ctx);
      if (!verdict.allowed) return { error: verdict.error };
      switch (args.action) {
        case 'create':
          if (args.content === undefined) return { error: 'content is required for create: the whole SKILL.md.' };
          return skills.create(args.name, args.content);
        case 'edit':
          if (args.content === undefined) return { error: 'content is required for edit: the whole new SKILL.md.' };
          return skills.edit(args.name, args.content);
        case 'patch':
          if (args.old_string === undefined || args.new_string === undefined) return { error: 'old_string and new_string are required for patch.' };
          return skills.patch(args.name, args.old_string, args.new_string, args.replace_all);
        case 'delete':
          return skills.delete(args.name);
      }
    },
  });
}
