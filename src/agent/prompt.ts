/** What the system prompt is built from. */
export interface SystemPromptOptions {
  /** The terminal backend's description (`local: commands run on this machine in /srv/app`). */
  backendDescription: string;
  /** Names of the tools the model has this turn. */
  toolNames: readonly string[];
  /** Present for subagents: they work on one delegated goal and end with a summary. */
  subagent?: boolean;
  /** Names and descriptions of installed skills, listed so the model knows they exist. */
  skills?: ReadonlyArray<{ name: string; description: string }>;
  /** The notes of the person writing now (src/memory's prompt section): theirs alone. */
  memory?: string;
  now?: Date;
}

/**
 * The system prompt: who the agent is, where its commands run, and when to reach for
 * execute_code versus terminal (the table of the reference documentation, in words).
 */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  const has = (name: string) => options.toolNames.includes(name);
  const parts: string[] = [];
  if (options.subagent) {
    parts.push(
      'You are a Hermes subagent: another Hermes agent delegated one goal to you. You start with no history ' +
        'beyond the goal and its context. Work on the goal with your tools, then answer with a concise summary of ' +
        'what you did and found: that summary is all the delegating agent will see.',
    );
  } else {
    parts.push(
      'You are Hermes, an AI assistant that people reach through chat (Slack, Discord, Telegram, a web chat or a ' +
        'console). You solve tasks by writing and running code and by using your tools, and you answer plainly and ' +
        'concisely. When a task is done, say what you did and what came out of it.',
    );
  }
  parts.push(`Terminal backend: ${options.backendDescription}. The terminal and file tools, and execute_code scripts, run there.`);
  if (has('execute_code') || has('terminal')) {
    const lines = ['Choosing a tool:'];
    if (has('execute_code')) {
      lines.push(
        '- execute_code: a job of several tool calls with logic between them, filtering or reshaping large tool ' +
          'outputs, looping over search results or files. The script imports the tools from hermes_tools and only ' +
          'what it prints comes back to you, so prefer it to many separate calls.',
      );
    }
    if (has('terminal')) {
      lines.push(
        '- terminal: a quick shell command, a build, a test run, installing packages, interactive or long-running ' +
          'processes.',
      );
    }
    if (has('execute_code') && has('terminal')) {
      lines.push('Rule of thumb: calling tools programmatically with decisions in between → execute_code; running shell commands → terminal.');
    }
    parts.push(lines.join('\n'));
  }
  if (has('delegate_task')) {
    parts.push(
      'delegate_task hands a self-contained sub-goal to a subagent with a fresh history; give it the context it ' +
        'needs, since it cannot see this conversation. Several delegate_task calls in one reply run in parallel.',
    );
  }
  if (has('skill_view') && options.skills && options.skills.length > 0) {
    parts.push(
      'Installed skills (read one with skill_view before you rely on it):\n' +
        options.skills.map((skill) => `- ${skill.name}: ${skill.description}`).join('\n'),
    );
  }
  if (options.memory) parts.push(options.memory);
  parts.push(
    'A message may start with a system note in square brackets (for example that your previous turn was ' +
      'interrupted); take it into account, then answer the message.',
  );
  parts.push(`Current date: ${(options.now ?? new Date()).toISOString().slice(0, 10)}.`);
  return parts.join('\n\n');
}
