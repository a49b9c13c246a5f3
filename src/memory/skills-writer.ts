import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { redactSecrets } from '../shared/redact.js';
import { errorMessage } from '../shared/errors.js';

/** A skill's folder name: lowercase letters, digits, `-`, `_` and single dots, up to 64 (hermes-agent's rule). */
const SKILL_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** As hermes-agent: a SKILL.md holds at most this many characters. */
export const MAX_SKILL_CHARS = 100_000;
const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export type SkillWriteResult = { success: true; message: string; path: string; masked?: string } | { error: string };

/** Why `name` cannot be a skill's folder, or undefined when it can. */
export function skillNameProblem(name: string): string | undefined {
  if (name.includes('/') || name.includes('\\')) return `Invalid skill name "${name}": a name cannot hold a slash.`;
  if (name.includes('..')) return `Invalid skill name "${name}": a name cannot hold "..".`;
  if (!SKILL_NAME.test(name)) return `Invalid skill name "${name}": use lowercase letters, digits, "-", "_" and ".", starting with a letter or digit, at most 64 characters.`;
  return undefined;
}

/** Why `content` is not a SKILL.md skill_view can read as skill `name`, or undefined. */
export function skillContentProblem(name: string, content: string): string | undefined {
  if (content.length > MAX_SKILL_CHARS) return `SKILL.md is ${content.length.toLocaleString('en-US')} characters; the limit is ${MAX_SKILL_CHARS.toLocaleString('en-US')}.`;
  const match = FRONT_MATTER.exec(content);
  if (!match) return 'SKILL.md must start with YAML front matter: ---, name: and description:, ---, then the instructions in Markdown.';
  let meta: unknown;
  try {
    meta = parseYaml(match[1]);
  } catch (error) {
    return `The front matter is not valid YAML: ${errorMessage(error)}`;
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return 'The front matter must be a mapping (name: …, description: …).';
  const fields = new Map(Object.entries(meta));
  const description = fields.get('description');
  if (typeof description !== 'string' || !description.trim()) return 'The front matter needs a description: one line saying when to use the skill.';
  const declared = fields.get('name');
  if (declared !== undefined && declared !== name) return `The front matter names the skill "${String(declared)}" but it is being written as "${name}": they must be the same.`;
  if (!content.slice(match[0].length).trim()) return 'SKILL.md needs instructions after the front matter.';
  return undefined;
}

/**
 * Writes the skills the agent makes: `<dir>/<name>/SKILL.md`, in the format skill_view reads.
 * Names are checked (no `..`, no slash), content is checked and redacted, the folder must be
 * a real folder (never a link out), and each write replaces the file whole (a rename).
 * The caller runs the write checks (approvals) first.
 */
export class SkillsWriter {
  constructor(readonly dir: string) {}

  /** The SKILL.md path of a valid name. */
  fileOf(name: string): string {
    return join(this.dir, name, 'SKILL.md');
  }

  create(name: string, content: string): SkillWriteResult {
    const problem = skillNameProblem(name);
    if (problem) return { error: problem };
    if (this.exists(name)) return { error: `A skill named "${name}" already exists. Use action "patch" (or "edit") to change it.` };
    return this.write(name, content, 'created');
  }

  edit(name: string, content: string): SkillWriteResult {
    const problem = skillNameProblem(name) ?? (this.exists(name) ? undefined : this.missing(name));
    if (problem) return { error: problem };
    return this.write(name, content, 'rewritten');
  }

  patch(name: string, oldString: string, newString: string, replaceAll: boolean): SkillWriteResult {
    const problem = skillNameProblem(name) ?? (this.exists(name) ? undefined : this.missing(name));
    if (problem) return { error: problem };
    if (!oldString) return { error: 'old_string is required for patch: the exact text to replace.' };
    const current = readFileSync(this.fileOf(name), 'utf8');
    const count = current.split(oldString).length - 1;
    if (count === 0) return { error: `old_string was not found in ${name}/SKILL.md. Read the skill with skill_view and copy the text exactly.` };
    if (count > 1 && !replaceAll) return { error: `old_string occurs ${count} times in ${name}/SKILL.md; give more context to make it unique, or replace_all: true.` };
    const next = replaceAll ? current.split(oldString).join(newString) : current.replace(oldString, () => newString);
    return this.write(name, next, 'patched');
  }

  delete(name: string): SkillWriteResult {
    const problem = skillNameProblem(name) ?? (this.exists(name) ? undefined : this.missing(name));
    if (problem) return { error: problem };
    rmSync(join(this.dir, name), { recursive: true, force: true });
    return { success: true, message: `Skill "${name}" deleted.`, path: join(this.dir, name) };
  }

  private missing(name: string): string {
    return `No skill named "${name}" under ${this.dir}. Create it with action "create".`;
  }

  /** True when `<dir>/<name>` is a real folder with a SKILL.md file (a link is refused, never followed). */
  private exists(name: string): boolean {
    const folder = lstatOrUndefined(join(this.dir, name));
    if (!folder) return false;
    if (!folder.isDirectory()) throw new Error(`${join(this.dir, name)} is not a plain folder; skills are not written through links`);
    const file = lstatOrUndefined(this.fileOf(name));
    if (file && !file.isFile()) throw new Error(`${this.fileOf(name)} is not a plain file; skills are not written through links`);
    return file !== undefined;
  }

  private write(name: string, content: string, did: string): SkillWriteResult {
    const masks: string[] = [];
    const text = redactSecrets(content, (mask) => masks.push(mask));
    const problem = skillContentProblem(name, text);
    if (problem) return { error: problem };
    const root = lstatOrUndefined(this.dir);
    if (root && !root.isDirectory()) return { error: `${this.dir} is not a plain folder; skills are not written through links.` };
    mkdirSync(join(this.dir, name), { recursive: true, mode: 0o700 });
    const folder = lstatSync(join(this.dir, name));
    if (!folder.isDirectory()) return { error: `${join(this.dir, name)} is not a plain folder; skills are not written through links.` };
    const file = this.fileOf(name);
    const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temp, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
    return {
      success: true,
      message: `Skill "${name}" ${did}. It is listed in the system prompt of new turns; read it with skill_view.`,
      path: file,
      ...(masks.length > 0 ? { masked: `A credential in the skill was masked before saving (${[...new Set(masks)].join(', ')}); skills never hold secrets.` } : {}),
    };
  }
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
