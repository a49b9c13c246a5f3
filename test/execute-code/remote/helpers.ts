import type { Environment } from '../../../src/environments/index.js';

/**
 * `env` without its stream (`openStream`): what a backend offering only `execute` looks like,
 * so execute_code takes the file transport. Everything else is `env`'s own (its command lines too).
 */
export function filesOnly<E extends Environment>(env: E): E {
  return Object.create(env, { openStream: { value: undefined } }) as E;
}

/**
 * A script of six tool calls on a remote backend: it prints its working folder, three web_search
 * answers, what it wrote to made.txt (`content`) and read back, and `command`'s output.
 */
export function sixToolCallsScript(content: string, command: string): string {
  return [
    'import os',
    'from hermes_tools import web_search, terminal, write_file, read_file',
    'print(os.getcwd())',
    'print([web_search(query="q%d" % i)["echoed"] for i in range(3)])',
    `write_file(path="made.txt", content=${JSON.stringify(content)})`,
    'print(read_file(path="made.txt")["content"].strip())',
    `print(terminal(command=${JSON.stringify(command)})["output"].strip())`,
  ].join('\n');
}
