import { execa } from 'execa';
import { hostSearchPath } from '../child-env.js';
import { findExecutable } from '../which.js';

/** The clients tried, in this order, when `terminal.docker.binary` is empty. */
export const ENGINE_CLIENTS: readonly string[] = ['docker', 'podman'];

/** How long an engine may take to answer `version` (a dead docker daemon fails at once). */
const ANSWER_TIMEOUT_MS = 5000;

/** How long a "does not answer" is believed: an engine started later is found again. */
const NO_ANSWER_TTL_MS = 30_000;

/** What one container client said when asked for its engine's version. */
export interface EngineAnswer {
  /** As asked: the value of `terminal.docker.binary`, or `docker` / `podman`. */
  client: string;
  /** Where the client was found; undefined when it is not on PATH. */
  path?: string;
  /** The engine's version, when the engine answered. */
  version?: string;
  /** Why it did not answer, one line. */
  error?: string;
}

/** An answer from an engine that answered. */
export type AnsweringEngine = EngineAnswer & { path: string; version: string };

/** Which engine the docker backend uses, and what every client asked said. */
export interface EngineChoice {
  /** The configured client when its engine answers, else the first of ENGINE_CLIENTS that answers. */
  use?: AnsweringEngine;
  /** Every client asked, in order. */
  asked: EngineAnswer[];
  /** `terminal.docker.binary` named the client (only it was asked). */
  configured: boolean;
}

export function answers(answer: EngineAnswer | undefined): answer is AnsweringEngine {
  return answer?.path !== undefined && answer.version !== undefined;
}

interface Cached {
  answer: Promise<EngineAnswer>;
  /** Set once the answer is "no": when to ask again. */
  expires?: number;
}

const cache = new Map<string, Cached>();

/** Drops every cached answer (tests that start or stop an engine). */
export function forgetEngineAnswers(): void {
  cache.clear();
}

/**
 * Asks `client` (a name on PATH or a path) for its engine's version, with a short timeout.
 * An answer is cached for the process's life; a non-answer for 30 s.
 */
export function askEngine(client: string): Promise<EngineAnswer> {
  const key = `${client}\0${hostSearchPath() ?? ''}`;
  const hit = cache.get(key);
  if (hit && (hit.expires === undefined || hit.expires > Date.now())) return hit.answer;
  const entry: Cached = { answer: ask(client) };
  cache.set(key, entry);
  void entry.answer.then((answer) => {
    if (!answers(answer)) entry.expires = Date.now() + NO_ANSWER_TTL_MS;
  });
  return entry.answer;
}

async function ask(client: string): Promise<EngineAnswer> {
  const path = findExecutable(client);
  if (!path) return { client, error: `${client} is not on PATH` };
  // The same question for docker and podman: both print the server's (engine's) version.
  const run = await execa(path, ['version', '--format', '{{.Server.Version}}'], {
    reject: false, timeout: ANSWER_TIMEOUT_MS, stdin: 'ignore',
  });
  const version = String(run.stdout ?? '').trim();
  if (run.exitCode === 0 && version !== '') return { client, path, version };
  const why = run.timedOut
    ? `no answer within ${ANSWER_TIMEOUT_MS / 1000} s`
    : String(run.stderr ?? '').trim().split('\n').at(-1) || `exited with code ${run.exitCode ?? 'unknown'} without a version`;
  return { client, path, error: why };
}

/**
 * The engine the docker backend uses: `configured` (terminal.docker.binary) wins when set;
 * otherwise docker, then podman, the first whose engine answers. The backend and the tests
 * both ask through here, so they never disagree about which engine is there.
 */
export async function chooseEngine(configured: string): Promise<EngineChoice> {
  if (configured) {
    const answer = await askEngine(configured);
    return { use: answers(answer) ? answer : undefined, asked: [answer], configured: true };
  }
  const asked: EngineAnswer[] = [];
  for (const client of ENGINE_CLIENTS) {
    const answer = await askEngine(client);
    asked.push(answer);
    if (answers(answer)) return { use: answer, asked, configured: false };
  }
  return { asked, configured: false };
}

/** One line per client: `docker (/usr/local/bin/docker): Cannot connect to the Docker daemon…`. */
export function describeAnswers(asked: readonly EngineAnswer[]): string {
  return asked
    .map((answer) => `${answer.client}${answer.path && answer.path !== answer.client ? ` (${answer.path})` : ''}: ${answers(answer) ? `engine ${answer.version} answers` : answer.error}`)
    .join('; ');
}
