import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { HermesError, errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { ApprovalKey } from './request.js';

/** An "always" answer, kept in `HERMES_HOME/approvals.yaml`. */
export interface ApprovalRule extends ApprovalKey {
  /** What `/status` shows: the command, the write, or a script's first line. */
  shown: string;
  /** Who answered "always" (`telegram:1001 (ada)`). */
  by: string;
  /** When, as an ISO timestamp. */
  added: string;
}

const ruleSchema = z.strictObject({
  kind: z.enum(['command', 'write', 'script']),
  reason: z.string().min(1),
  match: z.string().min(1),
  shown: z.string(),
  by: z.string(),
  added: z.string(),
});
const fileSchema = z.strictObject({ rules: z.array(ruleSchema).default([]) });

const HEADER = [
  '# Approval rules: requests that run without asking, added by "/approve always".',
  '# A rule matches one kind, one reason and one normalized command exactly.',
  '# Remove one with "/approve forget <n>" in a chat (n as /status numbers them), or delete it here.',
  '',
].join('\n');

/** The rules file cannot be used (malformed, or writable by others). */
export class ApprovalRulesError extends HermesError {
  override readonly name = 'ApprovalRulesError';
}

interface Loaded {
  rules: ApprovalRule[];
  /** mtime, size, inode and mode when read, to notice edits by hand, by another process, or a chmod. */
  stamp: string;
  /** Why the file is not used; rules are then empty and nothing is written over it. */
  problem?: string;
}

/**
 * The stored "always" rules. With a file they survive restarts: the file is read again when
 * it changes, written whole (0600, by rename) on every change, and ignored — every request
 * asks again — when it is malformed or others may write it. Without a file they last as
 * long as the process.
 */
export class ApprovalRules {
  private loaded: Loaded = { rules: [], stamp: '' };

  constructor(private readonly options: { file?: string; logger?: Logger } = {}) {}

  /** The file rules are kept in, if any. */
  get file(): string | undefined {
    return this.options.file;
  }

  /** The rules in order; `/approve forget <n>` counts from 1. */
  list(): ApprovalRule[] {
    return [...this.current().rules];
  }

  /** The 1-based number of the rule matching `key`, or undefined. */
  find(key: ApprovalKey): number | undefined {
    const index = this.current().rules.findIndex((rule) => rule.kind === key.kind && rule.reason === key.reason && rule.match === key.match);
    return index < 0 ? undefined : index + 1;
  }

  /** Adds a rule (or finds the same one) and returns its number; throws ApprovalRulesError when it cannot be kept. */
  add(rule: ApprovalRule): number {
    const existing = this.find(rule);
    if (existing !== undefined) return existing;
    const loaded = this.current();
    if (loaded.problem) throw new ApprovalRulesError('APPROVAL_RULES_UNUSABLE', loaded.problem);
    const rules = [...loaded.rules, rule];
    this.save(rules);
    return rules.length;
  }

  /** Removes rule `number` (1-based); returns it, or undefined when there is no such rule. */
  remove(number: number): ApprovalRule | undefined {
    const loaded = this.current();
    if (loaded.problem) throw new ApprovalRulesError('APPROVAL_RULES_UNUSABLE', loaded.problem);
    const rule = loaded.rules[number - 1];
    if (!Number.isInteger(number) || !rule) return undefined;
    this.save(loaded.rules.filter((_, index) => index !== number - 1));
    return rule;
  }

  /** Why the file is not used right now, if it is not. */
  problem(): string | undefined {
    return this.current().problem;
  }

  private current(): Loaded {
    const file = this.options.file;
    if (!file) return this.loaded;
    let stamp: string;
    let mode: number;
    try {
      const info = statSync(file);
      stamp = `${info.mtimeMs}:${info.size}:${info.ino}:${info.mode}`;
      mode = info.mode;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        if (this.loaded.stamp !== 'missing') this.loaded = { rules: [], stamp: 'missing' };
        return this.loaded;
      }
      return this.use({ rules: [], stamp: 'unreadable', problem: `${file}: cannot read the approval rules (${errorMessage(error)}); every request asks` });
    }
    if (stamp === this.loaded.stamp) return this.loaded;
    // Anyone who may write the file could approve anything for the agent.
    if ((mode & 0o022) !== 0) {
      return this.use({ rules: [], stamp, problem: `${file} is writable by other users, so its approval rules are ignored; run chmod 600 ${file}` });
    }
    try {
      const parsed = fileSchema.safeParse(parse(readFileSync(file, 'utf8')) ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.join('.') || 'the file';
        return this.use({ rules: [], stamp, problem: `${file}: ${where}: ${issue?.message ?? 'not a rules file'}; fix or delete the file (every request asks until then)` });
      }
      return this.use({ rules: parsed.data.rules, stamp });
    } catch (error) {
      return this.use({ rules: [], stamp, problem: `${file}: not valid YAML (${errorMessage(error)}); fix or delete the file (every request asks until then)` });
    }
  }

  private use(loaded: Loaded): Loaded {
    if (loaded.problem && loaded.problem !== this.loaded.problem) this.options.logger?.error(loaded.problem);
    this.loaded = loaded;
    return loaded;
  }

  private save(rules: ApprovalRule[]): void {
    const file = this.options.file;
    if (!file) {
      this.loaded = { rules, stamp: '' };
      return;
    }
    const text = HEADER + stringify({ rules });
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(temporary, text, { mode: 0o600 });
      chmodSync(temporary, 0o600);
      renameSync(temporary, file);
    } catch (error) {
      throw new ApprovalRulesError('APPROVAL_RULES_WRITE_FAILED', `${file}: cannot save the approval rules (${errorMessage(error)})`, { cause: error });
    }
    // Read back on the next use, so the stamp is the file's own.
    this.loaded = { rules, stamp: '' };
  }
}
