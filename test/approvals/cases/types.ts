/*
 * The floor suite's data: command strings with the verdict the assessment must give, grouped
 * by the trick they use. Every string here is only ever assessed, never run.
 */
import type { PathContext } from '../../../src/approvals/index.js';

export type Verdict = 'blocked' | 'risky' | 'safe';

/** One command and its expected verdict. */
export type Case = readonly [command: string, verdict: Verdict];

export interface CaseGroup {
  /** The trick, as the test names it. */
  trick: string;
  cases: readonly Case[];
}

/** The gateway's pid as the suite's assessment sees it: this process, so /proc names it for real. */
export const GATEWAY_PID = process.pid;

/** Where the suite's commands land: a home, HERMES_HOME inside it, and the gateway's pid. */
export const SUITE_CONTEXT: PathContext = { home: '/home/ada', hermesHome: '/home/ada/.hermes', gatewayPid: GATEWAY_PID };

export const blocked = (...commands: string[]): Case[] => commands.map((command) => [command, 'blocked'] as const);
export const risky = (...commands: string[]): Case[] => commands.map((command) => [command, 'risky'] as const);
export const safe = (...commands: string[]): Case[] => commands.map((command) => [command, 'safe'] as const);
