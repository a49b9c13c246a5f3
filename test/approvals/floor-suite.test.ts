import { describe, expect, it } from 'vitest';
import { assessCommand } from '../../src/approvals/index.js';
import { CASE_GROUPS, ISSUE_COMMANDS, ORDINARY, SUITE_CONTEXT, type Case } from './cases/index.js';

/*
 * Several hundred command strings, each with the verdict the assessment must give, grouped by
 * the trick they use. They are only assessed here; nothing in this file runs a command.
 */
const named = (cases: readonly Case[]) => cases.map(([command, verdict]) => ({ shown: JSON.stringify(command), command, verdict }));

const levelOf = (command: string) => assessCommand(command, SUITE_CONTEXT).level;

describe.each(CASE_GROUPS.map((group) => ({ ...group, rows: named(group.cases) })))('the floor suite: $trick', ({ rows }) => {
  it.each(rows)('$shown is $verdict', ({ command, verdict }) => {
    expect(levelOf(command)).toBe(verdict);
  });
});

describe("issue 13's commands", () => {
  const all = new Map(CASE_GROUPS.flatMap((group) => group.cases));

  it.each(named(ISSUE_COMMANDS))('$shown is $verdict, never safe', ({ command, verdict }) => {
    expect(verdict).not.toBe('safe');
    expect(levelOf(command)).toBe(verdict);
  });

  it('every command the issue lists is in the suite with the same verdict', () => {
    const missing = ISSUE_COMMANDS.filter(([command, verdict]) => all.get(command) !== verdict).map(([command]) => command);
    expect(missing).toEqual([]);
  });
});

describe('the suite itself', () => {
  it('holds several hundred commands, at least 100 of them ordinary work that stays safe', () => {
    const total = CASE_GROUPS.reduce((sum, group) => sum + group.cases.length, 0);
    expect(total).toBeGreaterThanOrEqual(500);
    expect(ORDINARY.cases.filter(([, verdict]) => verdict === 'safe').length).toBeGreaterThanOrEqual(100);
  });

  it('lists no command twice with different verdicts', () => {
    const seen = new Map<string, string>();
    const conflicts: string[] = [];
    for (const [command, verdict] of CASE_GROUPS.flatMap((group) => group.cases)) {
      if (seen.has(command) && seen.get(command) !== verdict) conflicts.push(command);
      seen.set(command, verdict);
    }
    expect(conflicts).toEqual([]);
  });
});
